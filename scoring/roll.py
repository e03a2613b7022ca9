"""Scoring one roll of the dice for the round's target (docs/rules.md section 1)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from scoring.messages import RuleError, gettext_noop
from scoring.rules import Rules

STANDARD = Rules()


class InvalidRoll(RuleError):
    """Dice that cannot have been rolled under these rules; the message is for the scorekeeper."""


class RollScore(NamedTuple):
    """What one roll is worth: its points, its kind, and whether the roller rolls again."""

    # A NamedTuple rather than a frozen dataclass: it is built on every roll, and a frozen
    # dataclass's __init__ costs several times as much, which the simulator feels.

    points: int
    kind: str  # "bunco", "mini_bunco", "points" or "miss"
    keeps_turn: bool
    takes_fuzzy_die: bool = False


# An uncalled Bunco (where calling is required) scores nothing, so like any miss it ends the turn.
_MISS = RollScore(0, "miss", False)
# Rolls with 1 to 3 target dice (a roll with them all is a Bunco), made once, not on every roll.
_HITS = tuple(RollScore(hits, "points", True) for hits in range(4))


def check_dice(dice: Sequence[int], count: int) -> tuple[int, ...]:
    """The dice as a tuple, or InvalidRoll saying what is wrong with them."""
    if type(dice) is not tuple and (
        isinstance(dice, (str, bytes)) or not isinstance(dice, Sequence)
    ):
        raise InvalidRoll(
            gettext_noop("enter the dice as a list of %(count)s numbers, not %(dice)r"),
            count=count,
            dice=dice,
        )
    if len(dice) != count:
        raise InvalidRoll(
            gettext_noop("a roll has %(count)s dice, but %(entered)s were entered: %(dice)s"),
            count=count,
            entered=len(dice),
            dice=list(dice),
        )
    for die in dice:
        # bool is an int subclass; True is not a die face.
        if type(die) is not int or not 1 <= die <= 6:
            raise InvalidRoll(gettext_noop("each die shows 1 to 6, not %(die)r"), die=die)
    return tuple(dice)


def check_target(target: int) -> int:
    if type(target) is not int or not 1 <= target <= 6:
        raise InvalidRoll(
            gettext_noop("the round's target is 1 to 6, not %(target)r"), target=target
        )
    return target


def score_roll(
    dice: Sequence[int], target: int, rules: Rules = STANDARD, called: bool = True
) -> RollScore:
    """Score `dice` rolled for `target`; `called` says whether the roller called it out."""
    faces = check_dice(dice, rules.dice)
    check_target(target)
    return _score(faces, target, rules, called)


def _score(faces: tuple[int, ...], target: int, rules: Rules, called: bool) -> RollScore:
    # Trusts its arguments: the table state machine has already checked them.
    first = faces[0]
    if faces.count(first) == len(faces):
        if first == target:
            if rules.bunco_must_be_called and not called:
                return _MISS
            fuzzy = rules.traveling == "bunco" or (
                rules.traveling == "triple" and first == rules.traveling_triple
            )
            return RollScore(21, "bunco", not rules.bunco_ends_turn, fuzzy)
        if rules.mini_bunco_must_be_called and not called:
            return _MISS
        if rules.dice == 4:
            # The boxed set's four of a kind: 5 below the target, 7 above it.
            points = 5 if first < target else 7
        elif rules.mini_bunco_points == "sum":
            points = 3 * first
        else:
            points = 5
        fuzzy = rules.traveling == "triple" and first == rules.traveling_triple
        return RollScore(points, "mini_bunco", not rules.mini_bunco_ends_turn, fuzzy)
    hits = faces.count(target)
    return _HITS[hits] if hits else _MISS
