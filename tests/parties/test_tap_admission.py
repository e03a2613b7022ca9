"""Admission control for the tap (bunco_site.fast.gate): a tap that has not had its party's turn and
a worker thread within TAP_WAIT of its arrival is answered busy (503, Retry-After), unstarted,
through either way in, and the same tap sent again later is stored once.

What the tap waits for (the party's turn, the one worker thread) is held here by the test
itself until the tap has its answer, so each decision is made on a known state, not on
timing."""

import asyncio
import contextlib
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from asgiref.sync import sync_to_async
from channels.testing import HttpCommunicator

from bunco_site.asgi import application, django_asgi_app
from bunco_site.fast import gate, tap_path
from tests.loops import on_a_loop_of_its_own
from tests.parties.test_settings import setting_in_a_new_process
from tests.parties.test_tap_path import CountingDjango, _setup, post, rolls_at, tap


@pytest.fixture
def short_wait(settings):
    settings.TAP_WAIT = 0.05
    return settings


async def sent_until_taken(app, keeper, number, data, tries=50):
    """The answer to a tap sent as the outbox sends it: again while it is answered busy (on a
    loaded machine the test's 50 ms wait can turn away a tap nothing holds up)."""
    for _ in range(tries):
        answer = await post(app, keeper, number, data)
        if answer["json"]["status"] != "busy":
            return answer
        await asyncio.sleep(0.05)
    return answer


@contextlib.contextmanager
def one_worker_thread():
    """The running loop's worker threads made one, and that one kept busy until the block
    ends: a tap reaching the executor now waits in its queue."""
    loop = asyncio.get_running_loop()
    executor = ThreadPoolExecutor(max_workers=1)
    loop.set_default_executor(executor)
    release = threading.Event()
    executor.submit(release.wait, 30)
    try:
        yield
    finally:
        release.set()
        executor.shutdown(wait=True)




def recorder():
    calls = []
    return calls, lambda: calls.append("ran") or "answer"


@on_a_loop_of_its_own
async def test_a_tap_that_starts_within_its_wait_is_run(short_wait):
    calls, call = recorder()
    ticket = gate.Ticket()
    async with ticket.holding(gate.party_turns.of(7)):
        assert await ticket.run(call) == "answer"
    assert calls == ["ran"]
    assert gate.party_turns._locks == {}


@on_a_loop_of_its_own
async def test_a_tap_no_worker_thread_starts_within_its_wait_is_turned_away_and_never_run(
    short_wait
):
    calls, call = recorder()
    with one_worker_thread():
        with pytest.raises(gate.Busy):
            await gate.Ticket().run(call)
    assert calls == []  # the thread that reached it afterwards dropped it


@on_a_loop_of_its_own
async def test_a_tap_waiting_for_a_worker_thread_is_run_if_one_frees_in_time(short_wait):
    short_wait.TAP_WAIT = 30
    calls, call = recorder()
    loop = asyncio.get_running_loop()
    executor = ThreadPoolExecutor(max_workers=1)
    loop.set_default_executor(executor)
    release = threading.Event()
    executor.submit(release.wait, 30)
    waiting = asyncio.create_task(gate.Ticket().run(call))
    await asyncio.sleep(0)
    assert not waiting.done()
    release.set()
    assert await waiting == "answer" and calls == ["ran"]
    executor.shutdown(wait=True)


def test_a_worker_thread_reaching_a_tap_after_its_deadline_drops_it(settings):
    settings.TAP_WAIT = 0.01
    calls, call = recorder()
    ticket = gate.Ticket()
    ticket.deadline -= 1  # as if the thread reached it a second late, the loop not yet awake
    assert ticket._start_then(call) is gate.NOT_STARTED
    assert calls == []
    assert ticket._give_up()  # and the loop, waking, answers busy


def test_a_tap_started_before_the_loop_gives_up_is_not_turned_away(settings):
    settings.TAP_WAIT = 30
    ticket = gate.Ticket()
    assert ticket._start_then(lambda: "answer") == "answer"
    assert not ticket._give_up()  # started: the loop waits for its answer


@on_a_loop_of_its_own
async def test_a_tap_waiting_past_its_wait_for_its_partys_turn_is_turned_away(short_wait):
    """The wait counts from the tap's arrival, its party's turn included; a tap of another
    party is not held up, and the refused tap leaves nothing behind."""
    calls, call = recorder()
    async with gate.party_turns.of(7):
        with pytest.raises(gate.Busy):
            async with gate.Ticket().holding(gate.party_turns.of(7)):
                calls.append("held the turn")
        async with gate.Ticket().holding(gate.party_turns.of(8)):
            calls.append("another party")
    assert calls == ["another party"]
    assert gate.party_turns._locks == {}


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("door", ["lean", "django"])
async def test_a_busy_tap_is_answered_503_with_retry_after_and_stored_once_when_sent_again(
    short_wait, door
):
    party, keeper = await sync_to_async(_setup)(role="table", table__number=2)
    django = CountingDjango()
    app = tap_path.TapPath(django) if door == "lean" else django_asgi_app
    first = tap(0)

    async with gate.party_turns.of(party.id):  # the party's turn held past the tap's wait
        busy = await post(app, keeper, 2, first)
        health = await HttpCommunicator(
            application, "GET", "/healthz", headers=[(b"host", b"localhost")]
        ).get_response()
    assert busy["status"] == 503
    headers = {name.lower(): value for name, value in busy["headers"]}
    assert headers[b"retry-after"] == b"1"  # whole seconds
    assert headers[b"content-type"] == b"application/json"
    # the first table in this process's line, asked back as soon as any is
    assert busy["json"]["status"] == "busy" and busy["json"]["retry_after"] == gate.MIN_WAIT
    assert "sent again" in busy["json"]["message"]
    assert health["status"] == 200  # other requests are not affected
    assert await rolls_at(party, 2) == []  # nothing written for it

    saved = await sent_until_taken(app, keeper, 2, first)  # the outbox sends it again
    assert saved["status"] == 200 and saved["json"]["status"] == "saved"
    again = await sent_until_taken(app, keeper, 2, first)
    assert again["json"]["status"] == "duplicate"
    assert len(await rolls_at(party, 2)) == 1
    assert django.calls == 0  # the lean door answered its taps itself, busy ones too


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_busy_form_post_without_javascript_goes_back_to_the_table_page_unsaved(
    short_wait
):
    party, keeper = await sync_to_async(_setup)(role="table", table__number=2)
    async with gate.party_turns.of(party.id):
        answer = await post(django_asgi_app, keeper, 2, tap(0), accept="text/html")
    assert answer["status"] == 302  # back to the table page, with the message
    assert await rolls_at(party, 2) == []


@pytest.mark.parametrize("wait", ["0", "-1", "61", "soon"])
def test_the_settings_refuse_a_wait_that_admits_nothing_or_is_not_one(wait):
    result = setting_in_a_new_process("TAP_WAIT", BUNCO_TAP_WAIT=wait)
    assert result.returncode != 0
    assert "BUNCO_TAP_WAIT" in result.stderr


def test_by_default_a_tap_waits_at_most_300_ms_to_start():
    assert setting_in_a_new_process("TAP_WAIT").stdout.split() == ["0.3"]
    assert setting_in_a_new_process("TAP_WAIT", BUNCO_TAP_WAIT="1.5").stdout.split() == ["1.5"]


async def until_the_loop_keeps_up(wait):
    """Waits until the watch sees a lag under `wait`: at least two of its wake-ups, more on a
    busy machine that wakes it late now and then (at most 2 s)."""
    await asyncio.sleep(gate.LAG_INTERVAL * 2)
    for _ in range(40):
        if gate.loop_lag() < wait:
            return
        await asyncio.sleep(gate.LAG_INTERVAL)
    assert gate.loop_lag() < wait


@on_a_loop_of_its_own
async def test_a_tap_read_by_a_loop_as_late_as_its_wait_is_turned_away_at_once(short_wait):
    """A tap read by a loop held up for longer than TAP_WAIT had waited that long unread, in
    its socket: busy at once, though its party's turn and a worker thread are free. Once the
    loop keeps up again, taps are taken."""
    calls, call = recorder()
    assert gate.loop_lag() == 0.0  # the watch starts
    await until_the_loop_keeps_up(short_wait.TAP_WAIT)
    # The loop held up: requests wait unread meanwhile. The hold starts somewhere in the watch's
    # interval, so the lag it sees is the hold less up to one interval.
    time.sleep(short_wait.TAP_WAIT * 2 + gate.LAG_INTERVAL)
    assert gate.loop_lag() >= short_wait.TAP_WAIT * 2
    with pytest.raises(gate.Busy):
        async with gate.Ticket().holding(gate.party_turns.of(9)):
            calls.append("held the turn")
    assert calls == []
    await until_the_loop_keeps_up(short_wait.TAP_WAIT)  # the watch wakes and sees a loop on time
    async with gate.Ticket().holding(gate.party_turns.of(9)):
        assert await gate.Ticket().run(call) == "answer"
    assert calls == ["ran"]
