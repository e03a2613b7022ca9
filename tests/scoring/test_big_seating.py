"""Seating a big event, up to 400 players at 100 tables (docs/rules.md sections 5 and 6): four
seats a table, every player once, ghosts never partners, and each rotation's moves, round after
round; individual play (seed 004's tournament) gives each player a table of 2 to 4."""

from dataclasses import replace

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from scoring import PRESETS, Rules, SeatingError, next_seating, seat_players, tables_needed

TEAM_ROTATIONS = ("ladder", "head_losers_to_bottom", "losers_down_wrap")
TOURNAMENT = PRESETS["tournament"]


def players(count):
    return [f"P{n}" for n in range(1, count + 1)]


def assert_a_full_seating(seating, everyone, ghosts, tables):
    assert len(seating) == tables
    assert all(len(table) == 4 for table in seating)
    assert sorted(p for table in seating for p in table) == sorted(everyone)
    for table in seating:  # seats 1 and 3 are partners, and 2 and 4
        assert not (table[0] in ghosts and table[2] in ghosts)
        assert not (table[1] in ghosts and table[3] in ghosts)


@pytest.mark.parametrize("count", [2, 3])
def test_teams_with_ghosts_refuse_fewer_than_four_players(count):
    # Two teams of two a table: 2 or 3 players would sit with as many ghosts or more.
    with pytest.raises(SeatingError, match=f"teams with ghosts need at least 4 players, not {count}"):
        seat_players(players(count), Rules())


@settings(max_examples=150, deadline=None)
@given(count=st.integers(4, 400))
@example(count=400)
@example(count=397)
def test_the_first_seating_of_up_to_400_is_four_a_table_and_everyone_once(count):
    seating, ghosts = seat_players(players(count), Rules())
    tables = tables_needed(count)
    assert tables == -(-count // 4) and tables <= 100
    assert_a_full_seating(seating, players(count) + sorted(ghosts), ghosts, tables)
    assert len(ghosts) == 4 * tables - count < 4
    assert seating[0][0] not in ghosts  # the head table's scorekeeper is a real player


@settings(max_examples=60, deadline=None)
@given(
    count=st.integers(300, 400),
    rotation=st.sampled_from(TEAM_ROTATIONS),
    partners=st.sampled_from(("new_every_round", "movers_keep_partners")),
    data=st.data(),
)
@example(count=400, rotation="ladder", partners="new_every_round", data=None)
def test_every_round_of_a_big_party_keeps_four_a_table_and_everyone_once(
    count, rotation, partners, data
):
    rules = replace(PRESETS["standard"], rotation=rotation, partners=partners)
    seating, ghosts = seat_players(players(count), rules)
    everyone = players(count) + sorted(ghosts)
    tables = len(seating)
    for _round in range(6):
        if data is None:
            winners = [n % 2 for n in range(tables)]
        else:
            winners = data.draw(st.lists(st.integers(0, 1), min_size=tables, max_size=tables))
        before = seating
        seating = next_seating(seating, winners, rules, ghosts)
        assert_a_full_seating(seating, everyone, ghosts, tables)
        assert_the_moves(before, seating, winners, rotation)


def assert_the_moves(before, after, winners, rotation):
    """Where each pair went, as docs/rules.md section 5 says for `rotation`."""
    where = {p: n for n, table in enumerate(after) for p in table}
    last = len(before) - 1
    for n, (table, won) in enumerate(zip(before, winners, strict=True)):
        winners_at = {where[table[won]], where[table[won + 2]]}
        losers_at = {where[table[1 - won]], where[table[3 - won]]}
        assert len(winners_at) == 1 and len(losers_at) == 1  # a pair moves together
        if rotation == "ladder":
            assert winners_at == {max(n - 1, 0)} if n else winners_at == {0}
            assert losers_at == {min(n + 1, last)}
        elif rotation == "head_losers_to_bottom":
            assert winners_at == {max(n - 1, 0)}
            assert losers_at == ({last} if n == 0 else {n})
        else:  # losers_down_wrap
            assert winners_at == {n}
            assert losers_at == {(n + 1) % (last + 1)}


@settings(max_examples=100, deadline=None)
@given(count=st.integers(2, 400))
@example(count=400)
@example(count=399)
def test_a_tournament_gives_every_player_one_table_of_two_to_four_for_the_night(count):
    seating, ghosts = seat_players(players(count), TOURNAMENT)
    assert ghosts == frozenset()
    assert len(seating) == tables_needed(count)
    assert all(2 <= len(table) <= 4 for table in seating) or count < 4
    assert max(map(len, seating)) - min(map(len, seating)) <= 1
    assert sorted(p for table in seating for p in table) == sorted(players(count))
    # Nobody moves between rounds: the table given at registration is the night's.
    winners = [0] * len(seating)
    assert next_seating(seating, winners, TOURNAMENT) == seating
