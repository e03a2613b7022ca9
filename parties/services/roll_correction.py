"""The host's void and correction of any roll of any round, and what either would change,
shown before the host confirms (correction_preview).

A corrected roll is entered again in the place of the roll it corrects (`Roll.place`), for the
player it was entered for; the rolls after it stay as they are. Each roll is replayed as thrown
by the player it was entered for, so a roll entered for Hope stays Hope's even where the
correction would have passed the dice differently, unless the host chooses TURNS: then the
table's later rolls go to whoever the rules pass the dice to, and each roll that changes hands
is voided and entered again, in its place, for its new thrower (docs/rules.md section 7).
"""

import copy

from django.db import transaction
from django.utils.translation import gettext as _

from parties import state
from parties.models import Correction, Roll
from parties.services.changes import lock_party
from parties.services.correction import (
    columns_dice,
    columns_of,
    decide,
    enter_again,
    entry_columns,
    new_correction,
    save_effects,
    settle,
)
from parties.services.errors import PartyError
from parties.translation import correction_effects, deferred, name_said, roll_said

ENTERED = "entered"  # each later roll stays with the player it was entered for (the default)
TURNS = "turns"  # the table's later rolls go to whoever the rules pass the dice to
LATER_CHOICES = (ENTERED, TURNS)
Kind = Correction.Kind


@transaction.atomic
def roll_void(
    *, party, roll_id: int, by: str, note: str = "", later: str = ENTERED
) -> Correction:
    """The host voids any live roll of any round; the round recomputes from the other rolls.
    `later`: who keeps the table's rolls after it (ENTERED or TURNS)."""
    lock_party(party)
    roll = _live_roll(party, roll_id)
    round_ = roll.round
    before = state.load(round_, party.rules)  # read before the change (and kept: it is committed)
    saved = state.roll_rows(round_)
    rows = _handed([r for r in saved if r.id != roll.id], roll, _key(saved, roll), later)
    rollers = {}
    # Translators: what was asked, completing "Cannot %(doing)s: a roll of ..." (an infinitive).
    after = decide(party, round_, rows, _("void that roll"), rollers)
    correction = new_correction(party, round_, Kind.VOID, by, note)  # the host's words, if any
    Roll.objects.filter(pk=roll.id).update(voided_by=correction)
    moved = _rehand(correction, saved, rollers, after)
    settle(party, round_, before, correction, _tables(before, after, roll))
    _add_effects(correction, moved)
    return correction


@transaction.atomic
def roll_correct(
    *,
    party,
    roll_id: int,
    by: str,
    dice=None,
    outcome: str = "",
    face: int | None = None,
    called: bool = True,
    note: str = "",
    later: str = ENTERED,
) -> Correction:
    """The host re-enters a roll of any round: its dice, or a quick button's outcome (and the
    mini Bunco's `face`). The round recomputes as if it had been entered so, in its place, for
    the same player. `later`: who keeps the table's rolls after it (ENTERED or TURNS)."""
    lock_party(party)
    roll = _live_roll(party, roll_id)
    round_ = roll.round
    rules = party.rules
    columns = entry_columns(rules, dice=dice, outcome=outcome, face=face)
    if {**columns_of(roll), "called": roll.called} == {**columns, "called": called}:
        raise PartyError(_("That is what was entered already; nothing was changed."))
    # What changed, kept to be worded for each reader: "Table 2: 1 5 6 → three 1s".
    changed = deferred.gettext(
        "Table %(table)s: %(was)s → %(now)s", table=roll.table.number,
        was=roll_said(roll.outcome, roll.face, roll.dice),
        now=roll_said(outcome, face, columns_dice(columns)),
    )
    before = state.load(round_, rules)
    saved = state.roll_rows(round_)
    key = _key(saved, roll)
    rows = [r._replace(**columns, called=called) if r.id == roll.id else r for r in saved]
    rollers = {}
    # Translators: what was asked, completing "Cannot %(doing)s: a roll of ..." (an infinitive).
    doing = _("make that correction")
    after = decide(party, round_, _handed(rows, roll, key, later), doing, rollers)
    correction = new_correction(party, round_, Kind.CORRECT, by, note)  # the host's words
    Roll.objects.filter(pk=roll.id).update(voided_by=correction)
    fresh = {**columns, "called": called, "roller_id": int(rollers[roll.id])}
    enter_again(roll, by, fresh, place=key)
    moved = _rehand(correction, [r for r in saved if r.id != roll.id], rollers, after)
    settle(party, round_, before, correction, _tables(before, after, roll))
    save_effects(correction, [changed, *correction.effect_messages])
    _add_effects(correction, moved)
    return correction


class _TakenBack(Exception):
    def __init__(self, effects):
        self.effects = effects


def correction_preview(write, **kwargs) -> list[str]:
    """What `write` (roll_void or roll_correct, with its arguments) would change, in words in
    the reader's language, with nothing saved and nothing announced: the correction made and
    rolled back, so the preview is the correction's own effects. Refused as the write would be
    (PartyError)."""
    kwargs = {**kwargs, "party": copy.copy(kwargs["party"])}  # its seq moves on, then back
    try:
        with transaction.atomic():
            correction = write(**kwargs)
            raise _TakenBack(correction_effects(correction))
    except _TakenBack as taken:
        return taken.effects


def _live_roll(party, roll_id):
    roll = (
        Roll.objects.select_related("round__bunco_set", "table")
        .filter(pk=roll_id, round__party=party, voided_by__isnull=True)
        .first()
    )
    if roll is None:
        raise PartyError(_("That roll is not a live roll of this party (voided already?)."))
    return roll


def _key(saved, roll):
    return next(r.key for r in saved if r.id == roll.id)


def _handed(rows, roll, key, later):
    """`rows` with the table's live rolls after `key` thrown as entered (ENTERED) or by whoever
    the rules pass the dice to (TURNS: their named player left out)."""
    if later not in LATER_CHOICES:
        raise PartyError(
            _("Choose who keeps the rolls after it: as entered, or as the dice pass.")
        )
    if later == ENTERED:
        return rows
    number = roll.table.number
    return [
        r._replace(roller_id=None)
        if r.table_number == number and r.key > key and r.voided_by is None
        else r
        for r in rows
    ]


def _rehand(correction, saved, rollers, after):
    """Each live roll whose thrower the replay changed (`rollers`, from decide, against the
    player it was saved for) voided and entered again in its place for its new thrower; what
    moved, kept (parties.translation.deferred)."""
    moved = [r for r in saved if r.voided_by is None and r.id in rollers
             and rollers[r.id] != str(r.roller_id)]
    words = []
    for row in moved:
        old = Roll.objects.get(pk=row.id)
        Roll.objects.filter(pk=row.id).update(voided_by=correction)
        enter_again(old, old.entered_by, {"roller_id": int(rollers[row.id])}, place=row.key)
        words.append(deferred.gettext(
            # Translators: "roll" is a roll as entered ("1 5 6", "2 points"); the others are
            # the players who threw it before and after the correction.
            "Table %(table)s: %(was)s's roll (%(roll)s) is now %(now)s's",
            table=row.table_number,
            was=name_said(*after.names[str(row.roller_id)]),
            roll=roll_said(old.outcome, old.face, old.dice),
            now=name_said(*after.names[rollers[row.id]]),
        ))
    return words


def _tables(before, after, roll):
    """The tables whose pages change: the roll's, or every table where the bell moved."""
    if before.state.bell != after.state.bell:
        return list(range(1, len(after.seating) + 1))
    return [roll.table.number]


def _add_effects(correction, words):
    if words:
        save_effects(correction, [*correction.effect_messages, *words])
