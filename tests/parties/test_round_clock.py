"""The server's clock for timed rounds (parties/round_clock.py): once a timed round's time
is up, the server rings its bell itself, once, with no page or tap asking; never early, never
while paused, never in an untimed round. Several processes ringing it at once, and one killed at
the deadline: tests/e2e/test_round_clock.py."""

import asyncio
import json
from datetime import timedelta

import pytest
from channels.layers import get_channel_layer
from django.utils import timezone

from parties import round_clock
from parties.live import announce
from parties.models import Party, Round, RoundBell
from parties.services.party import party_pause, party_resume
from parties.services.round import clock_bells_due, round_start
from tests.parties.test_play import live, new_party, tap


def time_up(party, ago=1):
    Round.objects.filter(party=party, status=Round.Status.PLAYING).update(
        ends_at=timezone.now() - timedelta(seconds=ago))


@pytest.mark.django_db
def test_a_timed_round_past_its_time_gets_its_bell_from_the_clock_once():
    party = new_party("tournament")
    round_start(party=party)
    tap(party, 1, (1, 2, 3))
    assert clock_bells_due() == []  # ten minutes to go
    time_up(party)
    round_ = Round.objects.get(party=party, status=Round.Status.PLAYING)
    seq = Party.objects.get(pk=party.pk).seq
    assert clock_bells_due() == [round_.id]
    assert clock_bells_due() == []
    assert RoundBell.objects.get().rung_by == "clock"
    assert Party.objects.get(pk=party.pk).seq == seq + 1
    _round, now = live(party)
    assert now.state.bell and now.state.bell_table is None
    assert now.table(1).finishing  # the turn under way is finished, as after any bell


@pytest.mark.django_db
def test_the_clock_waits_while_paused_and_leaves_untimed_rounds_alone():
    timed, untimed = new_party("tournament"), new_party("standard")
    for party in (timed, untimed):
        round_start(party=party)
    Round.objects.filter(party=untimed).update(ends_at=timezone.now() - timedelta(seconds=1))
    assert clock_bells_due() == []  # its rules ring no clock, whatever the row says
    party_pause(party=timed)
    time_up(timed)
    assert clock_bells_due() == []
    assert not RoundBell.objects.exists()
    party_resume(party=timed)  # the paused time is given back: still past only if it was
    Round.objects.filter(party=timed).update(ends_at=timezone.now() - timedelta(seconds=1))
    assert len(clock_bells_due()) == 1
    assert RoundBell.objects.get().round.party_id == timed.id


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_the_clock_rings_by_itself_and_the_pages_hear_it():
    from channels.db import database_sync_to_async

    party = await database_sync_to_async(new_party)("tournament")
    await database_sync_to_async(round_start)(party=party)
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(announce.party_group(party.id), channel)
    clock = asyncio.get_running_loop().create_task(round_clock.keep_time(tick=0.05))
    try:
        await database_sync_to_async(time_up)(party)
        message = await asyncio.wait_for(layer.receive(channel), 5)
        assert json.loads(message["text"])["type"] == "bell"
    finally:
        clock.cancel()
    assert await database_sync_to_async(RoundBell.objects.get)(round__party=party)
