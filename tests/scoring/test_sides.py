"""Who plays with whom, how many dice a roll needs, the prize roll-off's circuits and the
sheets a table writes: the answers the shell shows as data (docs/rules.md sections 3, 4, 6, 6a
and 9), checked against the table's own play."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring import (
    PRESETS,
    NotAllowed,
    Progress,
    RollFact,
    Rules,
    SeatingError,
    TableRound,
    check_seating,
    partner_seat,
    record_round,
    round_sheets,
    settle_prize,
    side_seats,
)
from scoring.roll import InvalidRoll

die = st.integers(1, 6)
SEATS = ("ann", "bea", "cal", "dot")


# --- sides and partners (sections 6 and 6a) ------------------------------------------------


def test_at_a_team_table_seats_1_and_3_play_2_and_4_and_partners_sit_across():
    assert side_seats(4, alone=False) == ((1, 3), (2, 4))
    assert [partner_seat(seat, alone=False) for seat in (1, 2, 3, 4)] == [3, 4, 1, 2]


@pytest.mark.parametrize("size", [2, 3, 4])
def test_at_a_table_alone_every_seat_is_a_side_and_nobody_has_a_partner(size):
    assert side_seats(size, alone=True) == tuple((seat,) for seat in range(1, size + 1))
    assert all(partner_seat(seat, alone=True) is None for seat in range(1, size + 1))


@given(size=st.integers(2, 4), alone=st.booleans())
def test_the_sides_split_the_seats_and_a_partner_is_on_ones_own_side(size, alone):
    if not alone:
        size = 4
    sides = side_seats(size, alone)
    seats = [seat for side in sides for seat in side]
    assert sorted(seats) == list(range(1, size + 1))
    for side in sides:
        for seat in side:
            partner = partner_seat(seat, alone)
            assert (partner is None) == alone
            if partner is not None:
                assert partner in side and partner != seat
                assert partner_seat(partner, alone) == seat


@given(
    alone=st.booleans(),
    size=st.integers(2, 4),
    target=die,
    rolls=st.lists(st.tuples(die, die, die), min_size=1, max_size=80),
)
def test_a_table_scores_and_wins_by_the_sides_it_names(alone, size, target, rolls):
    """Every point goes to the side of the seat whose turn it was, and the winners are exactly
    that side's players: the shell's "who partners whom" is the table's own."""
    rules = Rules(round_end="each_table")
    seats = SEATS[: size if alone else 4]
    table = TableRound.start(seats, rules, target, alone=alone)
    assert len(table.sides) == len(table.points)
    side_of = {seat: i for i, side in enumerate(table.sides) for seat in side}
    for dice in rolls:
        if table.done or table.rolloff_needed:
            break
        seat, before = table.turn_seat, table.points
        table = table.apply(RollFact(dice))
        gained = [after - was for after, was in zip(table.points, before, strict=True)]
        assert all(g == 0 for i, g in enumerate(gained) if i != side_of[seat])
    if table.winner is not None:
        side = table.sides[table.winner]
        assert set(table.winners) == {seats[seat - 1] for seat in side}
        assert not set(table.losers) & set(table.winners)


@given(ghosts=st.sets(st.sampled_from(SEATS), max_size=2))
def test_seating_and_the_table_refuse_the_same_ghost_partners(ghosts):
    ghosts = frozenset(ghosts)
    try:
        check_seating([list(SEATS)], Rules(), ghosts)
        seating_ok = True
    except SeatingError:
        seating_ok = False
    try:
        TableRound.start(SEATS, Rules(), 1, ghosts=ghosts)
        table_ok = True
    except NotAllowed:
        table_ok = False
    assert seating_ok == table_ok
    assert table_ok == (ghosts not in ({"ann", "cal"}, {"bea", "dot"}))


# --- how many dice (sections 1 and 3) ------------------------------------------------------


def test_a_dice_total_roll_off_throws_three_dice_even_in_a_four_dice_game():
    rules = Rules(
        dice=4, round_end="each_table", tie_break="rolloff_dice_total", finish_turn_after_bell=False
    )
    table = TableRound.start(SEATS, rules, 2)
    assert table.dice_needed == 4
    table = table.bell_rung()  # 0-0 and every table stops at the bell: a tie at once
    assert table.rolloff_needed and table.dice_needed == 3
    with pytest.raises(InvalidRoll):
        table.check(RollFact((1, 2, 3, 4)))
    table = table.apply(RollFact((6, 6, 5))).apply(RollFact((1, 1, 1)))
    assert table.done and table.dice_needed is None


@given(
    dice=st.sampled_from([3, 4]),
    tie_break=st.sampled_from(["rolloff_turns", "rolloff_dice_total"]),
    rolls=st.lists(st.tuples(die, die, die, die), max_size=60),
)
def test_a_roll_of_dice_needed_dice_is_always_taken(dice, tie_break, rolls):
    rules = Rules(dice=dice, tie_break=tie_break, round_end="each_table", play_to=11)
    table = TableRound.start(SEATS, rules, 3).bell_rung()
    for faces in rolls:
        if table.done:
            assert table.dice_needed is None
            break
        expected = 3 if table.rolloff_needed and tie_break == "rolloff_dice_total" else dice
        assert table.dice_needed == expected
        table = table.apply(RollFact(faces[: table.dice_needed]))


# --- prize roll-offs (section 9) -----------------------------------------------------------


def test_a_prize_roll_off_waits_for_every_tied_players_total_then_the_still_tied_roll_again():
    tied = ("ann", "bea", "cal")
    assert settle_prize(tied, {}) == (tied, 1)
    assert settle_prize(tied, {1: {"ann": 12, "bea": 9}}) == (tied, 1)  # cal has not rolled
    level = {1: {"ann": 12, "bea": 9, "cal": 12}}
    assert settle_prize(tied, level) == (("ann", "cal"), 2)
    assert settle_prize(tied, {**level, 2: {"ann": 7, "cal": 15}}) == (("cal",), None)


def test_a_prize_nobody_tied_for_needs_no_roll_off():
    assert settle_prize(("ann",), {}) == (("ann",), None)
    assert settle_prize((), {}) == ((), None)


@given(st.lists(st.dictionaries(st.sampled_from("abcd"), st.integers(3, 18)), max_size=5))
def test_a_prize_roll_off_ends_with_one_of_the_tied_or_says_which_circuit_is_next(circuits):
    tied = ("a", "b", "c", "d")
    winners, circuit = settle_prize(tied, dict(enumerate(circuits, start=1)))
    assert winners and set(winners) <= set(tied)
    assert (circuit is None) == (len(winners) == 1)
    if circuit is not None:
        assert 1 <= circuit <= len(circuits) + 1


# --- the sheets (section 4) and the night's end (section 7) --------------------------------


@given(rolls=st.lists(st.tuples(die, die, die), max_size=80))
def test_a_tables_round_writes_one_mark_each_and_the_rollers_own_tallies(rolls):
    table = TableRound.start(SEATS, Rules(round_end="each_table", play_to=11), 4)
    for dice in rolls:
        if table.done:
            break
        table = table.apply(RollFact(dice))
    if not table.done:
        with pytest.raises(NotAllowed):
            round_sheets(table)
        return
    sheets = round_sheets(table)
    assert sheets == record_round({}, table)
    assert sorted(s.marks for s in sheets.values()) == [("L",), ("L",), ("W",), ("W",)]
    assert {p: s.points for p, s in sheets.items()} == table.personal_points
    assert {p: s.buncos for p, s in sheets.items()} == table.buncos


def test_the_host_ends_the_night_once():
    over = Progress(PRESETS["standard"]).end_early()
    assert over.state == "over"
    with pytest.raises(NotAllowed):
        over.end_early()
    on_break = Progress(Rules(sets=2, break_after_set=1), round=6).round_over()
    assert on_break.state == "break" and on_break.end_early().state == "over"
