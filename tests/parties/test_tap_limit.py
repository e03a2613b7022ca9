"""The taps a process works on at once (bunco_site.fast.gate's slots): a tap that finds every slot taken
is answered busy at once, unstarted; the limit falls by a quarter when the typical time in a
slot (smoothed over the last taps) passes `slow` with at least half the slots in use (once for
the taps started before the cut), and grows back to its ceiling, where it starts, while the
typical time is under; slow taps with few slots in use (a short pause) do not cut it; a
table that has not waited its turn in line (the gate's line) may not take the last quarter
of the slots.

Time is the test's own clock, so each decision is made on a known duration."""

import asyncio
import contextlib
import math

import pytest
from asgiref.sync import sync_to_async
from hypothesis import given
from hypothesis import strategies as st

from bunco_site.fast import gate, tap_path
from tests.loops import on_a_loop_of_its_own
from tests.parties.test_settings import setting_in_a_new_process
from tests.parties.test_tap_path import CountingDjango, _setup, post, rolls_at, tap


class Clock:
    def __init__(self):
        self.now = 1000.0

    def monotonic(self):
        return self.now


@pytest.fixture
def clock(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(gate, "time", clock)
    return clock


def limit_of(ceiling, **kwargs):
    return gate.Slots(ceiling=ceiling, **{"slow": 0.1, "floor": 1, **kwargs})


def tap_taking(limit, clock, seconds):
    with limit.slot():
        clock.now += seconds


def taps_taking(limit, clock, seconds, at_once):
    """`at_once` taps in hand together for `seconds`, then ending one after another."""
    with contextlib.ExitStack() as held:
        for _ in range(at_once):
            held.enter_context(limit.slot())
        clock.now += seconds


def test_a_tap_finding_every_slot_taken_is_turned_away_and_holds_none(clock):
    limit = limit_of(2)
    with limit.slot(), limit.slot():
        with pytest.raises(gate.Busy):
            with limit.slot():
                pytest.fail("a third tap ran in a limit of two")
        assert limit.in_flight == 2
    assert limit.in_flight == 0
    with limit.slot():  # free again
        assert limit.in_flight == 1


@on_a_loop_of_its_own
async def test_the_last_quarter_of_the_slots_is_kept_for_tables_back_at_their_turn_in_line(
    clock,
):
    limit = limit_of(4)
    with limit.slot(), limit.slot(), limit.slot():
        with pytest.raises(gate.Busy), limit.slot():
            pytest.fail("a table that has not waited took the last quarter")
        async with limit.slot_at_turn(patience=0):  # a table turned away before, back
            assert limit.in_flight == 4
            with pytest.raises(gate.Busy):
                async with limit.slot_at_turn(patience=0):
                    pytest.fail("a fifth tap ran in a limit of four")


async def at_turn(limit, order, name):
    """A table back at its turn: waits up to 5 s for a slot, and notes when it has one."""
    async with limit.slot_at_turn(patience=5):
        order.append(name)
        await asyncio.sleep(0)


@on_a_loop_of_its_own
async def test_a_table_at_its_turn_waits_for_the_next_slot_freed_before_any_that_has_not(clock):
    limit = limit_of(2)
    order = []
    one, other = contextlib.ExitStack(), contextlib.ExitStack()
    one.enter_context(limit.slot())
    other.enter_context(limit.slot())
    first = asyncio.create_task(at_turn(limit, order, "first back"))
    second = asyncio.create_task(at_turn(limit, order, "second back"))
    await asyncio.sleep(0.01)
    assert order == [] and limit.in_flight == 2  # both waiting, none let in
    one.close()  # a slot freed: handed to the first table back, not to the free ones
    assert limit.in_flight == 2
    with pytest.raises(gate.Busy), limit.slot():  # so one that has not waited finds none
        pytest.fail("a slot freed went to a table that has not waited")
    other.close()
    await asyncio.gather(first, second)
    assert order == ["first back", "second back"]
    assert limit.in_flight == 0


@on_a_loop_of_its_own
async def test_a_table_at_its_turn_with_no_slot_freed_within_its_patience_is_turned_away(clock):
    limit = limit_of(1)
    with limit.slot():
        with pytest.raises(gate.Busy):
            async with limit.slot_at_turn(patience=0.05):
                pytest.fail("ran with the only slot taken")
        assert limit.in_flight == 1 and not limit._at_turn  # nor is it still waiting
    with limit.slot():  # the one that gave up holds nothing, waits for nothing
        assert limit.in_flight == 1
    assert limit.in_flight == 0


@on_a_loop_of_its_own
async def test_a_slot_handed_to_a_table_cancelled_meanwhile_goes_to_the_next_one(clock):
    limit = limit_of(1)
    order = []
    with limit.slot():
        cancelled = asyncio.create_task(at_turn(limit, order, "cancelled"))
        after = asyncio.create_task(at_turn(limit, order, "after"))
        await asyncio.sleep(0.01)
    cancelled.cancel()  # handed the slot, cancelled before it ran
    await asyncio.gather(cancelled, after, return_exceptions=True)
    assert order == ["after"] and limit.in_flight == 0


@on_a_loop_of_its_own
async def test_a_table_cancelled_while_waiting_at_its_turn_stops_waiting(clock):
    limit = limit_of(1)
    order = []
    with limit.slot():
        waiting = asyncio.create_task(at_turn(limit, order, "cancelled"))
        await asyncio.sleep(0.01)
        waiting.cancel()  # its phone gone before any slot was freed
        await asyncio.gather(waiting, return_exceptions=True)
        assert not limit._at_turn and limit.in_flight == 1
    assert order == [] and limit.in_flight == 0


def test_by_default_a_process_turns_no_tap_away_until_48_single_taps_are_in_hand(clock):
    limit = gate.Slots(slow=0.035, ceiling=64)  # the settings' defaults
    with contextlib.ExitStack() as held:
        for _ in range(48):
            held.enter_context(limit.slot())
        with pytest.raises(gate.Busy), limit.slot():
            pytest.fail("a single tap took the last quarter of 64 slots")


def test_a_tap_that_fails_gives_its_slot_back(clock):
    limit = limit_of(1)
    with pytest.raises(RuntimeError), limit.slot():
        raise RuntimeError("the database went away")
    assert limit.in_flight == 0


def test_slow_taps_cut_the_limit_by_a_quarter_once_their_typical_time_passes_slow(clock):
    limit = limit_of(4, slow=0.1)  # two taps in hand: half the slots
    taps_taking(limit, clock, 0.5, at_once=2)  # typical 0.05, then 0.095 s
    assert limit.limit == 4
    taps_taking(limit, clock, 0.5, at_once=2)  # 0.1355 s: cut; the next started before it
    assert limit.limit == 3
    taps_taking(limit, clock, 0.5, at_once=2)  # started after the cut: cuts again
    assert limit.limit == 2.25


def test_slow_taps_with_fewer_than_half_the_slots_in_use_do_not_cut_the_limit(clock):
    limit = limit_of(16, slow=0.1)
    taps_taking(limit, clock, 0.3, at_once=7)  # a pause holding the few taps in hand
    for _ in range(10):
        tap_taking(limit, clock, 1.0)
    assert limit.typical > 0.1
    assert limit.limit == 16


def test_a_pause_that_slows_a_few_taps_leaves_the_typical_time_under_slow(clock):
    limit = limit_of(16, slow=0.1)
    for _ in range(20):
        tap_taking(limit, clock, 0.005)
    taps_taking(limit, clock, 0.3, at_once=3)  # three taps in hand through a pause of 0.3 s
    assert limit.typical < 0.1


def test_the_slow_taps_started_before_a_cut_cut_it_once_between_them(clock):
    limit = limit_of(16, slow=0.1)
    taps_taking(limit, clock, 2.0, at_once=12)
    assert limit.typical > 0.1
    assert limit.limit == 12


def test_the_limit_never_falls_below_its_floor(clock):
    limit = limit_of(4, floor=2, slow=0.1)
    for _ in range(10):
        taps_taking(limit, clock, 1.0, at_once=2)
    assert limit.limit == 2


def test_once_the_typical_time_is_under_slow_fast_taps_grow_the_limit_back_to_its_ceiling(
    clock,
):
    limit = limit_of(8, floor=2, slow=0.1)
    for _ in range(10):  # half the slots in use each time
        taps_taking(limit, clock, 1.0, at_once=math.ceil(limit.limit / 2))
    assert limit.limit == 2
    while limit.typical > 0.1:
        tap_taking(limit, clock, 0.01)
    low = limit.limit
    tap_taking(limit, clock, 0.01)
    assert limit.limit == low + 1 / low  # a slot spread over a limit's worth of taps
    for _ in range(40):  # 2 to 8: about (8 ** 2 - 2 ** 2) / 2 = 30 taps
        tap_taking(limit, clock, 0.01)
    assert limit.limit == 8  # and no further


def test_by_default_the_typical_tap_is_slow_past_35_ms_in_its_slot():
    assert setting_in_a_new_process("TAP_SLOW").stdout.split() == ["0.035"]
    assert setting_in_a_new_process("TAP_SLOW", BUNCO_TAP_SLOW="0.25").stdout.split() == ["0.25"]


@pytest.mark.parametrize("slow", ["0", "-1", "61", "fast"])
def test_the_settings_refuse_a_slow_time_that_is_not_one(slow):
    result = setting_in_a_new_process("TAP_SLOW", BUNCO_TAP_SLOW=slow)
    assert result.returncode != 0
    assert "BUNCO_TAP_SLOW" in result.stderr


def test_by_default_a_process_has_at_most_64_taps_in_hand():
    assert setting_in_a_new_process("TAP_SLOTS").stdout.split() == ["64"]
    assert setting_in_a_new_process("TAP_SLOTS", BUNCO_TAP_SLOTS="8").stdout.split() == ["8"]


@pytest.mark.parametrize("slots", ["1", "0", "4097", "2.5", "many"])
def test_the_settings_refuse_a_number_of_slots_that_is_not_one(slots):
    result = setting_in_a_new_process("TAP_SLOTS", BUNCO_TAP_SLOTS=slots)
    assert result.returncode != 0
    assert "BUNCO_TAP_SLOTS" in result.stderr


# A run of taps: each starts (if a slot is free) or ends one of those started, after some time.
events = st.lists(
    st.tuples(st.booleans(), st.floats(min_value=0, max_value=0.5)), max_size=200
)


@given(events)
def test_slots_in_use_never_pass_the_limit_and_all_come_back(run):
    clock = Clock()
    limit = gate.Slots(slow=0.1, floor=2, ceiling=64)
    limit_time, gate.time = gate.time, clock
    try:
        held, turned_away = [], 0
        for start, seconds in run:
            clock.now += seconds
            if start:
                slot = limit.slot()
                try:
                    slot.__enter__()
                except gate.Busy:
                    turned_away += 1
                    assert limit.in_flight >= limit.limit * gate.FRESH_SHARE
                    continue
                held.append(slot)
                assert limit.in_flight <= -(-limit.limit // 1)  # within the limit it was let in
            elif held:
                held.pop(0).__exit__(None, None, None)
            assert 2 <= limit.limit <= 64
            assert limit.in_flight == len(held)
        for slot in held:
            slot.__exit__(None, None, None)
        assert limit.in_flight == 0
    finally:
        gate.time = limit_time


@on_a_loop_of_its_own
async def test_each_event_loop_has_its_own_limit():
    here = gate.of_loop().slots
    assert gate.of_loop().slots is here
    elsewhere = await asyncio.to_thread(asyncio.run, _limit_of_a_new_loop())
    assert elsewhere is not here


async def _limit_of_a_new_loop():
    return gate.of_loop().slots


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_tap_finding_every_slot_taken_is_answered_busy_and_saved_when_sent_again():
    party, keeper = await sync_to_async(_setup)(role="table", table__number=2)
    app = tap_path.TapPath(CountingDjango())
    limit = gate.of_loop().slots
    first = tap(0)
    saved_limit = limit.limit
    limit.limit = 1
    try:
        with limit.slot():  # another party's tap, in flight
            busy = await post(app, keeper, 2, first)
    finally:
        limit.limit = saved_limit
    assert busy["status"] == 503 and busy["json"]["status"] == "busy"
    headers = {name.lower(): value for name, value in busy["headers"]}
    assert busy["json"]["retry_after"] == gate.MIN_WAIT  # the only table in line
    assert headers[b"retry-after"] == b"1"  # whole seconds
    assert await rolls_at(party, 2) == []  # nothing written for it

    saved = await post(app, keeper, 2, first)  # the outbox sends the same tap again
    assert saved["status"] == 200 and saved["json"]["status"] == "saved"
    assert len(await rolls_at(party, 2)) == 1
    assert limit.in_flight == 0
