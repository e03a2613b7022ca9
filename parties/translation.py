"""The game's words in the reader's language, where they come from scoring/, which stays free
of Django: its errors carry an English message id and its values (`msgid`, `params`), and the
shell translates them here, in the language active for the request or the phone.

The words rows keep (what a correction changed, what a late roll was) are kept the same way, as
message ids and values (`deferred`), and worded here when they are read (`worded`); so are the
ghosts' names, which rows store in English (`player_name`)."""

import re

from django.conf import settings
from django.utils.translation import (
    get_language,
    get_supported_language_variant,
    gettext,
    ngettext,
)

from scoring.quick import entry_words


def rule_error_text(error):
    """A scoring error's message in the active language (its English text if it carries no id)."""
    msgid = getattr(error, "msgid", None)
    if msgid is None:
        return str(error)
    return gettext(msgid) % getattr(error, "params", {})


def hosts_language():
    """The language the host's browser reads this page in, as one of the site's languages."""
    try:
        return get_supported_language_variant(get_language() or settings.LANGUAGE_CODE)
    except LookupError:
        return settings.LANGUAGE_CODE


def who_text(stored):
    """Who entered a roll or made a correction, as rows store it in English (`entered_by`,
    `made_by`: access.Grant.role_label, or "clock"), in the active language."""
    if stored == "host":
        return gettext("host")
    if stored == "player":
        return gettext("player")
    if stored == "clock":
        return gettext("the clock")
    if stored.startswith("table ") and stored[6:].replace(",", "").isdigit():
        return gettext("table %(number)s") % {"number": stored[6:]}
    return stored


# -- the words rows keep, worded when they are read ------------------------------------------
#
# A row keeps what a person will read as values of plain JSON, never as text in one language:
#
#   message  [msgid, params], or [msgid, plural, params] where params["count"] picks the words
#   value    a message; {"roll": [outcome, face, dice]}, a roll as entered; {"ghost": name}, a
#            ghost's name as stored; {"list": [value, ...], "sep": "; "}; or a name as typed, a
#            number: shown as it is
#
# Rows written before they kept their words this way hold English text (Correction.effects,
# LateTap.description), shown as stored.


class _Deferred:
    """Messages kept to be worded when read. Named as gettext's functions so that makemessages
    (xgettext) finds each message id where it is written; nothing is translated here."""

    @staticmethod
    def gettext(msgid, **params):
        return [msgid, params]

    @staticmethod
    def ngettext(singular, plural, count, **params):
        return [singular, plural, {**params, "count": count}]


deferred = _Deferred()


def roll_said(outcome="", face=None, dice=()):
    """A roll as it was entered (scoring.quick.entry_words's arguments), kept."""
    return {"roll": [outcome, face, list(dice)]}


def name_said(name, is_ghost=False):
    """A player's name, kept: as typed, or a ghost's, worded when read (player_name)."""
    return {"ghost": name} if is_ghost else name


def listed(values, separator):
    return {"list": list(values), "sep": separator}


def round_said(set_number, round_number):
    """A round's name at the start of a line, kept: "Set 2, round 3"."""
    return deferred.gettext("Set %(set)s, round %(round)s", set=set_number, round=round_number)


def round_said_within(set_number, round_number):
    """A round's name in the middle of a sentence, kept: "round 3", or "round 3 of set 2" after
    the first set."""
    if set_number > 1:
        return deferred.gettext(
            "round %(round)s of set %(set)s", round=round_number, set=set_number
        )
    return deferred.gettext("round %(round)s", round=round_number)


def worded(value, gettext=gettext, ngettext=ngettext):
    """A kept value in words, in the active language (`gettext` and `ngettext` translate). A
    value that is none of those above (a party file's, say) raises ValueError, TypeError,
    KeyError or AttributeError: see `readable`."""
    if isinstance(value, list):
        *ids, params = value
        if not 1 <= len(ids) <= 2 or not all(isinstance(i, str) for i in ids):
            raise ValueError("a message is its id (and plural) and its values")
        values = {key: worded(item, gettext, ngettext) for key, item in params.items()}
        if len(ids) == 1:
            return gettext(ids[0]) % values
        if type(params["count"]) is not int:
            raise TypeError("a plural message's count is a number")
        return ngettext(ids[0], ids[1], params["count"]) % values
    if isinstance(value, dict):
        if "roll" in value:
            outcome, face, dice = value["roll"]
            return entry_words(outcome, face, dice, gettext=gettext)
        if "ghost" in value:
            return player_name(value["ghost"], True)
        if "list" in value:
            return value["sep"].join(str(worded(item, gettext, ngettext)) for item in value["list"])
        raise ValueError("a kept value is a roll, a ghost or a list")
    return value


def readable(kept):
    """Whether `kept` (a row's list of kept values: a party file's) can be worded, in either
    form of every plural message: a file's values may miss what the words need."""
    if not isinstance(kept, list):
        return False
    try:
        for value in kept:
            str(worded(value, _as_is, _singular))
            str(worded(value, _as_is, _plural))
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return False
    return True


def _as_is(msgid):
    return msgid


def _singular(singular, plural, count):
    return singular


def _plural(singular, plural, count):
    return plural


def correction_effects(correction):
    """What a correction changed, a line each, in the active language (a correction saved before
    it kept its words: its English lines as stored)."""
    if correction.effect_messages:
        return [str(worded(value)) for value in correction.effect_messages]
    return [line for line in correction.effects.splitlines() if line]


def late_tap_description(late):
    """What a late roll was ("2 points for Ann; made before the bell"), in the active language
    (a late roll held before it kept its words: its English description as stored)."""
    if late.description_messages:
        return "; ".join(str(worded(value)) for value in late.description_messages)
    return late.description


# A ghost's name is stored in English, "Ghost <n>", in every language: parties.services write it
# so, and party_limits.GHOST_NAME keeps the players from taking it.
STORED_GHOST = re.compile(r"Ghost (\d+)")


def player_name(name, is_ghost):
    """A player's name as a reader sees it: as typed, never translated; but a ghost's, stored
    as "Ghost 3", in the active language."""
    stored = STORED_GHOST.fullmatch(name) if is_ghost else None
    if stored is None:
        return name
    # Translators: the name of a ghost, who fills an empty seat ("ghost" as elsewhere), and
    # its number: "Ghost 3".
    return gettext("Ghost %(number)s") % {"number": stored.group(1)}
