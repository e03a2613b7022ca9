"""The boxed set's table plans for 2 to 10 players (seed 000, "Table plans for 5 to 10 players"
and "Bunco at one table"; docs/rules.md "Small groups"): first seatings, moves, mixed tables."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import PRESETS, RollFact, RoundState, Rules, RulesError, TableRound
from scoring.party import ScoreSheet, record_round
from scoring.seating import (
    SeatingError,
    check_seating,
    ghosts_needed,
    next_seating,
    plan_for,
    seat_players,
    tables_alone,
)
from scoring.simulate import simulate

BOXED = PRESETS["boxed_small"]
NAMES = "abcdefghij"

# Seed 000, word for word as a table: (size, alone) per table for each count.
SEED_PLANS = {
    2: [(2, True)],
    3: [(3, True)],
    4: [(4, True)],  # the one-table game: each player alone with 4 dice
    5: [(3, True), (2, True)],  # "3 sit alone at table 1 and 2 at table 2"
    6: [(4, False), (2, True)],  # "4 play in teams at table 1 and 2 alone at table 2"
    7: [(4, False), (3, True)],  # "4 in teams and 3 alone"
    8: [(4, False), (4, False)],  # "Bunco for 8 players": 2 tables of 4
    9: [(4, False), (3, True), (2, True)],  # "With 9, add 2 alone at table 3"
    10: [(4, False), (4, False), (2, True)],  # "tables 1 and 2 have teams and 2 play alone at 3"
}


def players(n):
    return list(NAMES[:n])


def shape(seating, rules=BOXED):
    return [(len(t), alone) for t, alone in zip(seating, tables_alone(seating, rules), strict=True)]


@pytest.mark.parametrize("count", sorted(SEED_PLANS))
def test_first_seating_follows_the_seed_plan(count):
    seating, ghosts = seat_players(players(count), BOXED)
    assert ghosts == frozenset() and ghosts_needed(count, BOXED) == 0
    assert shape(seating) == SEED_PLANS[count]
    assert [p for t in seating for p in t] == players(count)  # in the order the host gave
    assert [tuple(t) for t in plan_for(count, BOXED)] == SEED_PLANS[count]


def test_first_seatings_written_out():
    assert seat_players(players(5), BOXED)[0] == [["a", "b", "c"], ["d", "e"]]
    assert seat_players(players(9), BOXED)[0] == [["a", "b", "c", "d"], ["e", "f", "g"], ["h", "i"]]
    assert seat_players(players(10), BOXED)[0] == [list("abcd"), list("efgh"), list("ij")]


@pytest.mark.parametrize("count", [1, 11, 12])
def test_counts_outside_the_plans_are_refused_with_the_reason(count):
    with pytest.raises(SeatingError, match="2 to 10 players"):
        seat_players(players(count) if count <= 10 else [f"p{i}" for i in range(count)], BOXED)


def test_the_plans_come_with_the_boxed_game_and_say_what_is_missing():
    with pytest.raises(RulesError, match="small_group 'boxed_plans' needs dice=4"):
        Rules(small_group="boxed_plans")
    with pytest.raises(RulesError, match="round_end='each_table'"):
        Rules(
            small_group="boxed_plans",
            dice=4,
            bunco_ends_round="everywhere",
            rotation="losers_down_wrap",
        )
    with pytest.raises(RulesError, match="team_size=2"):
        Rules(
            small_group="boxed_plans",
            dice=4,
            round_end="each_table",
            bunco_ends_round="everywhere",
            rotation="losers_down_wrap",
            team_size=1,
        )


def test_ghosts_are_still_the_default_and_unchanged():
    seating, ghosts = seat_players(players(7), Rules())
    assert len(ghosts) == 1 and all(len(t) == 4 for t in seating)
    assert tables_alone(seating, Rules()) == (False, False)


# -- moves, written out from the seed's sentences ---------------------------------------------


def test_five_losers_move_down_and_table_2_goes_to_table_1():
    # Table 1 (a, b, c alone): b wins. Table 2 (d, e alone): e wins.
    new = next_seating([["a", "b", "c"], ["d", "e"]], [1, 1], BOXED)
    assert new == [["b", "e", "d"], ["a", "c"]]  # table 2's winner first


def test_six_head_losers_go_down_and_both_players_alone_come_up():
    # a+c beat b+d at table 1; e beats f at table 2.
    new = next_seating([["a", "b", "c", "d"], ["e", "f"]], [0, 0], BOXED)
    # a and c stay and split up (seats 1 and 2); e and f arrive in seats 3 and 4.
    assert new == [["a", "c", "e", "f"], ["b", "d"]]
    assert tables_alone(new, BOXED) == (False, True)


def test_seven_losing_team_goes_down_and_table_2s_two_losers_come_up():
    # a+c beat b+d; at table 2 (e, f, g alone) f wins, e and g lose.
    new = next_seating([["a", "b", "c", "d"], ["e", "f", "g"]], [0, 1], BOXED)
    assert new == [["a", "c", "e", "g"], ["f", "b", "d"]]


def test_eight_losing_teams_change_tables_winning_teams_stay():
    new = next_seating([list("abcd"), list("efgh")], [1, 0], BOXED)
    assert new == [["b", "d", "f", "h"], ["e", "g", "a", "c"]]


def test_nine_and_ten_wrap_the_last_table_whole_to_table_1():
    nine = next_seating([list("abcd"), list("efg"), list("hi")], [0, 2, 0], BOXED)
    assert nine == [["a", "c", "h", "i"], ["g", "b", "d"], ["e", "f"]]
    ten = next_seating([list("abcd"), list("efgh"), list("ij")], [1, 0, 1], BOXED)
    assert ten == [["b", "d", "j", "i"], ["e", "g", "a", "c"], ["f", "h"]]


def test_the_one_table_game_moves_nobody():
    for n in (2, 3, 4):
        assert next_seating([players(n)], [n - 1], BOXED) == [players(n)]


def seed_move(count, table, won, tables):
    """Where a player goes, as the seed words it, for 0-based `table`: winners stay, losers
    move down a table; the last table wraps to table 1, wholly for 5, 6, 9 and 10."""
    last = table == tables - 1
    if tables == 1:
        return table
    if last and count in (5, 6, 9, 10):
        return 0
    return table if won else (table + 1) % tables


@pytest.mark.parametrize("count", sorted(SEED_PLANS))
def test_six_rounds_of_moves_follow_the_seed_for_every_player(count):
    rng = random.Random(count)
    seating, _ = seat_players(players(count), BOXED)
    for _ in range(6):
        alone = tables_alone(seating, BOXED)
        winners = [rng.randrange(len(t) if a else 2) for t, a in zip(seating, alone, strict=True)]
        won = set()
        for t, w, a in zip(seating, winners, alone, strict=True):
            won |= {t[w]} if a else {t[w], t[w + 2]}
        expected = {
            p: seed_move(count, i, p in won, len(seating)) for i, t in enumerate(seating) for p in t
        }
        seating = next_seating(seating, winners, BOXED)
        assert {p: i for i, t in enumerate(seating) for p in t} == expected
        assert shape(seating) == SEED_PLANS[count]


def test_at_a_team_table_that_kept_its_winners_everyone_gets_a_new_partner():
    old = [list("abcd"), list("efgh"), list("ij")]
    new = next_seating(old, [0, 1, 0], BOXED)
    before = {frozenset(p) for t in old[:2] for p in ((t[0], t[2]), (t[1], t[3]))}
    for t in new[:2]:
        assert not {frozenset((t[0], t[2])), frozenset((t[1], t[3]))} & before


def test_a_bad_winner_or_a_seating_off_the_plan_is_refused():
    with pytest.raises(SeatingError, match="0 to 2"):
        next_seating([list("abcd"), list("efg")], [0, 3], BOXED)
    with pytest.raises(SeatingError, match="0 to 1"):
        next_seating([list("abcd"), list("efg")], [2, 0], BOXED)
    with pytest.raises(SeatingError, match=r"seats \[4, 3\]"):
        check_seating([list("abc"), list("defg")], BOXED)
    with pytest.raises(SeatingError, match="no ghosts"):
        check_seating([list("abcd"), list("efg")], BOXED, frozenset({"g"}))


@settings(max_examples=60, deadline=None)
@given(count=st.integers(2, 10), data=st.data())
def test_every_round_seats_everyone_once_at_the_plans_tables(count, data):
    seating, _ = seat_players(players(count), BOXED)
    for _ in range(12):
        alone = tables_alone(seating, BOXED)
        winners = [
            data.draw(st.integers(0, (len(t) if a else 2) - 1))
            for t, a in zip(seating, alone, strict=True)
        ]
        seating = next_seating(seating, winners, BOXED)
        assert sorted(p for t in seating for p in t) == players(count)
        assert shape(seating) == SEED_PLANS[count]
        check_seating(seating, BOXED)


# -- a table of players alone inside a mixed round ---------------------------------------------

MIXED = [["a", "b", "c", "d"], ["e", "f", "g"]]  # 7 players: teams at 1, three alone at 2


def test_a_mixed_round_has_a_team_table_and_a_table_of_players_alone():
    state = RoundState.start(MIXED, BOXED, 2)
    team, solo = state.tables
    assert not team.alone and team.points == (0, 0)
    assert solo.alone and solo.points == (0, 0, 0)


def test_at_a_table_alone_the_first_to_21_wins_and_everyone_else_loses():
    state = RoundState.start(MIXED, BOXED, 2)
    # e: 2 points, f: miss; g... the turn goes e, f, g. Two 2s then a miss, then f misses.
    state = state.roll(2, RollFact((2, 2, 5, 6))).roll(2, RollFact((1, 3, 5, 6)))
    state = state.roll(2, RollFact((1, 3, 5, 6)))  # f misses
    assert state.tables[1].turn_seat == 3 and state.tables[1].points == (2, 0, 0)
    for _ in range(10):  # g: ten rolls of two 2s, 20 points
        state = state.roll(2, RollFact((2, 2, 1, 3)))
    assert not state.tables[1].done
    state = state.roll(2, RollFact((2, 1, 3, 5)))  # 21: g wins at once
    solo = state.tables[1]
    assert solo.done and solo.winner == 2 and solo.winners == ("g",)
    assert solo.losers == ("e", "f")
    assert not state.tables[0].done  # the team table plays on to 21 by itself
    sheets = record_round({}, solo)
    assert {p: s.marks for p, s in sheets.items()} == {"e": ("L",), "f": ("L",), "g": ("W",)}


def test_a_bunco_at_the_table_alone_ends_the_round_at_the_team_table_too():
    state = RoundState.start(MIXED, BOXED, 4)
    state = state.roll(1, RollFact((4, 4, 1, 2)))  # team a+c: 2 points
    state = state.roll(2, RollFact((4, 4, 4, 4)))  # e: a Bunco, 21, wins table 2 and rings the bell
    assert state.bell and state.bell_table == 2
    assert state.tables[1].winners == ("e",)
    team = state.tables[0]
    assert team.finishing  # a (holding the dice) finishes the turn
    team_done = state.roll(1, RollFact((1, 2, 3, 5)))
    assert team_done.over and team_done.tables[0].winner == 0


def test_a_tie_at_the_top_of_a_table_alone_goes_to_a_roll_off_among_the_tied():
    state = RoundState.start(MIXED, BOXED, 4)
    state = state.roll(1, RollFact((1, 1, 1, 1)))  # a rolls a mini Bunco of 1s (5): turn goes on
    state = state.roll(2, RollFact((4, 1, 2, 3)))  # e: 1
    state = state.roll(2, RollFact((1, 2, 3, 5)))  # e misses
    state = state.roll(2, RollFact((4, 1, 2, 3)))  # f: 1
    state = state.roll(2, RollFact((1, 2, 3, 5)))  # f misses
    state = state.roll(2, RollFact((1, 2, 3, 5)))  # g misses: e 1, f 1, g 0
    state = state.roll(1, RollFact((4, 4, 4, 4)))  # a's Bunco wins table 1, rings the bell
    solo = state.tables[1]
    assert solo.finishing and solo.turn_seat == 1  # e holds the dice and finishes the turn
    state = state.roll(2, RollFact((1, 2, 3, 5)))  # e misses: e and f tied on 1
    solo = state.tables[1]
    assert solo.rolloff_needed and solo.rolloff.sides == (0, 1)
    assert solo.rolloff.order == (0, 1)  # g is not tied and does not roll
    state = state.roll(2, RollFact((1, 2, 3, 5)))  # e: 0
    state = state.roll(2, RollFact((4, 2, 3, 5)))  # f: 1
    state = state.roll(2, RollFact((1, 2, 3, 5)))  # f misses, the roll-off is over
    assert state.over and state.tables[1].winners == ("f",)
    assert state.tables[1].points == (1, 1, 0)  # roll-off points are not added


def test_players_alone_have_no_ghosts_and_the_team_table_needs_four():
    with pytest.raises(ValueError, match="no ghosts"):
        TableRound.start(["e", "f", "g"], BOXED, 1, ghosts=frozenset({"g"}), alone=True)
    with pytest.raises(ValueError, match="seats 4"):
        TableRound.start(["e", "f", "g"], BOXED, 1, alone=False)


# -- whole nights through the simulator --------------------------------------------------------


@pytest.mark.parametrize("count", sorted(SEED_PLANS))
def test_a_whole_night_marks_one_w_or_l_a_player_a_round(count):
    night = simulate(count, "boxed_small", None, seed=count)
    rounds = len(night["rounds"])
    assert rounds == 6 * BOXED.sets
    for entry in night["rounds"]:
        seated = [p for t in entry["tables"] for p in t["seats"]]
        assert sorted(seated) == sorted(f"P{i + 1}" for i in range(count))
        assert [len(t["seats"]) for t in entry["tables"]] == [s for s, _ in SEED_PLANS[count]]
        for t, (size, alone) in zip(entry["tables"], SEED_PLANS[count], strict=True):
            assert len(t["team_points"]) == (size if alone else 2)
    for sheet in night["players"].values():
        assert sheet["wins"] + sheet["losses"] == rounds and not sheet["ghost"]
    assert night["prizes"]["most_wins"]  # prizes go to real players at mixed tables
    wins = {p: s["wins"] for p, s in night["players"].items()}
    assert set(night["prizes"]["most_wins"]) == {
        p for p, w in wins.items() if w == max(wins.values())
    }


def test_score_sheets_from_a_mixed_round():
    state = RoundState.start(MIXED, BOXED, 3)
    state = state.roll(1, RollFact((3, 3, 3, 3)))  # a: Bunco, team a+c wins table 1 at once
    assert state.tables[0].done and state.bell
    state = state.roll(2, RollFact((3, 1, 2, 4)))  # e finishes with 1 point
    state = state.roll(2, RollFact((1, 2, 4, 5)))
    assert state.over
    sheets: dict[str, ScoreSheet] = {}
    for table in state.tables:
        sheets = record_round(sheets, table)
    marks = {p: s.marks[0] for p, s in sheets.items()}
    assert marks == {"a": "W", "c": "W", "b": "L", "d": "L", "e": "W", "f": "L", "g": "L"}
    assert sheets["a"].buncos == 1 and sheets["c"].buncos == 0


def test_the_simulator_refuses_a_count_the_plans_cannot_seat_with_the_reason(capsys):
    from scoring.simulate import main

    assert main(["--players", "12", "--preset", "boxed_small"]) == 2
    assert "seat 2 to 10 players, not 12" in capsys.readouterr().err
    assert main(["--players", "9", "--preset", "boxed_small", "--sets", "1"]) == 0


@settings(max_examples=25, deadline=None)
@given(count=st.integers(2, 10), seed=st.integers(0, 10**6))
def test_any_night_marks_one_w_or_l_a_player_a_round_at_the_plans_tables(count, seed):
    night = simulate(count, "boxed_small", 1, seed=seed)
    for entry in night["rounds"]:
        tables = entry["tables"]
        assert [len(t["seats"]) for t in tables] == [s for s, _ in SEED_PLANS[count]]
        assert sorted(p for t in tables for p in t["seats"]) == sorted(night["players"])
    for sheet in night["players"].values():
        assert sheet["wins"] + sheet["losses"] == len(night["rounds"]) == 6
