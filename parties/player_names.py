"""What a player's name may be: the one rule the create form, the CSV upload and a late
arrival (parties.services.player) all check, kept out of the forms so a service can ask it too."""

import re
import unicodedata

from django.core.exceptions import ValidationError

NAME_MAX = 40
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
