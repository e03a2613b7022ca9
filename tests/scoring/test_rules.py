"""Rules: presets as docs/rules.md section 10 lists them, and options that cannot be played."""

import dataclasses
import json

import pytest

from scoring import PRESET_HELP, PRESETS, PRIZE_CATEGORIES, Rules, RulesError


def test_the_standard_preset_is_every_default():
    assert PRESETS["standard"] == Rules()
    r = Rules()
    assert (r.dice, r.play_to, r.round_end, r.bunco_ends_round) == (3, 21, "head_table", "normal")
    assert r.bunco_must_be_called and not r.mini_bunco_must_be_called
    assert (r.rotation, r.partners, r.team_size, r.sets) == ("ladder", "new_every_round", 2, 2)
    assert r.prizes == ("most_wins", "most_buncos", "most_losses")


@pytest.mark.parametrize(
    "name, expected",
    [
        (
            "wba",
            {
                "sets": 4,
                "break_after_set": 2,
                "traveling": "bunco",
                "fuzzy_die_starts": "head_table",
            },
        ),
        ("quick", {"round_end": "each_table", "rotation": "head_losers_to_bottom", "sets": 1}),
        ("short", {"play_to": 11}),
        (
            "boxed4",
            {
                "dice": 4,
                "round_end": "each_table",
                "bunco_ends_round": "everywhere",
                "traveling": "bunco",
                "overall_tiebreak": "buncos",
            },
        ),
        (
            "boxed_small",
            {
                "dice": 4,
                "round_end": "each_table",
                "bunco_ends_round": "everywhere",
                "rotation": "losers_down_wrap",
                "small_group": "boxed_plans",
                "traveling": "bunco",
                "overall_tiebreak": "buncos",
            },
        ),
        (
            "tournament",
            {
                "team_size": 1,
                "round_end": "timed",
                "rotation": "none",
                "mini_bunco_ends_turn": True,
                "bunco_ends_turn": True,
                "bunco_must_be_called": True,
                "mini_bunco_must_be_called": True,
            },
        ),
    ],
)
def test_each_preset_changes_only_what_rules_md_says(name, expected):
    preset = PRESETS[name].to_options()
    standard = Rules().to_options()
    assert {k: preset[k] for k in expected} == expected
    changed = {k for k, v in preset.items() if v != standard[k] and k != "prizes"}
    assert changed <= set(expected)


def test_the_tournament_awards_prizes_by_personal_points():
    assert "highest_points" in PRESETS["tournament"].prizes


def test_every_preset_has_a_line_of_help():
    assert (
        set(PRESET_HELP)
        == set(PRESETS)
        == {"standard", "wba", "quick", "short", "boxed4", "boxed_small", "tournament"}
    )
    assert all(line.strip() for line in PRESET_HELP.values())


def test_every_option_carries_help_and_its_choices_including_its_default():
    for f in dataclasses.fields(Rules):
        assert f.metadata["help"].strip(), f.name
        choices = f.metadata["choices"]
        if f.name == "prizes":
            assert set(f.default) <= set(choices)
        else:
            assert f.default in choices, f.name


def test_options_round_trip_through_json():
    for rules in PRESETS.values():
        options = json.loads(json.dumps(rules.to_options()))
        assert Rules.from_options(options) == rules


def test_missing_options_take_their_defaults_and_lists_are_accepted_for_prizes():
    rules = Rules.from_options({"play_to": 11, "prizes": ["overall", "last_bunco"]})
    assert rules == Rules(play_to=11, prizes=("overall", "last_bunco"))


def test_unknown_options_are_refused_by_name():
    with pytest.raises(RulesError, match="colour"):
        Rules.from_options({"colour": "red"})


@pytest.mark.parametrize(
    "options, names",
    [
        ({"dice": 5}, "dice"),
        ({"dice": True}, "dice"),
        ({"dice": "3"}, "dice"),
        ({"play_to": 0}, "play_to"),
        ({"play_to": 20}, "play_to"),
        ({"round_end": "bell"}, "round_end"),
        ({"round_minutes": 0}, "round_minutes"),
        ({"round_minutes": 61}, "round_minutes"),
        ({"bunco_ends_round": "sometimes"}, "bunco_ends_round"),
        ({"bunco_must_be_called": 1}, "bunco_must_be_called"),
        ({"mini_bunco_points": 5}, "mini_bunco_points"),
        ({"tie_break": "coin"}, "tie_break"),
        ({"rotation": "random"}, "rotation"),
        ({"partners": "keep"}, "partners"),
        ({"team_size": 3}, "team_size"),
        ({"team_size": 1}, "rotation"),  # individual play with the default ladder
        ({"sets": 0}, "sets"),
        ({"sets": 5}, "sets"),
        ({"break_after_set": 2}, "break_after_set"),  # the default 2 sets: no break after the last
        ({"sets": 4, "break_after_set": 4}, "break_after_set"),
        ({"sets": 1, "break_after_set": 1}, "break_after_set"),
        ({"traveling": "fuzzy"}, "traveling"),
        ({"traveling": "triple", "traveling_triple": 7}, "traveling_triple"),
        ({"prizes": ("most_wins", "best_hat")}, "prizes"),
        ({"prizes": ("most_wins", "most_wins")}, "prizes"),
        ({"prizes": "most_wins"}, "prizes"),
        ({"prizes": ("traveling",)}, "traveling"),  # a fuzzy-die prize with no fuzzy die
        ({"dice": 4, "mini_bunco_points": "sum"}, "mini_bunco_points"),
        ({"dice": 4, "traveling": "triple"}, "traveling"),
        ({"overall_tiebreak": "age"}, "overall_tiebreak"),
    ],
)
def test_options_that_cannot_be_played_are_refused_naming_the_option(options, names):
    with pytest.raises(RulesError, match=names):
        Rules(**options)


def test_a_rules_error_is_a_value_error():
    with pytest.raises(ValueError):
        Rules(dice=5)


def test_individual_play_without_a_rotation_is_allowed():
    assert Rules(team_size=1, rotation="none").team_size == 1


def test_rules_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Rules().dice = 4


def test_prize_categories_are_rules_md_section_9_in_order():
    assert PRIZE_CATEGORIES == (
        "most_wins",
        "most_buncos",
        "most_losses",
        "most_mini_buncos",
        "even_wins_losses",
        "last_bunco",
        "traveling",
        "highest_points",
        "lowest_points",
        "overall",
    )
