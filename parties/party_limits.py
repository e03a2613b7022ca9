"""What a party may hold: a player's name, and how many players. The one rule the create form, the
CSV upload, a late arrival and the party's creation (parties.services) all check, kept out of
the forms so a service can ask it too."""

import re
import unicodedata

from django.core.exceptions import ValidationError

from scoring import Rules, SeatingError
from scoring.seating import plan_for

NAME_MAX = 40
MIN_PLAYERS, MAX_PLAYERS = 2, 400
GHOST_NAME = re.compile(r"^ghost\s*\d+$", re.IGNORECASE)


def clean_player_name(raw):
    """One player's name, tidied, or a ValidationError that says what is wrong with it."""
    name = " ".join(raw.split())
    if not name:
        raise ValidationError("A player's name cannot be blank.")
    if any(unicodedata.category(ch).startswith("C") for ch in name):
        raise ValidationError(f"“{name}” contains a control character.")
    if len(name) > NAME_MAX:
        raise ValidationError(f"“{name[:20]}…” is longer than {NAME_MAX} characters.")
    if GHOST_NAME.match(name):
        raise ValidationError(f"“{name}” is kept for the ghosts that fill empty seats.")
    return name


def party_size_problem(count: int, rules: Rules) -> str:
    """Why `count` players cannot play under `rules`, for the host; "" when they can."""
    if not MIN_PLAYERS <= count <= MAX_PLAYERS:
        return f"A party needs {MIN_PLAYERS} to {MAX_PLAYERS} players."
    try:
        plan_for(count, rules)
    except SeatingError as error:
        return f"{str(error)[0].upper()}{str(error)[1:]}."
    return ""
