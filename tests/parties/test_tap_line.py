"""The line of tables a busy process turned away (bunco_site.fast.gate's line): each is given a turn, one
typical gap between served requests after the table before it and at least MIN_WAIT away;
back at its turn it may take every slot; back early it keeps its turn; its turn come and no
slot free, it goes to the end of the line again. Time is the test's own: each call is given `now`."""

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bunco_site.fast import gate
from bunco_site.fast.gate import MAX_WAIT, MIN_WAIT


def line_serving_every(gap, requests=200, start=0.0):
    """A line whose process has served `requests` requests `gap` seconds apart, the last at
    `start`; served tables leave it."""
    line = gate.Line()
    for i in range(requests):
        line.served(("served", i), start - (requests - 1 - i) * gap)
    return line


def test_the_typical_gap_is_measured_on_the_requests_served_in_the_last_two_seconds():
    line = line_serving_every(0.01)
    assert line.gap(0.0) == pytest.approx(0.01, rel=0.02)
    for i in range(400):  # the process now serves twice as fast
        line.served(("faster", i), 0.005 * (i + 1))
    assert line.gap(2.0) == pytest.approx(0.005, rel=0.02)


def test_a_pause_of_half_a_second_lengthens_the_gap_by_a_third_not_more():
    line = line_serving_every(0.01, start=10.0)
    assert line.gap(10.5) == pytest.approx(0.01 * 4 / 3, rel=0.02)


def test_a_process_that_has_served_little_lately_spaces_turns_by_most_gap_at_most():
    line = gate.Line()
    assert line.gap(0.0) == gate.MOST_GAP  # nothing served yet
    line.served("one", 3600.0)  # after an idle hour
    assert line.gap(3600.0) == gate.MOST_GAP


def test_tables_turned_away_are_given_turns_one_gap_apart_in_the_order_they_came():
    line = line_serving_every(0.02)
    waits = [line.turned_away(("party", n), 1.0) for n in range(100)]
    assert waits[0] == pytest.approx(MIN_WAIT)
    gaps = [later - earlier for earlier, later in itertools.pairwise(waits)]
    assert gaps == pytest.approx([line.gap(1.0)] * 99)
    assert len(line) == 100


def test_a_table_turned_away_alone_is_asked_back_in_min_wait():
    line = line_serving_every(0.02)
    assert line.turned_away("t", 5.0) == pytest.approx(MIN_WAIT)
    assert not line.turn_has_come("t", 5.0)
    assert line.turn_has_come("t", 5.0 + MIN_WAIT)


def test_a_table_back_at_its_turn_may_take_every_slot_and_leaves_the_line_when_served():
    line = line_serving_every(0.02)
    wait = line.turned_away("t", 1.0)
    assert line.turn_has_come("t", 1.0 + wait)
    assert line.turn_has_come("t", 1.0 + wait + 30)  # late is still its turn
    line.served("t", 1.0 + wait)
    assert len(line) == 0 and not line.turn_has_come("t", 1.0 + wait)


def test_a_table_back_early_keeps_its_turn_and_is_told_the_rest_of_its_wait():
    line = line_serving_every(0.02)
    for n in range(50):
        line.turned_away(n, 1.0)
    wait = line.turned_away("t", 1.0)
    assert line.turned_away("t", 2.0) == pytest.approx(wait - 1.0)
    assert not line.turn_has_come("t", 2.0)
    assert line.turned_away("next", 1.0) == pytest.approx(wait + line.gap(1.0))  # nobody moved


def test_a_table_whose_turn_came_with_no_slot_free_goes_to_the_end_of_the_line_again():
    # (sent to the front, every table of a long line came back every MIN_WAIT: in bench/ S4
    # the process answered 181,670 busy sendings in the surge and saved a quarter of its taps)
    line = line_serving_every(0.02)
    waits = [line.turned_away(n, 1.0) for n in range(500)]  # a line of ten seconds
    turn = 1.0 + MIN_WAIT
    assert line.turned_away(0, turn) == pytest.approx(1.0 + waits[-1] + line.gap(turn) - turn)
    assert not line.turn_has_come(0, turn + MIN_WAIT)
    assert len(line) == 500


def test_no_table_is_asked_to_wait_longer_than_max_wait():
    line = line_serving_every(0.01)
    waits = [line.turned_away(n, 1.0) for n in range(3000)]  # 30 s of line
    assert max(waits) == pytest.approx(MAX_WAIT)
    # once the line has emptied, a table is asked back soon, not at the end of a line that
    # ran past MAX_WAIT
    assert line.turned_away("later", 1.0 + MAX_WAIT + 1) == pytest.approx(MIN_WAIT)


def test_a_turn_not_taken_for_a_minute_is_forgotten():
    line = line_serving_every(0.02)
    for n in range(10):
        line.turned_away(n, 1.0)
    line.turned_away("later", 1.0 + MIN_WAIT + gate.FORGET_AFTER + 1)
    assert len(line) == 1


def test_a_line_emptied_by_serving_asks_the_next_table_back_in_min_wait():
    line = line_serving_every(0.02)
    for n in range(100):
        line.turned_away(n, 1.0)
    for n in range(100):
        line.served(n, 1.0 + MIN_WAIT + n * 0.02)
    end = 1.0 + MIN_WAIT + 100 * 0.02
    assert line.turned_away("next", end) == pytest.approx(MIN_WAIT)


@given(
    events=st.lists(
        st.tuples(st.sampled_from(["away", "served"]), st.integers(0, 9), st.floats(0, 2)),
        max_size=200,
    )
)
def test_every_wait_is_between_min_and_max_and_a_table_is_in_the_line_once(events):
    line, now, waiting = gate.Line(), 0.0, set()
    for what, table, later in events:
        now += later
        if what == "away":
            wait = line.turned_away(table, now)
            assert 0 < wait <= MAX_WAIT
            if table not in waiting:  # a new turn is at least MIN_WAIT away
                assert wait >= MIN_WAIT - 1e-9  # (floating point)
            waiting.add(table)
        else:
            line.served(table, now)
            waiting.discard(table)
        assert len(line) <= len(waiting)  # forgotten turns are gone, none twice

