"""The dice behind a scorekeeper's quick button ("2 points", "mini Bunco"...), so every roll is
still kept as dice and scored by `score_roll` like any other."""

from __future__ import annotations

from collections.abc import Callable

from scoring.messages import gettext_noop
from scoring.roll import InvalidRoll, check_target, score_roll
from scoring.rules import Rules
from scoring.table import TableRound

Gettext = Callable[[str], str]

QUICK_OUTCOMES = ("miss", "one", "two", "three", "mini", "bunco")


def quick_outcomes(rules: Rules) -> tuple[str, ...]:
    """The quick buttons a table shows: three target dice is a point count only with 4 dice."""
    return tuple(o for o in QUICK_OUTCOMES if o != "three" or rules.dice == 4)


def quick_dice(outcome: str, target: int, rules: Rules, face: int | None = None) -> tuple:
    """Dice that score as `outcome` for `target`; a mini Bunco needs its `face` where the face
    changes the score (the dice added up, or four dice low or high), else any other number."""
    check_target(target)
    if outcome not in quick_outcomes(rules):
        raise InvalidRoll(gettext_noop("“%(outcome)s” is not a quick button here"), outcome=outcome)
    others = [f for f in range(1, 7) if f != target]
    n = rules.dice
    if outcome == "mini":
        if face is None:
            if mini_face_matters(rules):
                raise InvalidRoll(gettext_noop("Which number was the mini Bunco?"))
            face = others[0]
        if face == target or face not in range(1, 7):
            raise InvalidRoll(
                gettext_noop("A mini Bunco is three of a number other than %(target)s"),
                target=target,
            )
        return (face,) * n
    hits = {"miss": 0, "one": 1, "two": 2, "three": 3, "bunco": n}[outcome]
    dice = (target,) * hits + tuple(others[: n - hits])
    expected = {"miss": "miss", "bunco": "bunco"}.get(outcome, "points")
    # A cross-check, so a change in scoring can never make a button record something else.
    if score_roll(dice, target, rules).kind != expected:
        raise InvalidRoll("no dice score “%(outcome)s” here", outcome=outcome)  # a bug, not a roll
    return dice


def call_needed(table: TableRound, dice) -> str | None:
    """The kind ("bunco" or "mini_bunco") when these dice, rolled now at `table`, score only if
    the roller called it out, else None (the scorekeeper's phone then asks "Did they call it?")."""
    rules = table.rules
    if table.rolloff_needed and rules.tie_break == "rolloff_dice_total":
        return None  # only the faces' total counts
    kind = score_roll(dice, table.target, rules, called=True).kind
    if kind == "bunco" and rules.bunco_must_be_called:
        return kind
    if kind == "mini_bunco" and rules.mini_bunco_must_be_called:
        return kind
    return None


def mini_face_matters(rules: Rules) -> bool:
    """Whether the scorekeeper must say which number a mini Bunco showed: it changes the score,
    or (traveling `triple`) whether the roller takes the fuzzy die."""
    return rules.mini_bunco_points == "sum" or rules.dice == 4 or rules.traveling == "triple"


# What each quick button says on the scorekeeper's and the host's forms, and a quick button's
# roll in words: marked for makemessages, translated where they are shown (the English value is
# the message id; the keys are what a roll stores).
QUICK_LABELS = {
    "miss": gettext_noop("Nothing"),
    "one": gettext_noop("1 point"),
    "two": gettext_noop("2 points"),
    "three": gettext_noop("3 points"),
    "mini": gettext_noop("Mini Bunco"),
    "bunco": gettext_noop("BUNCO!"),
}

OUTCOME_WORDS = {
    # Translators: what a roll scored, as entered with a quick button ("entered as nothing").
    "miss": gettext_noop("nothing"),
    "one": gettext_noop("1 point"),
    "two": gettext_noop("2 points"),
    "three": gettext_noop("3 points"),
    "bunco": "Bunco",  # the game's name, in every language
}


def entry_words(
    outcome: str = "", face: int | None = None, dice=(), *, gettext: Gettext = gettext_noop
) -> str:
    """A roll as it was entered, in words for people: "2 points", "a mini Bunco of 4s", or the
    dice faces ("3 3 1") when the scorekeeper tapped them. A quick button's roll is never shown
    as the dice `quick_dice` makes up for it. `gettext` translates (django.utils.translation's,
    say); without it the words are in English."""
    if outcome == "mini" and face:
        # Translators: a roll as entered; %(face)s is the number the dice showed ("of 4s").
        return gettext("a mini Bunco of %(face)ss") % {"face": face}
    if outcome == "mini":
        return gettext("a mini Bunco")
    if outcome:
        words = OUTCOME_WORDS.get(outcome)
        return gettext(words) if words else outcome
    return " ".join(str(d) for d in dice)
