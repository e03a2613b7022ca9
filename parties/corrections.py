"""Taking rolls back and putting them right: the scorekeeper's undo, the host's void and
correction of any roll, and the late taps the host applies or dismisses.

A roll is a fact that is voided, never edited; every change here is a Correction that says who
made it, when, and what it changed. Each write locks the party's row first (as play.py's do),
so it is serialised with the taps, the bell and the round's close.
"""

from django.db import transaction
from django.utils import timezone

from parties import announce, state
from parties.models import Correction, Party, Roll, Round
from parties.play import StaleTap, _bump_party, _bump_round, _playing_round
from parties.round_close import close_round
from parties.services import PartyError, lock_party


@transaction.atomic
def roll_undo(*, party: Party, table_number: int, seen: int, by: str) -> int:
    """Void the table's last roll this round (the scorekeeper's undo). Returns the new version."""
    round_ = _playing_round(lock_party(party))
    live = state.load(round_, party.rules)
    if not 1 <= table_number <= len(live.seating):
        raise PartyError(f"There is no table {table_number}.")
    extras = live.extras[table_number - 1]
    if seen != extras.version:
        raise StaleTap(extras.version)
    if not extras.live_rolls:
        raise PartyError("There is no roll to undo at this table this round.")
    return _void(party, round_, extras.live_rolls[-1], by, "undo")


@transaction.atomic
def roll_void(*, party: Party, roll_id: int, by: str, note: str = "") -> int:
    """The host voids any roll of the round in play; the numbers recompute from the facts."""
    round_ = _playing_round(lock_party(party))
    roll = Roll.objects.filter(pk=roll_id, round=round_, voided_by__isnull=True).first()
    if roll is None:
        raise PartyError("That roll is not a live roll of the round in play.")
    return _void(party, round_, roll.id, by, note or "voided by the host")


def _void(party, round_, roll_id, by, note):
    correction = Correction.objects.create(party=party, made_by=by, note=note)
    roll = Roll.objects.select_related("table").get(pk=roll_id)
    Roll.objects.filter(pk=roll_id).update(voided_by=correction)
    _bump_round(round_)
    live = state.load(round_, party.rules, written=True)  # a void changes history: replay
    if not live.state.bell and round_.bell_at:
        Round.objects.filter(pk=round_.pk).update(bell_at=None)
    _bump_party(party)  # the bell, or a table's result, may have been undone
    announce.on_commit_tables(party, live, [roll.table.number])
    announce.on_commit_round(party, "corrected")
    if live.state.over:
        close_round(party, round_, live, party.rules, timezone.now())
    return live.extras[roll.table.number - 1].version
