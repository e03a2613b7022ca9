"""The rules behind the pages' live facts: where the fuzzy die starts, the preset's name or
"custom rules", and individual play ranked by personal points (docs/rules.md 6, 8, 9, 10)."""

import pytest

from scoring import PRESETS, Rules, RulesError
from scoring.party import ScoreSheet, fuzzy_die_starts_now, standing
from scoring.prizes import award_prizes
from scoring.rules import rules_name

INDIVIDUAL = Rules(team_size=1, rotation="none", prizes=("overall", "most_wins"))


def sheet(wins, losses, points, buncos=0):
    return ScoreSheet(marks=("W",) * wins + ("L",) * losses, buncos=buncos, points=points)


def test_the_fuzzy_die_starts_with_nobody_by_default_and_at_the_head_table_in_wba():
    assert Rules().fuzzy_die_starts == "nobody"
    assert PRESETS["wba"].fuzzy_die_starts == "head_table"
    assert all(p.fuzzy_die_starts == "nobody" for k, p in PRESETS.items() if k != "wba")


def test_the_option_survives_to_options_and_from_options():
    rules = Rules(traveling="triple", fuzzy_die_starts="head_table")
    assert rules.to_options()["fuzzy_die_starts"] == "head_table"
    assert Rules.from_options(rules.to_options()) == rules
    # A party stored before the option existed reads as the default.
    options = PRESETS["standard"].to_options()
    del options["fuzzy_die_starts"]
    assert Rules.from_options(options).fuzzy_die_starts == "nobody"


def test_a_starting_holder_needs_a_fuzzy_die_and_a_known_place():
    with pytest.raises(RulesError, match="^fuzzy_die_starts 'head_table' needs traveling"):
        Rules(fuzzy_die_starts="head_table")
    with pytest.raises(RulesError, match="^fuzzy_die_starts must be one of"):
        Rules(traveling="bunco", fuzzy_die_starts="anyone")


def test_the_die_is_handed_out_only_as_the_nights_first_round_starts():
    wba = PRESETS["wba"]
    assert fuzzy_die_starts_now(wba, 1, 1)
    assert not fuzzy_die_starts_now(wba, 1, 2)
    assert not fuzzy_die_starts_now(wba, 2, 1)
    assert not fuzzy_die_starts_now(Rules(traveling="bunco"), 1, 1)
    assert not fuzzy_die_starts_now(Rules(), 1, 1)


def test_the_rules_are_named_by_their_preset_until_an_option_differs():
    assert rules_name("wba", PRESETS["wba"]) == "World Bunco Association rules"
    assert rules_name("standard", Rules()) == "standard rules"
    assert rules_name("wba", Rules(sets=4, break_after_set=2, traveling="bunco")) == "custom rules"
    assert rules_name("standard", Rules(play_to=11)) == "custom rules"
    assert rules_name("no-such-preset", Rules()) == "custom rules"


def test_the_prizes_in_another_order_are_still_the_presets_rules():
    # The create form lists the prize checkboxes in its own order: an unchanged tournament
    # party was called "custom rules".
    from dataclasses import replace

    tournament = PRESETS["tournament"]
    shuffled = replace(tournament, prizes=tuple(reversed(tournament.prizes)))
    assert rules_name("tournament", shuffled) == "tournament rules"
    fewer = replace(tournament, prizes=tournament.prizes[:-1])
    assert rules_name("tournament", fewer) == "custom rules"


def test_team_play_ranks_by_wins_and_individual_play_by_personal_points():
    many_wins, many_points = sheet(4, 2, points=30), sheet(2, 4, points=90)
    assert standing(many_wins, Rules()) > standing(many_points, Rules())
    assert standing(many_points, INDIVIDUAL) > standing(many_wins, INDIVIDUAL)


def test_individual_play_breaks_a_points_tie_by_wins_or_by_buncos():
    level = sheet(3, 3, points=50, buncos=2), sheet(4, 2, points=50, buncos=0)
    assert standing(level[1], INDIVIDUAL) > standing(level[0], INDIVIDUAL)
    by_buncos = Rules(team_size=1, rotation="none", overall_tiebreak="buncos")
    assert standing(level[0], by_buncos) > standing(level[1], by_buncos)


def test_the_overall_prize_of_individual_play_goes_to_the_most_personal_points():
    sheets = {"ann": sheet(4, 2, points=30), "bo": sheet(2, 4, points=90)}
    prizes = award_prizes(sheets, INDIVIDUAL)
    assert prizes == {"overall": ("bo",), "most_wins": ("ann",)}
    team = award_prizes(sheets, Rules(prizes=("overall",)))
    assert team == {"overall": ("ann",)}
