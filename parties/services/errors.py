"""The refusal every service raises: a request the party cannot take, said for the person who
made it."""

from django.utils.translation import gettext as _


class PartyError(ValueError):
    """A request the party cannot take; the message is for the person who made it."""


class StaleTap(PartyError):
    """The phone entered a roll on a table state another phone has since changed."""

    def __init__(self, version):
        super().__init__(
            _(
                "Another phone changed this table first; check the score and enter the roll "
                "again if it is still missing."
            )
        )
        self.version = version
