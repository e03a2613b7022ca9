"""Writes to the late taps: a roll a phone entered for a round that closed before the roll
reached the server.

The phone may have been offline, or a few seconds behind the dice when the last table finished.
Such a roll is never thrown away and never counted on its own: the tap holds it as a `LateTap`
for the host (late_tap_hold, called by roll_record under the party's lock), and the phone is
told where its roll went. The host applies it to its round (late_tap_apply, a correction) or
dismisses it (late_tap_dismiss).
"""

from dataclasses import dataclass
from itertools import count

from django.db import transaction
from django.utils.translation import gettext as _

from parties import state
from parties.models import Correction, LateTap, Party, Roll, Round, Table
from parties.services.changes import lock_party, party_changed
from parties.services.correction import (
    decide,
    enter_again,
    entry_columns,
    new_correction,
    replay_as,
    save_effects,
    settle,
)
from parties.services.errors import PartyError
from parties.translation import (
    deferred,
    late_tap_description,
    listed,
    name_said,
    roll_said,
    rule_error_text,
)
from scoring import InvalidRoll, NotAllowed, RollFact
from scoring.quick import quick_dice
from scoring.roll import check_dice

Kind = Correction.Kind


@dataclass(frozen=True)
class Held:
    late_tap: LateTap
    message: str
    new: bool  # False for a resent tap, held already


def late_tap_hold(*, party_id, round_id, table_number, tap_id, roll, seen, bell_seen, entered_by):
    """Keep a tap for round `round_id` if that round of this party has closed: the `Held` tap
    (a resent one is held once), or None when that round is not a closed round of the party.
    `roll` is {"dice": [...], "outcome", "face", "called"} as the phone sent it. A roll that
    could never be played there (wrong dice, a quick button this game has not) is refused with
    PartyError, as it would be on time."""
    round_ = (
        Round.objects.select_related("bunco_set")
        .filter(pk=round_id, party_id=party_id, status=Round.Status.CLOSED)
        .first()
    )
    if round_ is None:
        return None
    earlier = LateTap.objects.select_related("table").filter(tap_id=tap_id).first()
    if earlier is not None:
        if earlier.party_id != party_id or earlier.table.number != table_number:
            raise PartyError(_("That tap id belongs to another table."))
        return Held(earlier, _message(round_, late_tap_description(earlier)), new=False)
    table = Table.objects.filter(party_id=party_id, number=table_number).first()
    if table is None:
        raise PartyError(_("There is no table %(number)s.") % {"number": table_number})
    rules = Party.objects.only("options").get(pk=party_id).rules
    live = state.load(round_, rules)
    if not 1 <= table_number <= len(live.seating):
        raise PartyError(
            _("Table %(number)s did not play in that round.") % {"number": table_number}
        )
    played = live.table(table_number)
    if bell_seen is False and played.at_bell is not None:
        played = played.at_bell  # the table as its phone last knew it
    entry = _check(roll, round_.target, played)
    # A roll entered on a table another phone had changed since may be that phone's roll again
    # (two phones, one throw): the host is told, and decides.
    since = live.extras[table_number - 1].version != seen
    late = LateTap.objects.create(
        party_id=party_id,
        round=round_,
        table=table,
        tap_id=tap_id,
        fields={**roll, "seen": seen, "bell_seen": bell_seen},
        description_messages=_description(entry, played.roller, live.names, bell_seen, since),
        entered_by=entered_by,
    )
    return Held(late, _message(round_, late_tap_description(late)), new=True)


def _description(entry, roller, names, bell_seen, since):
    """What a late roll was, for the host, kept (parties.translation.deferred): the roll, for whom
    when the table had someone to throw it, made before the bell, and made on a table another
    phone had changed since."""
    if roller is not None:
        # Translators: a roll as entered ("2 points", "3 3 1") and who it was entered for.
        entry = deferred.gettext(
            "%(roll)s for %(name)s", roll=entry, name=name_said(*names[roller])
        )
    said = [entry]
    if bell_seen is False:
        said.append(deferred.gettext("made before the bell"))
    if since:
        said.append(deferred.gettext("another phone had entered rolls at that table since"))
    return said


def _check(roll, target, table):
    """The roll, kept (parties.translation.roll_said), if it is a roll this game can have; else
    PartyError. A table that is done takes no more rolls: whether this one fits there is the
    host's call, later."""
    try:
        if roll["outcome"]:
            quick_dice(roll["outcome"], target, table.rules, roll["face"])
            return roll_said(roll["outcome"], roll["face"])
        dice = tuple(roll["dice"])
        if table.done:
            check_dice(dice, table.rules.dice)
        else:
            table.check(RollFact(dice, True))
        return roll_said(dice=dice)
    except (InvalidRoll, NotAllowed) as error:
        raise PartyError(rule_error_text(error)) from error


def _message(round_, description):
    """What the phone shows, in its language; `description` is the late tap's, worded."""
    return _(
        "Set %(set)s, round %(round)s had closed before this roll arrived, so it went to the "
        "host, who can add it to that round: %(description)s."
    ) % {"set": round_.bunco_set.number, "round": round_.number, "description": description}


# What a late tap keeps of the phone's tap (late_tap_hold): each key with the types it may hold.
FIELD_TYPES = {
    "dice": (list, type(None)),
    "outcome": (str,),
    "face": (int, type(None)),
    "called": (bool, type(None)),
    "seen": (int,),
    "bell_seen": (bool, type(None)),
}


def late_tap_fields_problem(fields, rules, *, pending):
    """What is wrong with a late tap's kept `fields` (a party file's, say), or None. A pending
    one must also be a roll this game can have, for the host to apply it."""
    if not isinstance(fields, dict) or not set(fields) <= set(FIELD_TYPES):
        return _("its roll is not one a phone sends.")
    for key, value in fields.items():
        if not isinstance(value, FIELD_TYPES[key]) or (
            isinstance(value, bool) and bool not in FIELD_TYPES[key]
        ):
            # Translators: "key" is the name of a field of the file, e.g. "face".
            return _("its roll's %(key)s is not one a phone sends.") % {"key": key}
    dice = fields.get("dice") or []
    if len(dice) > 6 or not all(type(d) is int for d in dice):
        return _("its roll's dice are not dice.")
    if pending:
        try:
            _kept_roll(fields, rules)
        except PartyError as error:
            return str(error)
    return None


def _kept_roll(fields, rules):
    return entry_columns(
        rules,
        dice=fields.get("dice") or None,
        outcome=fields.get("outcome") or "",
        face=fields.get("face"),
    )


@transaction.atomic
def late_tap_apply(*, party: Party, late_tap_id: int, by: str) -> Correction:
    """The host adds a late tap to its round, at its table: before the bell if its phone had
    not heard the bell. Refused by the rules, it stays pending and nothing changes."""
    lock_party(party)
    late = _pending(party, late_tap_id)
    round_ = Round.objects.select_related("bunco_set").get(pk=late.round_id)
    rules = party.rules
    fields = late.fields
    problem = late_tap_fields_problem(fields, rules, pending=True)
    if problem:
        raise PartyError(_("This late roll cannot be added: %(problem)s") % {"problem": problem})
    columns = _kept_roll(fields, rules)
    before_bell = fields.get("bell_seen") is False
    called = True if fields.get("called") is None else bool(fields["called"])
    before = state.load(round_, rules)
    number = late.table.number
    if not 1 <= number <= len(before.seating):
        raise PartyError(_("Table %(number)s did not play in that round.") % {"number": number})
    # Translators: what was asked, completing "Cannot %(doing)s: a roll of ..." (an infinitive).
    doing = _("add that roll to table %(number)s") % {"number": number}
    # Decided first, on the round's rolls as they would be.
    placed = _placed(round_, rules, before, number, columns, called, before_bell, doing)
    rollers = {}  # who throws each roll with the late one in: the copies' players
    decide(party, round_, placed.rows, doing, rollers)

    correction = new_correction(party, round_, Kind.LATE_TAP, by, "")
    played_on, kept, dropped = placed.played_on, placed.kept, placed.dropped
    Roll.objects.filter(id__in=[r.id for r in played_on]).update(voided_by=correction)
    Roll.objects.create(
        round=round_,
        table_id=late.table_id,
        roller_id=placed.roller,
        phase=placed.phase,
        called=called,
        before_bell=before_bell,
        tap_id=late.tap_id,  # a resent late tap is then the roll already saved
        entered_by=late.entered_by,
        **columns,
    )
    copies = placed.rows[len(placed.rows) - len(kept):]
    for old, copy in zip(kept, copies, strict=True):
        enter_again(old, old.entered_by, {"roller_id": int(rollers[copy.id])})
    settle(party, round_, before, correction, [number])
    save_effects(correction, [_late_roll_said(late), *correction.effect_messages])
    if dropped:
        save_effects(correction, [*correction.effect_messages, deferred.ngettext(
            # Translators: "rolls" are the rolls as entered ("2 points, 3 3 1").
            "%(count)s roll entered at table %(table)s after the bell (%(rolls)s) no longer "
            "counts: with this roll the table was done without it",
            "%(count)s rolls entered at table %(table)s after the bell (%(rolls)s) no longer "
            "count: with this roll the table was done without them",
            len(dropped), table=number, rolls=listed(dropped, ", "),
        )])
    LateTap.objects.filter(pk=late.pk).update(
        status=LateTap.Status.APPLIED, resolved_by=correction
    )
    return correction


@dataclass(frozen=True)
class _Placed:
    """Where a late roll goes in its round: the round's rows with it in (and the rolls after the
    bell that the rules still take, entered again behind it), who rolled it, in which phase,
    and the table's rolls after the bell: taken back (`played_on`), entered again (`kept`) or
    no longer counted (`dropped`, in words)."""

    rows: list
    roller: int
    phase: str
    played_on: list
    kept: list
    dropped: list


def _placed(round_, rules, before, number, columns, called, before_bell, doing):
    """The late roll placed in its round as its phone knew the table (`before`: the round now):
    before the table's rolls after the bell if its phone had not heard the bell."""
    saved = state.roll_rows(round_)
    rows = saved
    table = before.table(number)
    played_on = []  # the table's rolls after the bell, played without this one
    if before_bell and table.unbelled is None and before.extras[number - 1].after_bell:
        # Taken back, so the late roll goes in before them; entered again below as far as
        # the rules still take them.
        played_on = list(
            Roll.objects.filter(id__in=before.extras[number - 1].after_bell).order_by("id")
        )
        taken_back = {old.id for old in played_on}
        rows = [r for r in saved if r.id not in taken_back]
        table = replay_as(round_, rules, rows, doing).table(number)
    if before_bell and table.unbelled is not None:
        table = table.unbelled  # the table as the phone last knew it
    seated = before.seating[number - 1]
    roller = int(table.roller) if table.roller is not None else int(seated[0])
    phase = Roll.Phase.ROLLOFF if table.rolloff_needed else Roll.Phase.PLAY
    # New rolls come after every roll saved (and so after the bell), as their new ids will.
    new_ids = count(max((r.id for r in saved), default=0) + 1)
    rows = [*rows, state.RollRow(next(new_ids), number, **columns, called=called,
                                 before_bell=before_bell, voided_by=None)]
    kept, dropped = _still_played(round_, rules, rows, number, played_on, doing)
    by_id = {r.id: r for r in saved}
    rows += [by_id[old.id]._replace(id=next(new_ids), place=None) for old in kept]
    return _Placed(rows, roller, phase, played_on, kept, dropped)


def _still_played(round_, rules, rows, number, played_on, doing):
    """Which of the table's after-the-bell rolls the rules still take behind the late roll
    (with it in, the table may have been done sooner, and a roll-off may no longer have been
    needed), decided on `rows` (the round with the late roll in): those, entered again, and
    the rest, which stay voided, kept (parties.translation.roll_said)."""
    if not played_on:
        return [], []
    table = replay_as(round_, rules, rows, doing).table(number)
    kept, dropped = [], []
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
                kept.append(old)
                continue
        dropped.append(roll_said(old.outcome, old.face, old.dice))
    return kept, dropped


@transaction.atomic
def late_tap_dismiss(*, party: Party, late_tap_id: int, by: str) -> Correction:
    """The host decides a late tap does not count: it is kept, marked dismissed, with who and
    when (a Correction that changed nothing)."""
    lock_party(party)
    late = _pending(party, late_tap_id)
    correction = new_correction(party, late.round, Kind.LATE_TAP, by, "")
    save_effects(correction, [_late_roll_said(late), deferred.gettext("nothing changed")])
    LateTap.objects.filter(pk=late.pk).update(
        status=LateTap.Status.DISMISSED, resolved_by=correction
    )
    party_changed(party, "corrected")
    return correction


def _late_roll_said(late):
    """The late roll, kept as its correction's first effect: "Late roll at table 2: 2 points for
    Ann; made before the bell" (a late roll held before rows kept their words: its English)."""
    if late.description_messages:
        roll = listed(late.description_messages, "; ")
    else:
        roll = late.description
    return deferred.gettext(
        "Late roll at table %(table)s: %(roll)s", table=late.table.number, roll=roll
    )


def _pending(party, late_tap_id):
    late = (
        LateTap.objects.select_related("table", "round")
        .filter(pk=late_tap_id, party=party)
        .first()
    )
    if late is None:
        raise PartyError(_("There is no such late roll at this party."))
    if late.status == LateTap.Status.APPLIED:
        raise PartyError(_("That late roll was applied already."))
    if late.status != LateTap.Status.PENDING:
        raise PartyError(_("That late roll was dismissed already."))
    return late
