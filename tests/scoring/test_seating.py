"""Changing tables and partners after a round (docs/rules.md section 5), and the first seating."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import Rules
from scoring.seating import (
    SeatingError,
    check_seating,
    ghost_swap,
    next_seating,
    seat_players,
)

LADDER = Rules()
KEEP = Rules(partners="movers_keep_partners")
THREE = [["a", "b", "c", "d"], ["e", "f", "g", "h"], ["i", "j", "k", "l"]]


def test_seed_002_three_table_ladder_with_new_partners():
    # Winners: a+c at table 1, f+h at table 2, i+k at table 3.
    new = next_seating(THREE, [0, 1, 0], LADDER)
    # Table 1: a+c stay and split (X in seats 1-2), f+h arrive from table 2 (Y in seats 3-4).
    # Table 2: b+d down from the head table, i+k up from table 3.
    # Table 3: j+l stay, e+g down from table 2.
    assert new == [["a", "c", "f", "h"], ["b", "d", "i", "k"], ["j", "l", "e", "g"]]


def test_movers_keep_partners_where_both_pairs_arrived():
    new = next_seating(THREE, [0, 1, 0], KEEP)
    assert new == [["a", "c", "f", "h"], ["b", "i", "d", "k"], ["j", "l", "e", "g"]]


def test_two_tables_ladder():
    new = next_seating(THREE[:2], [1, 0], LADDER)
    # f+h stay at table 2 and split; a+c come down from the head table.
    assert new == [["b", "d", "e", "g"], ["f", "h", "a", "c"]]


def test_one_table_moves_nobody_and_one_player_moves_over_one_chair():
    new = next_seating([["a", "b", "c", "d"]], [0], LADDER)
    assert new == [["a", "c", "b", "d"]]  # a's partner is now b, c's is d


@pytest.mark.parametrize(
    "rotation, tables",
    [
        # which pairs end up at each table, for winners [0, 0, 0, 0]: W = 1+3, L = 2+4
        (
            "ladder",
            [
                {"a", "c", "e", "g"},
                {"b", "d", "i", "k"},
                {"f", "h", "m", "o"},
                {"j", "l", "n", "p"},
            ],
        ),
        (
            "head_losers_to_bottom",
            [
                {"a", "c", "e", "g"},
                {"f", "h", "i", "k"},
                {"j", "l", "m", "o"},
                {"n", "p", "b", "d"},
            ],
        ),
        (
            "losers_down_wrap",
            [
                {"a", "c", "n", "p"},
                {"e", "g", "b", "d"},
                {"i", "k", "f", "h"},
                {"m", "o", "j", "l"},
            ],
        ),
        (
            "none",
            [
                {"a", "b", "c", "d"},
                {"e", "f", "g", "h"},
                {"i", "j", "k", "l"},
                {"m", "n", "o", "p"},
            ],
        ),
    ],
)
def test_four_tables_each_rotation(rotation, tables):
    seating = [list("abcd"), list("efgh"), list("ijkl"), list("mnop")]
    new = next_seating(seating, [0, 0, 0, 0], Rules(rotation=rotation))
    assert [set(t) for t in new] == tables


def test_a_ghost_never_partners_a_ghost():
    seating = [["a", "b", "c", "G1"], ["e", "f", "g", "G2"]]
    ghosts = frozenset({"G1", "G2"})
    # b+G1 lose at the head table and go down; f+G2 lose at the bottom and stay.
    new = next_seating(seating, [0, 0], LADDER, ghosts)
    bottom = new[1]
    assert {bottom[0], bottom[2]} != {"G1", "G2"} and {bottom[1], bottom[3]} != {"G1", "G2"}


def test_individual_play_stays_seated():
    rules = Rules(team_size=1, rotation="none")
    assert next_seating([["a", "b", "c"], ["d", "e"]], [2, 0], rules) == [
        ["a", "b", "c"],
        ["d", "e"],
    ]


@pytest.mark.parametrize(
    "seating, winners",
    [
        ([["a", "b", "c"]], [0]),
        ([["a", "b", "c", "d"]], [2]),
        ([["a", "b", "c", "d"]], [True]),
        ([["a", "b", "c", "d"]], [0, 1]),
        ([["a", "b", "c", "d"], ["a", "f", "g", "h"]], [0, 1]),
        ([], []),
    ],
)
def test_seatings_that_do_not_fit_are_refused(seating, winners):
    with pytest.raises(SeatingError):
        next_seating(seating, winners, LADDER)


@pytest.mark.parametrize("count", [4, 5, 8, 11, 12, 16, 23])
def test_the_first_seating_fills_empty_seats_with_ghosts_that_never_partner(count):
    players = [f"P{i}" for i in range(1, count + 1)]
    seating, ghosts = seat_players(players, LADDER)
    assert all(len(t) == 4 for t in seating)
    assert sorted(p for t in seating for p in t if p not in ghosts) == sorted(players)
    assert len(ghosts) == -count % 4
    for t in seating:
        assert not (t[0] in ghosts and t[2] in ghosts) and not (t[1] in ghosts and t[3] in ghosts)
        assert t[0] not in ghosts  # seat 1 keeps score


def test_individual_play_seats_2_to_4_a_table_without_ghosts():
    rules = Rules(team_size=1, rotation="none")
    seating, ghosts = seat_players([f"P{i}" for i in range(5)], rules)
    assert [len(t) for t in seating] == [3, 2] and ghosts == frozenset()


def test_a_new_ghost_beside_a_ghost_changes_chairs_with_an_opponent_at_its_table():
    # Ann (seat 1 at table 2) goes home; her partner in seat 3 is a ghost.
    seating = [list("abcd"), ["G2", "f", "G1", "h"], list("ijkl")]
    ghosts = frozenset({"G1", "G2"})
    # f and h are her opponents; f, in seat 2, moves to her chair (and partners G1).
    assert ghost_swap(seating, LADDER, ghosts, "G2") == "f"


def test_a_new_ghost_with_a_real_partner_changes_nobody():
    seating = [list("abcd"), ["G2", "f", "g", "h"]]
    assert ghost_swap(seating, LADDER, frozenset({"G2"}), "G2") is None


def test_a_table_of_three_ghosts_sends_one_to_another_table():
    seating = [list("abcd"), ["G1", "G2", "G3", "h"]]
    ghosts = frozenset({"G1", "G2", "G3"})
    moved = ghost_swap(seating, LADDER, ghosts, "G3")
    assert moved in {"b", "c", "d"}  # from table 1, its scorekeeper a last


def test_no_chair_swap_helps_when_ghosts_outnumber_the_players():
    seating = [["a", "G1", "G3", "G2"], ["b", "G4", "c", "G5"]]
    ghosts = frozenset({"G1", "G2", "G3", "G4", "G5"})
    with pytest.raises(SeatingError, match="not enough players"):
        ghost_swap(seating, LADDER, ghosts, "G3")


@settings(max_examples=200, deadline=None)
@given(count=st.integers(4, 24), data=st.data())
def test_any_player_can_go_home_while_the_players_outnumber_the_ghosts(count, data):
    players = [f"P{i}" for i in range(count)]
    seating, ghosts = seat_players(players, LADDER)
    leaver = data.draw(st.sampled_from(players))
    seating = [["NEW" if p == leaver else p for p in table] for table in seating]
    ghosts = ghosts | {"NEW"}
    real = count - 1
    if real < len(ghosts):
        with pytest.raises(SeatingError):
            ghost_swap(seating, LADDER, ghosts, "NEW")
        return
    moved = ghost_swap(seating, LADDER, ghosts, "NEW")
    if moved is not None:
        assert moved not in ghosts
        seating = [[moved if p == "NEW" else "NEW" if p == moved else p for p in t]
                   for t in seating]
    check_seating(seating, LADDER, ghosts)  # every ghost has a real partner
