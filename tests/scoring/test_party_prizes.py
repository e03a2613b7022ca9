"""A party's sets, rounds and break; score sheets; prizes with ties left for a roll-off."""

import pytest

from scoring import Rules
from scoring.party import Progress, ScoreSheet, record_round, schedule
from scoring.prizes import award_prizes, settle_tie
from scoring.table import NotAllowed, RollFact, TableRound

ALL = (
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


def test_a_set_is_rounds_1_to_6_with_targets_1_to_6_and_the_next_set_starts_at_1():
    rules = Rules(sets=4, break_after_set=2)
    seen = []
    progress = Progress(rules)
    while progress.state != "over":
        if progress.state == "break":
            assert (progress.bunco_set, progress.round) == (3, 1)
            progress = progress.resume()
        seen.append((progress.bunco_set, progress.round, progress.target))
        progress = progress.round_over()
    assert seen == schedule(rules)
    assert len(seen) == 24 and seen[6] == (2, 1, 1) and seen[-1] == (4, 6, 6)


def test_no_break_by_default_and_the_host_can_end_early():
    progress = Progress(Rules())
    for _ in range(6):
        progress = progress.round_over()
    assert progress.state == "playing" and progress.bunco_set == 2
    assert progress.end_early().state == "over"
    with pytest.raises(NotAllowed):
        progress.resume()


def test_both_partners_mark_the_same_and_tallies_belong_to_the_roller():
    table = TableRound.start(("a", "b", "c", "d"), Rules(), 2, head=True)
    for dice in [(2, 2, 2), (1, 1, 3)]:
        table = table.apply(RollFact(dice))
    sheets = record_round({}, table)
    assert [sheets[p].marks for p in "abcd"] == [("W",), ("L",), ("W",), ("L",)]
    assert sheets["a"].buncos == 1 and sheets["c"].buncos == 0
    assert sheets["a"].points == 21 and sheets["c"].points == 0


def sheet(w, lo, buncos=0, minis=0, points=0):
    return ScoreSheet(
        marks=("W",) * w + ("L",) * lo, buncos=buncos, mini_buncos=minis, points=points
    )


SHEETS = {
    "ann": sheet(4, 2, buncos=1, minis=3, points=90),
    "bea": sheet(4, 2, buncos=2, minis=1, points=80),
    "cal": sheet(3, 3, buncos=2, minis=3, points=70),
    "dot": sheet(1, 5, points=40),
    "G1": sheet(6, 0, buncos=0, points=0),
}


def test_every_category_from_the_sheets_with_ties_reported_and_no_prize_for_a_ghost():
    prizes = award_prizes(
        SHEETS,
        Rules(traveling="bunco"),
        ghosts=frozenset({"G1"}),
        last_bunco="cal",
        fuzzy_die="bea",
        categories=ALL,
    )
    assert prizes == {
        "most_wins": ("ann", "bea"),
        "most_buncos": ("bea", "cal"),
        "most_losses": ("dot",),
        "most_mini_buncos": ("ann", "cal"),
        "even_wins_losses": ("cal",),
        "last_bunco": ("cal",),
        "traveling": ("bea",),
        "highest_points": ("ann",),
        "lowest_points": ("dot",),
        "overall": ("ann",),  # 4 wins each; ann has more points
    }


def test_the_overall_tiebreak_can_be_most_buncos():
    prizes = award_prizes(
        SHEETS, Rules(overall_tiebreak="buncos"), ghosts=frozenset({"G1"}), categories=("overall",)
    )
    assert prizes == {"overall": ("bea",)}


def test_the_hosts_categories_are_the_default_and_nobody_wins_most_buncos_with_none():
    sheets = {"a": sheet(1, 0), "b": sheet(0, 1)}
    assert award_prizes(sheets, Rules()) == {
        "most_wins": ("a",),
        "most_buncos": (),
        "most_losses": ("b",),
    }


def test_a_prize_roll_off_keeps_only_the_highest_totals():
    assert settle_tie({"ann": 12, "bea": 10}) == ("ann",)
    assert settle_tie({"ann": 12, "bea": 12, "cal": 3}) == ("ann", "bea")
