"""The dice behind a scorekeeper's quick buttons, and when the phone must ask for the call."""

import pytest

from scoring import PRESETS, InvalidRoll, Rules, TableRound, score_roll
from scoring.quick import call_needed, entry_words, mini_face_matters, quick_dice, quick_outcomes

STANDARD = PRESETS["standard"]


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("target", range(1, 7))
def test_every_quick_button_scores_what_it_says(preset, target):
    rules = PRESETS[preset]
    expected = {"miss": 0, "one": 1, "two": 2, "three": 3, "bunco": 21}
    for outcome in quick_outcomes(rules):
        face = next(f for f in range(1, 7) if f != target) if mini_face_matters(rules) else None
        dice = quick_dice(outcome, target, rules, face)
        assert len(dice) == rules.dice
        score = score_roll(dice, target, rules)
        if outcome == "mini":
            assert score.kind == "mini_bunco"
        else:
            assert score.points == expected[outcome], (outcome, dice)


def test_three_points_is_a_button_only_with_four_dice():
    assert "three" not in quick_outcomes(STANDARD)
    assert "three" in quick_outcomes(PRESETS["boxed4"])


def test_a_mini_bunco_needs_its_face_where_the_face_changes_the_score():
    assert quick_dice("mini", 3, STANDARD) == (1, 1, 1)
    summed = Rules(mini_bunco_points="sum")
    with pytest.raises(InvalidRoll, match="Which number"):
        quick_dice("mini", 3, summed)
    assert score_roll(quick_dice("mini", 3, summed, face=4), 3, summed).points == 12
    boxed = PRESETS["boxed4"]
    assert score_roll(quick_dice("mini", 3, boxed, face=2), 3, boxed).points == 5
    assert score_roll(quick_dice("mini", 3, boxed, face=6), 3, boxed).points == 7
    with pytest.raises(InvalidRoll):
        quick_dice("mini", 3, summed, face=3)  # three of the target is a Bunco


def test_an_unknown_button_is_refused():
    with pytest.raises(InvalidRoll):
        quick_dice("four", 1, STANDARD)


def test_the_phone_asks_for_the_call_only_where_the_rules_require_it():
    table = TableRound.start(["a", "b", "c", "d"], STANDARD, 2)
    assert call_needed(table, (2, 2, 2)) == "bunco"
    assert call_needed(table, (3, 3, 3)) is None  # a mini Bunco need not be called here
    tournament = TableRound.start(["a", "b", "c"], PRESETS["tournament"], 2)
    assert call_needed(tournament, (3, 3, 3)) == "mini_bunco"
    relaxed = TableRound.start(["a", "b", "c", "d"], Rules(bunco_must_be_called=False), 2)
    assert call_needed(relaxed, (2, 2, 2)) is None


def test_a_ghost_never_keeps_score_its_partner_rolls_first():
    from scoring.table import scorekeeper_seat

    assert scorekeeper_seat(["a", "b", "c", "d"], frozenset()) == 1
    assert scorekeeper_seat(["g", "b", "c", "d"], frozenset({"g"})) == 3
    assert TableRound.start(["g", "b", "c", "d"], STANDARD, 1, ghosts=frozenset({"g"})).turn_seat == 3


def test_with_a_traveling_triple_the_mini_bunco_button_asks_which_number():
    # The number decides who takes the fuzzy die (2-2-2 by default), so it is never guessed.
    rules = Rules(traveling="triple", traveling_triple=2)
    assert mini_face_matters(rules)
    with pytest.raises(InvalidRoll, match="Which number"):
        quick_dice("mini", 3, rules)
    assert score_roll(quick_dice("mini", 3, rules, face=2), 3, rules).takes_fuzzy_die
    assert not score_roll(quick_dice("mini", 3, rules, face=4), 3, rules).takes_fuzzy_die


def test_a_quick_roll_reads_as_what_was_entered_never_as_made_up_dice():
    assert entry_words("one") == "1 point" and entry_words("two") == "2 points"
    assert entry_words("miss") == "nothing" and entry_words("bunco") == "Bunco"
    assert entry_words("mini", 4) == "a mini Bunco of 4s" and entry_words("mini") == "a mini Bunco"
    assert entry_words(dice=(3, 3, 1)) == "3 3 1"
