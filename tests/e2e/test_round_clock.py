"""A timed round ends on time with no page asking: the server's own clock rings the bell at the
deadline, once, and every phone open hears it; on the party server's one process, and on two
processes sharing PostgreSQL and Redis, one of them killed at the deadline.

The round's deadline is brought forward in the database, so the pages' own countdowns (which
report 0 when they reach it) still count towards the old one: only the server can ring it."""

import re
import sqlite3
import time
from contextlib import closing
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import psycopg
import pytest
from playwright.sync_api import expect

from tests.devices import LAPTOP, PHONE
from tests.e2e.test_live_facts import create_with
from tests.e2e.test_party_setup import TWELVE, chromium, link_url  # noqa: F401

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

HEARD_WITHIN = 5  # seconds: the clock asks every half second; a loaded machine is slower


def run_sql(env, postgres_sql, sqlite_sql, args):
    url = env.get("DATABASE_URL", "")
    if url.startswith("postgres"):
        with psycopg.connect(url, autocommit=True) as db:
            cursor = db.execute(postgres_sql, args)
            return cursor.fetchall() if cursor.description else None
    with closing(sqlite3.connect(env["SQLITE_PATH"], timeout=20)) as db, db:
        return db.execute(sqlite_sql, args).fetchall()


def deadline_in(env, party_id, seconds):
    """Bring the party's round in play to its deadline `seconds` from now (the server's time);
    when that is, by this machine's clock."""
    when = datetime.now(UTC) + timedelta(seconds=seconds)
    run_sql(
        env,
        "UPDATE parties_round SET ends_at = %s WHERE party_id = %s AND status = 'playing'",
        "UPDATE parties_round SET ends_at = ? WHERE party_id = ? AND status = 'playing'",
        (when if env.get("DATABASE_URL", "").startswith("postgres")
         else when.replace(tzinfo=None).isoformat(" "), party_id),
    )
    return time.monotonic() + seconds


def bells(env, party_id):
    """The party's bells rung from outside the tables: [(round id, rung by)]."""
    return run_sql(
        env,
        "SELECT b.round_id, b.rung_by FROM parties_roundbell b JOIN parties_round r"
        " ON r.id = b.round_id WHERE r.party_id = %s",
        "SELECT b.round_id, b.rung_by FROM parties_roundbell b JOIN parties_round r"
        " ON r.id = b.round_id WHERE r.party_id = ?",
        (party_id,),
    )


def timed_party(chromium, base, name):  # noqa: F811
    """A tournament (timed rounds of 10 minutes) in play; (host page, party id, links)."""
    host = chromium.new_context(**LAPTOP).new_page()
    create_with(host, SimpleNamespace(url=base), name, TWELVE, "tournament")
    party_id = int(re.search(r"/parties/(\d+)/host/", host.url).group(1))
    links = {who: link_url(host, who) for who in ("Table 1", TWELVE[0])}
    host.get_by_role("button", name="Start round 1").click()
    expect(host.locator(".controls .set-round")).to_contain_text("Playing")
    return host, party_id, links


def phones(chromium, base, links):  # noqa: F811
    """The table's scorekeeper and a player, listening, sound declined: [pages]."""
    pages = []
    for link in links.values():
        page = chromium.new_context(**PHONE).new_page()
        assert link.startswith(base + "/"), link
        page.goto(link)
        expect(page.locator("body")).to_have_attribute("data-socket", "open")
        page.get_by_role("button", name="No sound").click()
        pages.append(page)
    return pages


def hear_the_bell(pages, shots, label):
    for page in pages:
        expect(page.locator("#bell-banner")).to_be_visible(timeout=HEARD_WITHIN * 1000)
    expect(pages[0].locator("section#table-1")).to_have_attribute("data-phase", "finishing")
    for n, page in enumerate(pages):
        shots(page, f"{label}-{n}")


def test_the_party_servers_clock_rings_a_timed_rounds_bell_with_no_page_asking(
    chromium, server, shots  # noqa: F811
):
    host, party_id, links = timed_party(chromium, server.url, "On the clock")
    open_phones = phones(chromium, server.url, links)
    deadline_in(server.env, party_id, 2)
    assert bells(server.env, party_id) == []
    hear_the_bell(open_phones, shots, "bell-from-the-clock")
    assert [by for _round, by in bells(server.env, party_id)] == ["clock"]
    for page in [host, *open_phones]:
        page.context.close()


def test_two_processes_ring_it_once_and_one_killed_at_the_deadline_leaves_it_to_the_other(
    chromium, production, shots  # noqa: F811
):
    first, second = production
    # Both processes' clocks ask at once: the bell rings once.
    host, party_id, links = timed_party(chromium, second.url, "Two clocks")
    open_phones = phones(chromium, second.url, links)
    deadline_in(second.env, party_id, 2)
    hear_the_bell(open_phones, shots, "two-clocks")
    time.sleep(1.5)  # both clocks have asked again since
    assert [by for _round, by in bells(second.env, party_id)] == ["clock"]
    for page in [host, *open_phones]:
        page.context.close()

    # The first process dies at the deadline; the phones are on the second.
    host, party_id, links = timed_party(chromium, second.url, "One clock left")
    open_phones = phones(chromium, second.url, links)
    due = deadline_in(second.env, party_id, 2)
    time.sleep(max(0, due - time.monotonic() - 0.1))
    first.kill()
    try:
        hear_the_bell(open_phones, shots, "the-other-clock")
        assert [by for _round, by in bells(second.env, party_id)] == ["clock"]
    finally:
        first.restart()
    for page in [host, *open_phones]:
        page.context.close()
