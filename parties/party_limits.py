"""What a party may hold: a player's name, and how many players. The one rule the create form, the
CSV upload, a late arrival and the party's creation (parties.services) all check, kept out of
the forms so a service can ask it too."""

import re
import unicodedata

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from parties.translation import rule_error_text
from scoring import Rules, SeatingError
from scoring.seating import plan_for

NAME_MAX = 40
MIN_PLAYERS, MAX_PLAYERS = 2, 400
# The ghosts' stored names are "Ghost <n>" in every language (parties.services), so it is this
# English word that a player's name may not take.
GHOST_NAME = re.compile(r"^ghost\s*\d+$", re.IGNORECASE)


def clean_player_name(raw):
    """One player's name, tidied, or a ValidationError that says what is wrong with it (in the
    reader's language)."""
    name = " ".join(raw.split())
    if not name:
        raise ValidationError(_("A player's name cannot be blank."))
    if any(unicodedata.category(ch).startswith("C") for ch in name):
        raise ValidationError(_("“%(name)s” contains a control character.") % {"name": name})
    if len(name) > NAME_MAX:
        raise ValidationError(
            ngettext(
                "“%(name)s…” is longer than %(count)s character.",
                "“%(name)s…” is longer than %(count)s characters.",
                NAME_MAX,
            )
            % {"name": name[:20], "count": NAME_MAX}
        )
    if GHOST_NAME.match(name):
        raise ValidationError(
            _("“%(name)s” is kept for the ghosts that fill empty seats.") % {"name": name}
        )
    return name


def party_size_problem(count: int, rules: Rules) -> str:
    """Why `count` players cannot play under `rules`, for the host (in their language); "" when
    they can."""
    if not MIN_PLAYERS <= count <= MAX_PLAYERS:
        return _("A party needs %(min)s to %(max)s players.") % {
            "min": MIN_PLAYERS,
            "max": MAX_PLAYERS,
        }
    try:
        plan_for(count, rules)
    except SeatingError as error:
        problem = rule_error_text(error)
        return f"{problem[:1].upper()}{problem[1:]}."
    return ""
