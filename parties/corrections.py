"""Taking rolls back and putting them right: the scorekeeper's undo (until the next round
starts), the host's void and correction of any roll of any round, and the late taps the host
applies or dismisses.

A roll is a fact that is voided, never edited; every change here is a Correction that says who
made it, when, and what it changed (`effects`, words for people). Each write locks the party's
row first, as play.py's do, so it is serialised with the taps, the bell and the round's close,
and it either changes everything it says or, refused, nothing.

The replay reads a round's rolls in id order, so a corrected roll cannot be slotted back in
where it was: the correction voids it and every live roll of the round after it, and enters
the corrected roll and copies of the later ones again, in the same order (the bell stays
between the same rolls).
"""

import uuid

from django.db import transaction
from django.utils import timezone

from parties import announce, state
from parties.models import Correction, LateTap, Party, Roll, Round, RoundBell
from parties.party_seq import party_changed, seq_bump
from parties.play import StaleTap, _bump_round, _current_round, _playing_round
from parties.round_close import (
    close_round,
    recompute_closed,
    reopen_refusal,
    reopen_round,
    starting_holder,
)
from parties.services import PartyError, lock_party
from scoring import InvalidRoll, NotAllowed
from scoring.quick import entry_words, quick_outcomes

Kind = Correction.Kind


@transaction.atomic
def roll_undo(
    *, party: Party, table_number: int, seen: int, by: str, round_id: int | None = None
) -> int:
    """Void the table's last live roll (the scorekeeper's undo), in the round in play or, while
    the next round waits, in the round that just closed (which reopens). `round_id`, when the
    phone sends it, is the round its page showed. Returns the table's new version."""
    lock_party(party)
    round_ = _current_round(party) or undoable_closed_round(party)
    if round_ is None:
        _playing_round(party)  # says why nothing can be undone now
    if round_.status == Round.Status.PLAYING:
        round_ = _playing_round(party)  # paused, or a party the host ended, undoes nothing
    if round_id is not None and round_id != round_.id:
        raise PartyError("That round has moved on; check the table and try again.")
    rules = party.rules
    before = state.load(round_, rules)
    if not 1 <= table_number <= len(before.seating):
        raise PartyError(f"There is no table {table_number}.")
    extras = before.extras[table_number - 1]
    if seen != extras.version:
        raise StaleTap(extras.version)
    if not extras.live_rolls:
        raise PartyError("There is no roll to undo at this table this round.")
    correction = _correction(party, round_, Kind.UNDO, by, "undo")
    Roll.objects.filter(pk=extras.live_rolls[-1]).update(voided_by=correction)
    if round_.status == Round.Status.PLAYING:
        live = _settle_playing(party, round_, correction, [table_number])
    else:
        _bump_round(round_)
        live = _replay(round_, rules, "undo that roll")
        reopen_round(party, round_, live, starting_holder(round_, before.state.fuzzy_die))
        _finish(correction, [f"{_name(round_)} is in play again (table {table_number})"])
        announce.on_commit_tables(party, live, list(range(1, len(live.seating) + 1)))
        if live.state.over:
            close_round(party, round_, live, rules, timezone.now())
    return live.extras[table_number - 1].version


def undoable_closed_round(party):
    """The closed round a scorekeeper's undo still reaches: the last one closed, while the round
    after it waits (or it was the night's last, or a break follows it). None otherwise."""
    last = (
        Round.objects.select_related("bunco_set")
        .filter(party=party, status=Round.Status.CLOSED)
        .order_by("-bunco_set__number", "-number")
        .first()
    )
    if last is None or reopen_refusal(party, last):
        return None
    return last


@transaction.atomic
def roll_void(*, party: Party, roll_id: int, by: str, note: str = "") -> Correction:
    """The host voids any live roll of any round; the round recomputes from the other rolls."""
    lock_party(party)
    roll = _live_roll(party, roll_id)
    round_ = roll.round
    before = state.load(round_, party.rules)  # read before the change (and kept: it is committed)
    correction = _correction(party, round_, Kind.VOID, by, note or "voided by the host")
    Roll.objects.filter(pk=roll.id).update(voided_by=correction)
    _settle(party, round_, before, correction, [roll.table.number], "void that roll")
    return correction


@transaction.atomic
def roll_correct(
    *,
    party: Party,
    roll_id: int,
    by: str,
    dice=None,
    outcome: str = "",
    face: int | None = None,
    called: bool = True,
    note: str = "",
) -> Correction:
    """The host re-enters a roll of any round: its dice, or a quick button's outcome (and the
    mini Bunco's `face`). The round recomputes as if it had been entered so."""
    lock_party(party)
    roll = _live_roll(party, roll_id)
    round_ = roll.round
    rules = party.rules
    columns = entry_columns(rules, dice=dice, outcome=outcome, face=face)
    if {**_columns_of(roll), "called": roll.called} == {**columns, "called": called}:
        raise PartyError("That is what was entered already; nothing was changed.")
    was = entry_words(roll.outcome, roll.face, roll.dice)
    now = entry_words(outcome, face, columns_dice(columns))
    before = state.load(round_, rules)
    correction = _correction(
        party, round_, Kind.CORRECT, by, note or f"table {roll.table.number}: {was} → {now}"
    )
    later = list(
        Roll.objects.filter(round=round_, voided_by__isnull=True, id__gte=roll.id).order_by("id")
    )
    Roll.objects.filter(id__in=[r.id for r in later]).update(voided_by=correction)
    copies = {}
    for old in later:
        fresh = {**columns, "called": called} if old.id == roll.id else {}
        copies[old.id] = _enter_again(old, by if fresh else old.entered_by, fresh)
    bell = RoundBell.objects.filter(round=round_, after_roll_id__gte=roll.id).first()
    if bell is not None:  # the bell stays after the same roll
        last_before = max(old_id for old_id in copies if old_id <= bell.after_roll_id)
        RoundBell.objects.filter(pk=bell.pk).update(after_roll_id=copies[last_before])
    tables = sorted({r.table.number for r in later})
    _settle(party, round_, before, correction, tables, "make that correction")
    return correction


@transaction.atomic
def late_tap_apply(*, party: Party, late_tap_id: int, by: str) -> Correction:
    """The host adds a late tap to its round, at its table: before the bell if its phone had
    not heard the bell. Refused by the rules, it stays pending and nothing changes."""
    lock_party(party)
    late = _pending(party, late_tap_id)
    round_ = Round.objects.select_related("bunco_set").get(pk=late.round_id)
    rules = party.rules
    fields = late.fields
    columns = entry_columns(
        rules,
        dice=fields.get("dice") or None,
        outcome=fields.get("outcome") or "",
        face=fields.get("face"),
    )
    before_bell = fields.get("bell_seen") is False
    before = state.load(round_, rules)
    number = late.table.number
    if not 1 <= number <= len(before.seating):
        raise PartyError(f"Table {number} did not play in that round.")
    correction = _correction(party, round_, Kind.LATE_TAP, by, f"table {number}: "
                             + late.description)
    table = before.table(number)
    played_on = []  # the table's rolls after the bell, played without this one
    if before_bell and table.unbelled is None and before.extras[number - 1].after_bell:
        # Taken back, so the late roll goes in before them; entered again below as far as
        # the rules still take them.
        played_on = list(
            Roll.objects.filter(id__in=before.extras[number - 1].after_bell).order_by("id")
        )
        Roll.objects.filter(id__in=[r.id for r in played_on]).update(voided_by=correction)
        _bump_round(round_)
        table = _replay(round_, rules, f"add that roll to table {number}").table(number)
    if before_bell and table.unbelled is not None:
        table = table.unbelled  # the table as the phone last knew it
    seated = before.seating[number - 1]
    roller = int(table.roller) if table.roller is not None else int(seated[0])
    Roll.objects.create(
        round=round_,
        table_id=late.table_id,
        roller_id=roller,
        phase=Roll.Phase.ROLLOFF if table.rolloff_needed else Roll.Phase.PLAY,
        called=True if fields.get("called") is None else bool(fields["called"]),
        before_bell=before_bell,
        tap_id=late.tap_id,  # a resent late tap is then the roll already saved
        entered_by=late.entered_by,
        **columns,
    )
    dropped = _play_on(party, round_, number, played_on) if played_on else []
    _settle(party, round_, before, correction, [number], f"add that roll to table {number}")
    if dropped:
        _finish(correction, [
            *correction.effects.splitlines(),
            f"{len(dropped)} roll(s) entered at table {number} after the bell "
            f"({', '.join(dropped)}) no longer count: with this roll the table was done "
            "without them",
        ])
    LateTap.objects.filter(pk=late.pk).update(
        status=LateTap.Status.APPLIED, resolved_by=correction
    )
    return correction


def _play_on(party, round_, number, played_on):
    """Enter the table's after-the-bell rolls again behind a late roll, for as long as the rules
    still take them (with the late roll in, the table may have been done sooner, and a roll-off
    may no longer have been needed); the rest stay voided. Returns those, in words."""
    rules = party.rules
    _bump_round(round_)
    table = _replay(round_, rules, f"add that roll to table {number}").table(number)
    dropped = []
    for old in played_on:
        fact, _entry = state.roll_fact(
            old.dice, old.outcome, old.face, old.called, round_.target, rules
        )
        if not dropped:
            try:
                table = table.apply(fact)
            except (InvalidRoll, NotAllowed):
                pass
            else:
                _enter_again(old, old.entered_by, {})
                continue
        dropped.append(entry_words(old.outcome, old.face, old.dice))
    return dropped


@transaction.atomic
def late_tap_dismiss(*, party: Party, late_tap_id: int, by: str) -> Correction:
    """The host decides a late tap does not count: it is kept, marked dismissed, with who and
    when (a Correction that changed nothing)."""
    lock_party(party)
    late = _pending(party, late_tap_id)
    correction = _correction(
        party, late.round, Kind.LATE_TAP, by, f"dismissed late roll at table {late.table.number}: "
        + late.description
    )
    _finish(correction, ["nothing changed"])
    LateTap.objects.filter(pk=late.pk).update(
        status=LateTap.Status.DISMISSED, resolved_by=correction
    )
    party_changed(party, "corrected")
    return correction


# -- the shared steps --------------------------------------------------------------------------


def _settle(party, round_, before, correction, tables, doing):
    """After the facts of `round_` changed: replay it and bring everything derived from it in
    line (the live tables, or a closed round's sheets, rotation and fuzzy die). `before` is its
    replay from before the change, read first. Refused (with
    PartyError, so the transaction rolls back) when a roll can no longer be played, or a closed
    round would be left unfinished after its next round started."""
    if round_.status == Round.Status.PLAYING:
        if party.status == Party.Status.FINISHED:
            raise PartyError("The host ended the party; the round in play no longer counts.")
        return _settle_playing(party, round_, correction, tables, doing)
    rules = party.rules
    taker_before = before.state.fuzzy_die
    _bump_round(round_)
    live = _replay(round_, rules, doing)
    if live.state.over:
        _finish(correction, recompute_closed(party, round_, live, rules, taker_before))
        return live
    unfinished = ", ".join(str(n) for n, t in enumerate(live.state.tables, 1) if not t.done)
    refusal = reopen_refusal(party, round_)
    if refusal:
        raise PartyError(
            f"That would leave table {unfinished} of {_name(round_).lower()} unfinished, and "
            f"{refusal}; nothing was changed."
        )
    reopen_round(party, round_, live, starting_holder(round_, taker_before))
    _finish(correction, [f"{_name(round_)} is in play again: table {unfinished} plays on"])
    announce.on_commit_tables(party, live, list(range(1, len(live.seating) + 1)))
    return live


def _settle_playing(party, round_, correction, tables, doing="undo that roll"):
    _bump_round(round_)
    live = _replay(round_, party.rules, doing)  # a void changes history: replay
    if not live.state.bell and round_.bell_at:
        Round.objects.filter(pk=round_.pk).update(bell_at=None)
    seq_bump(party)  # the bell, or a table's result, may have been undone
    _finish(
        correction,
        [f"{_name(round_)}, table {n}: {' – '.join(map(str, live.table(n).points))}"
         for n in tables],
    )
    announce.on_commit_tables(party, live, tables)
    announce.on_commit_round(party, "corrected")
    if live.state.over:
        close_round(party, round_, live, party.rules, timezone.now())
    return live


def _replay(round_, rules, doing):
    try:
        return state.load(round_, rules, written=True)
    except (InvalidRoll, NotAllowed) as error:
        raise PartyError(
            f"Cannot {doing}: a roll of {_name(round_).lower()} could not be played after it "
            f"({error}). Nothing was changed."
        ) from error


def _correction(party, round_, kind, by, note):
    return Correction.objects.create(
        party=party, round=round_, kind=kind, made_by=by, note=note[:200]
    )


def _finish(correction, effects):
    correction.effects = "\n".join(effects)
    Correction.objects.filter(pk=correction.pk).update(effects=correction.effects)


def _name(round_):
    return f"Round {round_.number}" + (
        f" of set {round_.bunco_set.number}" if round_.bunco_set.number > 1 else ""
    )


def _live_roll(party, roll_id):
    roll = (
        Roll.objects.select_related("round__bunco_set", "table")
        .filter(pk=roll_id, round__party=party, voided_by__isnull=True)
        .first()
    )
    if roll is None:
        raise PartyError("That roll is not a live roll of this party (voided already?).")
    return roll


def _pending(party, late_tap_id):
    late = (
        LateTap.objects.select_related("table", "round")
        .filter(pk=late_tap_id, party=party)
        .first()
    )
    if late is None:
        raise PartyError("There is no such late roll at this party.")
    if late.status != LateTap.Status.PENDING:
        raise PartyError(f"That late roll was {late.get_status_display().lower()} already.")
    return late


def _enter_again(old, entered_by, fresh):
    """A live roll entered again, after the correction, with `fresh` columns if given."""
    row = Roll.objects.create(
        round_id=old.round_id,
        table_id=old.table_id,
        roller_id=old.roller_id,
        phase=old.phase,
        before_bell=old.before_bell,
        tap_id=uuid.uuid4(),
        entered_by=entered_by,
        **{**_columns_of(old), "called": old.called, **fresh},
    )
    Roll.objects.filter(pk=row.pk).update(created_at=old.created_at)  # when it was rolled
    return row.id


def _columns_of(roll):
    return {
        "die1": roll.die1,
        "die2": roll.die2,
        "die3": roll.die3,
        "die4": roll.die4,
        "outcome": roll.outcome,
        "face": roll.face,
    }


def columns_dice(columns):
    return tuple(columns[f"die{i}"] for i in range(1, 5) if columns[f"die{i}"] is not None)


def entry_columns(rules, *, dice=None, outcome="", face=None):
    """A roll as the host (or a late tap) gives it, as Roll's columns: the dice, or a quick
    button's outcome and face. PartyError if it is not a roll this game can have."""
    none = {"die1": None, "die2": None, "die3": None, "die4": None, "outcome": "", "face": None}
    if outcome:
        if outcome not in quick_outcomes(rules):
            raise PartyError("That is not one of this game's quick buttons.")
        if face is not None and not 1 <= int(face) <= 6:
            raise PartyError("A mini Bunco's number is 1 to 6.")
        return {**none, "outcome": outcome, "face": int(face) if face is not None else None}
    try:
        faces = [int(d) for d in dice or ()]
    except (TypeError, ValueError):
        raise PartyError("Enter the dice as numbers, e.g. 2 2 6.") from None
    if len(faces) != rules.dice or not all(1 <= d <= 6 for d in faces):
        raise PartyError(f"Enter {rules.dice} dice, each 1 to 6.")
    return {**none, **{f"die{i}": d for i, d in enumerate(faces, start=1)}}
