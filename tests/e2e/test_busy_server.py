"""A scorekeeper's phone in Chromium meets a server turning taps away (bunco_site.fast.gate): the
tap stays in the outbox as "server busy" (calm, not an error), the tap entered behind it waits
its turn, and once the server can start it both land, in order, each once, in one request
(the outbox sends the taps waiting at a table together).

The server is a real daphne process in production mode whose admission wait is made short
(0.2 s); another table's tap holds the party's turn, waiting inside on the party's row lock
(held from outside the app), so the page meets a busy server every time, not by timing.
Nothing of the page is faked: its own fetch() meets the server's own 503."""

import json
import os
import re
import uuid
from types import SimpleNamespace
from urllib.parse import parse_qs

import pytest
from playwright.sync_api import expect

from bench.databases import Database
from bench.servers import Daphne
from tests.e2e.conftest import LOCAL_POSTGRES, LOCAL_REDIS, e2e_env
from tests.e2e.phone import new_party, points, scorekeeper, start_round, table, tap
from tests.e2e.test_party_setup import chromium, link_url  # noqa: F401
from tests.faults.db import Db, PartyLock
from tests.faults.phone import Phone

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


@pytest.fixture(scope="module")
def busy_server():
    """One daphne process on a PostgreSQL database of its own, a tap waiting 0.2 s at most."""
    database_url = os.environ.get("DATABASE_URL") or LOCAL_POSTGRES
    with Database(database_url, "bunco_e2e") as database:
        env = e2e_env(database, os.environ.get("REDIS_URL") or LOCAL_REDIS)
        server = Daphne({**env, "BUNCO_TAP_WAIT": "0.2"}).start()
        try:
            yield server, Db(database.url)
        finally:
            server.stop()


def test_a_tap_the_server_turns_away_waits_calmly_and_lands_once_after_the_retry(
    chromium, busy_server, shots  # noqa: F811
):
    server, db = busy_server
    host, url = new_party(chromium, server)
    start_round(host)
    party_id = int(re.search(r"/parties/(\d+)/host/", host.url).group(1))
    other_table = Phone(server, SimpleNamespace(id=party_id),
                        link_url(host, "Table 2").rstrip("/").rsplit("/", 1)[-1])
    page = scorekeeper(chromium, url)
    expect(table(page)).to_have_attribute("data-phase", "playing")
    round_id = db.current_round(party_id)[0]
    sent = []  # the bodies of the page's taps, as it sent them
    page.on("request", lambda r: sent.append(r.post_data) if "/rolls/" in r.url else None)

    with PartyLock(db, party_id) as lock:
        # Table 2's tap takes the party's turn and waits inside on the party's row lock.
        lock.send("table 2", lambda: other_table.tap_once(2, uuid.uuid4(), 0, dice=(2, 3, 4)))
        tap(page, "1 point")
        busy = page.locator(".outbox .tap.busy")
        expect(busy).to_have_count(1)
        expect(busy).to_contain_text("1 point: server busy, will resend")
        expect(page.locator(".outbox .tap.error")).to_have_count(0)  # not shown as a failure
        tap(page, "2 points")  # entered behind it: waits with it, in order
        expect(page.locator(".outbox .tap")).to_have_count(2)
        expect(page.locator(".outbox .tap").nth(1)).to_contain_text("2 points: server busy")
        expect(table(page).locator(".side-pending").first).to_have_text("+3 not yet saved")
        shots(page, "busy-server")
        assert db.rolls(round_id, 1) == []  # nothing of a busy tap is written
        held = lock.release()["table 2"]
    assert held.json["status"] == "saved", held

    # The outbox sends the same tap again at its table's turn (as often as it is turned
    # away while the lock is held: each turn is half a second away), with the one behind.
    expect(page.locator(".outbox")).to_have_text("2 points: saved", timeout=40000)
    resent = parse_qs(sent[-1])
    assert len(sent) >= 2
    assert {parse_qs(body)["tap_id"][0] for body in sent} == {resent["tap_id"][0]}
    assert [tap["outcome"] for tap in json.loads(resent["more"][0])] == ["two"]
    expect(table(page)).to_have_attribute("data-version", "2")
    assert points(page) == [3, 0]
    rolls = db.rolls(round_id, 1)
    assert len(rolls) == 2 and len({r[2] for r in rolls}) == 2  # each tap stored once
    assert [r[3:6] for r in rolls] == [(None, None, None)] * 2  # the two quick buttons, in order
    outcomes = db.rows("SELECT outcome FROM parties_roll WHERE round_id = %s AND table_id IN "
                       "(SELECT id FROM parties_table WHERE number = 1) ORDER BY id", round_id)
    assert [o for (o,) in outcomes] == ["one", "two"]
    shots(page, "landed")
