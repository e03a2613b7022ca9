"""The refusal every club service raises: a request the club cannot take, said for the person
who made it."""

from parties.services.errors import PartyError


class ClubError(PartyError):
    """A request the club cannot take; the message is for the person who made it. A PartyError,
    so a view catches a night's party refusing (party_create) and the club's the same way."""
