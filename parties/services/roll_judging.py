"""Judging one roll entered at a table, as the table stands (no writes): the dice it is (a quick
button's outcome turned into dice that score the same), who rolled it, and whether to ask "did
they call it?" first. The tap (parties.services.roll.roll_record) saves what this decides."""

from dataclasses import dataclass

from django.utils.translation import gettext as _

from parties.models import Roll
from parties.services.errors import PartyError, StaleTap
from parties.translation import rule_error_text
from scoring import InvalidRoll, NotAllowed, RollFact
from scoring.quick import call_needed, quick_dice


@dataclass(frozen=True)
class JudgedRoll:
    """A roll the rules take at a table as it stands, or the question to ask before taking it."""

    fact: RollFact  # as scoring plays it (a quick button's outcome as dice that score the same)
    roller_id: int
    phase: str
    version: int  # the table's version the roll was judged on
    ask: str = ""
    outcome: str = ""  # as entered: a quick button (and its face), or else the dice
    face: int | None = None
    before_bell: bool = False  # played on the table as it stood at the bell
    entry: tuple = ()  # a quick button's roll as entered: (outcome, face)

    def columns(self):
        if self.outcome:
            faces = [None] * 4
        else:
            faces = list(self.fact.dice) + [None] * (4 - len(self.fact.dice))
        return {
            "roller_id": self.roller_id,
            "phase": self.phase,
            "called": self.fact.called,
            "die1": faces[0],
            "die2": faces[1],
            "die3": faces[2],
            "die4": faces[3],
            "outcome": self.outcome,
            "face": self.face if self.outcome else None,
            "before_bell": self.before_bell,
        }


def judge_roll(
    live, target, table_number, *, seen, dice, outcome, face, called, before_bell=False
) -> JudgedRoll:
    """What one roll entered at table `table_number` would be (no writes): its dice (a quick
    button's outcome turned into dice), who rolled it, and whether to ask "did they call it?"
    first. `before_bell`: the phone had not heard the bell, so the roll is judged on the table
    as it stood at the bell, while no roll has been made there since. Raises PartyError (or
    StaleTap) with the message for the phone when it is refused."""
    if not 1 <= table_number <= len(live.seating):
        raise PartyError(_("There is no table %(number)s.") % {"number": table_number})
    table = live.table(table_number)
    version = live.extras[table_number - 1].version
    before_bell = before_bell and table.unbelled is not None
    if before_bell:
        table = table.unbelled
    if table.done:
        raise PartyError(_("This table's round is over; no more rolls."))
    if seen != version:
        raise StaleTap(version)
    try:
        if outcome:
            dice = quick_dice(outcome, target, table.rules, face)
        fact = RollFact(tuple(dice or ()), True if called is None else called)
        table.check(fact)
        ask = (call_needed(table, fact.dice) or "") if called is None else ""
    except (InvalidRoll, NotAllowed) as error:
        raise PartyError(rule_error_text(error)) from error
    phase = Roll.Phase.ROLLOFF if table.rolloff_needed else Roll.Phase.PLAY
    entry = (outcome, face) if outcome else ()
    return JudgedRoll(
        fact, int(table.roller), phase, version, ask, outcome, face, before_bell, entry
    )
