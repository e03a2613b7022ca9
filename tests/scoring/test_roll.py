"""Scoring one roll (docs/rules.md section 1), with every option that changes it."""

import pytest

from scoring import PRESETS, Rules
from scoring.roll import InvalidRoll, score_roll

STANDARD = Rules()
FOUR = PRESETS["boxed4"]


@pytest.mark.parametrize(
    "dice, target, rules, called, expected",
    [
        # (points, kind, keeps_turn)
        ((3, 3, 3), 3, STANDARD, True, (21, "bunco", True)),  # 21, never 21 + 3
        ((6, 6, 6), 3, STANDARD, True, (5, "mini_bunco", True)),
        ((3, 5, 3), 3, STANDARD, True, (2, "points", True)),
        ((2, 4, 6), 2, STANDARD, True, (1, "points", True)),
        ((2, 2, 6), 2, STANDARD, True, (2, "points", True)),  # 2, not the faces' 10
        ((1, 4, 2), 3, STANDARD, True, (0, "miss", False)),
        ((5, 5, 2), 5, STANDARD, True, (2, "points", True)),  # seed 002: not a triple
        ((2, 2, 2), 5, STANDARD, True, (5, "mini_bunco", True)),  # seed 002: not a Bunco
        # an uncalled Bunco scores nothing and ends the turn
        ((3, 3, 3), 3, STANDARD, False, (0, "miss", False)),
        ((3, 3, 3), 3, Rules(bunco_must_be_called=False), False, (21, "bunco", True)),
        # mini Buncos need no call by default; seed 004's Little BUNCO does
        ((4, 4, 4), 2, STANDARD, False, (5, "mini_bunco", True)),
        ((4, 4, 4), 2, Rules(mini_bunco_must_be_called=True), False, (0, "miss", False)),
        ((4, 4, 4), 2, Rules(mini_bunco_must_be_called=True), True, (5, "mini_bunco", True)),
        ((4, 4, 4), 2, Rules(mini_bunco_points="sum"), True, (12, "mini_bunco", True)),
        ((1, 1, 1), 2, Rules(mini_bunco_points="sum"), True, (3, "mini_bunco", True)),
        ((4, 4, 4), 2, Rules(mini_bunco_ends_turn=True), True, (5, "mini_bunco", False)),
        ((2, 2, 2), 2, Rules(bunco_ends_turn=True), True, (21, "bunco", False)),
        (
            (2, 2, 5),
            2,
            Rules(bunco_ends_turn=True, mini_bunco_ends_turn=True),
            True,
            (2, "points", True),
        ),
        # four dice (the boxed set)
        ((3, 3, 3, 3), 3, FOUR, True, (21, "bunco", True)),
        ((3, 3, 3, 3), 3, FOUR, False, (0, "miss", False)),
        ((1, 1, 1, 1), 3, FOUR, True, (5, "mini_bunco", True)),  # four of a lower number
        ((6, 6, 6, 6), 3, FOUR, True, (7, "mini_bunco", True)),  # four of a higher number
        ((3, 3, 3, 1), 3, FOUR, True, (3, "points", True)),  # three of a kind is not special
        ((2, 2, 2, 5), 3, FOUR, True, (0, "miss", False)),
        ((3, 1, 3, 6), 3, FOUR, True, (2, "points", True)),
    ],
)
def test_a_roll_scores_as_rules_md_says(dice, target, rules, called, expected):
    score = score_roll(dice, target, rules, called)
    assert (score.points, score.kind, score.keeps_turn) == expected


def test_the_defaults_are_the_standard_rules_and_a_called_roll():
    assert score_roll([4, 4, 4], 4).points == 21


@pytest.mark.parametrize(
    "dice, rules, fuzzy",
    [
        ((2, 2, 2), Rules(traveling="triple"), True),  # 2-2-2 in round 5
        ((3, 3, 3), Rules(traveling="triple"), False),
        ((3, 3, 3), Rules(traveling="triple", traveling_triple=3), True),
        ((5, 5, 5), Rules(traveling="bunco"), True),  # a Bunco in round 5
        ((2, 2, 2), Rules(traveling="bunco"), False),
        ((5, 5, 5), STANDARD, False),  # traveling off
    ],
)
def test_who_takes_the_fuzzy_die(dice, rules, fuzzy):
    assert score_roll(dice, 5, rules).takes_fuzzy_die is fuzzy


def test_an_uncalled_bunco_does_not_take_the_fuzzy_die():
    assert not score_roll((5, 5, 5), 5, Rules(traveling="bunco"), called=False).takes_fuzzy_die


@pytest.mark.parametrize(
    "dice, rules, message",
    [
        ((1, 2), STANDARD, "3 dice"),
        ((1, 2, 3, 4), STANDARD, "3 dice"),
        ((1, 2, 3), FOUR, "4 dice"),
        ((1, 2, 7), STANDARD, "1 to 6"),
        ((0, 1, 2), STANDARD, "1 to 6"),
        ((1.0, 2, 3), STANDARD, "1 to 6"),
        ((True, 2, 3), STANDARD, "1 to 6"),
        (("1", 2, 3), STANDARD, "1 to 6"),
        ("123", STANDARD, "list"),
        (None, STANDARD, "list"),
        (123, STANDARD, "list"),
    ],
)
def test_wrong_dice_raise_an_invalid_roll_a_scorekeeper_can_read(dice, rules, message):
    with pytest.raises(InvalidRoll, match=message):
        score_roll(dice, 2, rules)


def test_an_invalid_roll_is_a_value_error():
    assert issubclass(InvalidRoll, ValueError)


@pytest.mark.parametrize("target", [0, 7, True, "3"])
def test_a_target_outside_1_to_6_is_refused(target):
    with pytest.raises(InvalidRoll, match="target"):
        score_roll((1, 2, 3), target)
