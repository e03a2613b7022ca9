"""Admission control for the tap (parties.admission): a tap that cannot have its party's turn and
one of the process's tap slots within TAP_WAIT is answered busy (503, Retry-After) unstarted,
through either way in, and the same tap sent again once a slot is free is stored once.

The slots are held here by the test itself, in the server's loop, so each decision is made
on a known state, not on timing."""

import asyncio
import contextlib
import subprocess
import sys

import pytest
from asgiref.sync import sync_to_async
from channels.testing import HttpCommunicator

from bunco_site.asgi import application, django_asgi_app
from parties import admission, tap_path, taps
from tests.parties.test_settings import BASE_ENV, ROOT
from tests.parties.test_tap_path import CountingDjango, _setup, post, rolls_at, tap


@contextlib.asynccontextmanager
async def nothing():
    yield


@pytest.fixture
def one_slot(settings):
    settings.TAP_SLOTS = 1
    settings.TAP_WAIT = 0
    return settings


async def admitted(turn=None):
    async with admission.slots.admitted(turn or nothing()):
        return True


@pytest.mark.asyncio
async def test_a_tap_is_admitted_while_a_slot_is_free(one_slot):
    assert await admitted()
    assert await admitted()  # the slot was given back


@pytest.mark.asyncio
async def test_a_tap_is_turned_away_while_every_slot_is_taken_and_no_wait_is_allowed(one_slot):
    async with admission.slots.admitted(nothing()):
        with pytest.raises(admission.Busy):
            await admitted()
    assert await admitted()  # the refusal took no slot with it


@pytest.mark.asyncio
async def test_a_tap_waiting_within_its_wait_gets_the_slot_when_it_frees(one_slot):
    one_slot.TAP_WAIT = 30
    holding = asyncio.Event()
    release = asyncio.Event()

    async def holder():
        async with admission.slots.admitted(nothing()):
            holding.set()
            await release.wait()

    held = asyncio.create_task(holder())
    await holding.wait()
    waiter = asyncio.create_task(admitted())
    await asyncio.sleep(0)
    assert not waiter.done()  # waiting, not refused
    release.set()
    assert await waiter
    await held


@pytest.mark.asyncio
async def test_a_tap_waiting_on_its_partys_turn_is_turned_away_and_leaves_the_turn(one_slot):
    """The wait counts from the tap's arrival, its party's turn included; a tap of another
    party is not held up by it."""
    async with taps._turns.of(7):
        with pytest.raises(admission.Busy):
            await admitted(taps._turns.of(7))
        assert await admitted(taps._turns.of(8))
    assert await admitted(taps._turns.of(7))
    assert taps._turns._locks == {}  # nothing left behind by the refused tap


@pytest.mark.asyncio
async def test_more_slots_admit_more_taps_at_once(one_slot):
    one_slot.TAP_SLOTS = 3
    async with admission.slots.admitted(nothing()), admission.slots.admitted(nothing()):
        assert await admitted()
        async with admission.slots.admitted(nothing()):
            with pytest.raises(admission.Busy):
                await admitted()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("door", ["lean", "django"])
async def test_a_busy_tap_is_answered_503_with_retry_after_and_stored_once_when_sent_again(
    one_slot, door
):
    party, keeper = await sync_to_async(_setup)(role="table", table__number=2)
    django = CountingDjango()
    app = tap_path.TapPath(django) if door == "lean" else django_asgi_app
    first = tap(0)

    async with admission.slots.admitted(nothing()):  # every slot taken
        busy = await post(app, keeper, 2, first)
        health = await HttpCommunicator(
            application, "GET", "/healthz", headers=[(b"host", b"localhost")]
        ).get_response()
    assert busy["status"] == 503
    headers = {name.lower(): value for name, value in busy["headers"]}
    assert headers[b"retry-after"] == str(admission.RETRY_AFTER).encode()
    assert headers[b"content-type"] == b"application/json"
    assert busy["json"]["status"] == "busy" and busy["json"]["retry_after"] == 1
    assert "sent again" in busy["json"]["message"]
    assert health["status"] == 200  # other requests are not affected
    assert await rolls_at(party, 2) == []  # nothing written for it

    saved = await post(app, keeper, 2, first)  # the outbox sends the same tap again
    assert saved["status"] == 200 and saved["json"]["status"] == "saved"
    again = await post(app, keeper, 2, first)
    assert again["json"]["status"] == "duplicate"
    assert len(await rolls_at(party, 2)) == 1
    assert django.calls == 0  # the lean door answered its taps itself, busy ones too


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_busy_form_post_without_javascript_says_to_enter_the_roll_again(one_slot):
    party, keeper = await sync_to_async(_setup)(role="table", table__number=2)
    async with admission.slots.admitted(nothing()):
        answer = await post(django_asgi_app, keeper, 2, tap(0), accept="text/html")
    assert answer["status"] == 302  # back to the table page, with the message
    assert await rolls_at(party, 2) == []


def settings_in_a_new_process(**env):
    code = (
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.TAP_SLOTS, s.TAP_WAIT)"
    )
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
        env={**BASE_ENV, "DJANGO_SETTINGS_MODULE": "bunco_site.settings", **env},
    )


@pytest.mark.parametrize(("slots", "wait"), [("0", "0.3"), ("4", "-1"), ("4", "soon")])
def test_the_settings_refuse_a_limit_that_admits_nothing_or_a_wait_that_is_not_one(slots, wait):
    result = settings_in_a_new_process(BUNCO_TAP_SLOTS=slots, BUNCO_TAP_WAIT=wait)
    assert result.returncode != 0
    assert "BUNCO_TAP_SLOTS" in result.stderr


def test_by_default_four_taps_run_at_once_and_a_tap_waits_at_most_300_ms_for_one():
    result = settings_in_a_new_process()
    assert result.stdout.split() == ["4", "0.3"], result.stderr
    assert settings_in_a_new_process(BUNCO_TAP_SLOTS="2", BUNCO_TAP_WAIT="0").stdout.split() == [
        "2", "0.0"]
