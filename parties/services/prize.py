"""Writes to the prizes: settling a tied prize by roll-off (each tied player rolls three dice, the
highest total wins, and those still tied roll again: docs/rules.md section 9)."""

import secrets

from django.db import transaction
from django.utils.translation import gettext as _

from parties import selectors
from parties.models import PrizeRollOff
from parties.services.changes import lock_party, party_changed
from parties.services.errors import PartyError
from scoring.table import ROLLOFF_DICE


@transaction.atomic
def prize_rolloff_record(*, party, category: str, totals: dict | None) -> None:
    """Record the tied players' totals for the next circuit, as the host entered them, or
    rolled here (`totals=None`: scoring's roll-off dice, fair, each)."""
    lock_party(party)  # one circuit at a time
    if party.prize_pot.tied == "split":
        raise PartyError(_("At this party a tied prize is shared, not rolled off."))
    _rows, prizes = selectors.party_results(party)
    row = next((p for p in prizes if p.key == category), None)
    if row is None or row.circuit is None:
        raise PartyError(_("That prize is not waiting for a roll-off."))
    tied = {player_id for player_id, _name in row.winners}
    if totals is None:
        dice = secrets.SystemRandom()
        totals = {pid: sum(dice.randint(1, 6) for _die in range(ROLLOFF_DICE)) for pid in tied}
        by_app = True
    else:
        by_app = False
        if set(totals) != tied:
            raise PartyError(_("Enter a total for every tied player."))
        if any(
            type(t) is not int or not ROLLOFF_DICE <= t <= 6 * ROLLOFF_DICE
            for t in totals.values()
        ):
            raise PartyError(_("Three dice add up to 3 to 18."))
    PrizeRollOff.objects.bulk_create(
        PrizeRollOff(party=party, category=category, circuit=row.circuit, player_id=pid,
                     total=total, rolled_by_app=by_app)
        for pid, total in totals.items()
    )
    party_changed(party, "prizes")  # the results and the TV show the circuit's outcome
