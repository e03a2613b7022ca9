"""A server past its capacity turns taps away instead of queueing them (bunco_site.fast.gate): a
real daphne process in production mode, its gate's wait made short (0.2 s), and one tap of
the party held inside it, waiting on the party's row lock (held from outside the app) with the
party's turn. Every other tap of the party, through either way in, is answered 503 busy with
Retry-After while that one is still held, and nothing is written for it; sent again after the
wait it asks (its table's turn in the line) as the page's outbox does (same tap id), each is
stored exactly once, and other requests are served meanwhile."""

import contextlib
import math
import time
import urllib.request
import uuid

import pytest

from tests.faults.db import PartyLock
from tests.faults.party import MISS, SCORE
from tests.faults.phone import Phone

pytestmark = pytest.mark.slow


def assert_busy(answer):
    """A busy answer: the wait to the table's turn in the JSON, in whole seconds in the
    header. Its wait, in seconds."""
    assert answer.status == 503, answer
    assert answer.headers["content-type"] == "application/json"
    assert answer.json["status"] == "busy", answer
    wait = answer.json["retry_after"]
    assert 0 < wait <= 20, answer
    assert answer.headers["retry-after"] == str(max(1, math.ceil(wait))), answer
    return wait


def test_taps_the_server_cannot_start_are_answered_busy_and_each_is_stored_once_when_resent(
    pg, make_party, daphnes
):
    server = daphnes(BUNCO_TAP_WAIT="0.2")
    party = make_party()
    Phone(server, party, party.host_token).start_round()
    holder = Phone(server, party, party.table_tokens[3])
    keepers = {t: Phone(server, party, party.table_tokens[t]) for t in (1, 2)}
    round_id = pg.current_round(party.id)[0]
    taps = {t: uuid.uuid4() for t in keepers}
    held_tap = uuid.uuid4()
    before = pg.snapshot(party.id)

    with PartyLock(pg, party.id) as lock:
        # Table 3's tap takes the party's turn and waits inside on the row lock.
        lock.send("held", lambda: holder.tap_once(3, held_tap, 0, dice=SCORE))
        for table, keeper in keepers.items():
            assert_busy(keeper.tap_once(table, taps[table], 0, dice=SCORE))
        # Django's view answers the same (a body over the lean entry's size is Django's).
        via_django = keepers[1].post(
            f"/parties/{party.id}/table/1/rolls/",
            {"tap_id": str(taps[1]), "seen": "0", "round": str(keepers[1].round_id),
             "dice": "1,2,3", "note": "x" * 5000},
            page=f"/parties/{party.id}/table/1/",
        )
        assert_busy(via_django)
        with urllib.request.urlopen(server.url + "/healthz", timeout=5) as health:
            assert health.status == 200  # the rest of the server is not held up
        assert pg.snapshot(party.id) == before  # nothing was written for a busy tap
        held = lock.release()["held"]
    assert held.status == 200 and held.json["status"] == "saved", held

    versions = {}
    for table, keeper in keepers.items():
        answer = keeper.tap(table, taps[table], 0, dice=SCORE)  # as the outbox sends it
        assert answer.status == 200 and answer.json["status"] == "saved", answer
        versions[table] = answer.json["version"]
        again = keeper.tap_once(table, taps[table], 0, dice=SCORE)
        assert again.json["status"] == "duplicate", again
    next_tap = uuid.uuid4()  # and the table goes on as usual
    answer = keepers[2].tap(2, next_tap, versions[2], dice=MISS)
    assert answer.json["status"] == "saved", answer

    stored = [row[2] for row in pg.rolls(round_id)]
    assert sorted(stored) == sorted([*map(str, taps.values()), str(next_tap), str(held_tap)])
    assert len(stored) == len(set(stored)) == 4  # each exactly once


def test_a_process_with_every_slot_taken_turns_a_tap_away_and_lets_it_in_first_at_its_turn(
    pg, make_party, daphnes
):
    """The bound on the taps in hand (the gate's slots) and the line (bunco_site.fast.gate) on
    the fast path, in production mode: with BUNCO_TAP_SLOTS=4, three taps of three parties
    held on their parties' row locks take the three slots a table that has not waited may
    have, and a fourth party's tap is answered busy at once, though its own party and the
    worker threads are free; nothing is written for it. Sent again at the turn it was given,
    the three still held, it takes the slot kept for tables back at their turn and is stored
    once, while a fifth party's first tap is turned away."""
    server = daphnes(BUNCO_TAP_SLOTS="4")
    parties = [make_party() for _ in range(5)]
    for party in parties:
        Phone(server, party, party.host_token).start_round()
    keepers = [Phone(server, party, party.table_tokens[1]) for party in parties]

    turned_away = uuid.uuid4()
    before = pg.snapshot(parties[3].id)
    with contextlib.ExitStack() as stack:
        locks = [stack.enter_context(PartyLock(pg, party.id)) for party in parties[:3]]
        for n, lock in enumerate(locks):
            lock.send("held", lambda n=n: keepers[n].tap_once(1, uuid.uuid4(), 0, dice=MISS))
        wait = assert_busy(keepers[3].tap_once(1, turned_away, 0, dice=SCORE))
        assert pg.snapshot(parties[3].id) == before  # nothing was written for it
        early = assert_busy(keepers[3].tap_once(1, turned_away, 0, dice=SCORE))
        assert early <= wait  # back early: the rest of its wait, not a new turn
        time.sleep(wait)
        answer = keepers[3].tap_once(1, turned_away, 0, dice=SCORE)  # at its turn
        assert answer.status == 200 and answer.json["status"] == "saved", answer
        assert_busy(keepers[4].tap_once(1, uuid.uuid4(), 0, dice=SCORE))  # has not waited
        held = [lock.release()["held"] for lock in locks]
    assert all(answer.json["status"] == "saved" for answer in held), held

    again = keepers[3].tap_once(1, turned_away, 0, dice=SCORE)
    assert again.json["status"] == "duplicate", again
    stored = [row[2] for row in pg.rolls(pg.current_round(parties[3].id)[0])]
    assert stored == [str(turned_away)]
