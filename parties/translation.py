"""The game's words in the reader's language, where they come from scoring/, which stays free
of Django: its errors carry an English message id and its values (`msgid`, `params`), and the
shell translates them here, in the language active for the request or the phone."""

from django.utils.translation import gettext


def rule_error_text(error):
    """A scoring error's message in the active language (its English text if it carries no id)."""
    msgid = getattr(error, "msgid", None)
    if msgid is None:
        return str(error)
    return gettext(msgid) % getattr(error, "params", {})


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
