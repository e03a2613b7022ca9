"""Writes to a table's scorekeeper: a player takes over as the table's scorekeeper while the
round waits to start (docs/rules.md section 5, last paragraph)."""

from django.db import transaction
from django.utils.translation import gettext as _

from parties.models import Party, Seat
from parties.services.changes import party_changed
from parties.services.errors import PartyError
from parties.services.round import waiting_round


@transaction.atomic
def scorekeeper_choose(*, party: Party, table_number: int, player_id: int) -> Seat:
    """`player_id` keeps score (and rolls first) at table `table_number` in the round waiting to
    start. One scorekeeper a table; a ghost cannot keep score."""
    round_ = waiting_round(party)
    seats = list(
        Seat.objects.filter(round=round_, table__number=table_number).select_related("player")
    )
    if not seats:
        raise PartyError(_("There is no table %(number)s.") % {"number": table_number})
    chosen = next((seat for seat in seats if seat.player_id == player_id), None)
    if chosen is None:
        raise PartyError(
            _("That player does not sit at table %(number)s this round.")
            % {"number": table_number}
        )
    if chosen.player.is_ghost:
        raise PartyError(_("A ghost cannot keep score; pick a player at the table."))
    Seat.objects.filter(pk__in=[seat.pk for seat in seats]).update(keeps_score=False)
    Seat.objects.filter(pk=chosen.pk).update(keeps_score=True)
    chosen.keeps_score = True
    party_changed(party, "seating")
    return chosen
