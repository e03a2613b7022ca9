"""A roll made before the bell is never lost, played from phones in Chromium.

Table 3's phone goes offline (a guest's Wi-Fi drops) and its scorekeeper taps "2 points" for
the player holding the dice; the head table rings the bell; the phone comes back. The roll
counts once, before the bell: the player holding the dice at the bell finishes that turn.
"""

import re
from types import SimpleNamespace

import pytest
from playwright.sync_api import expect

from tests.devices import PHONE
from tests.e2e.test_live_round import Table, seating_of
from tests.e2e.test_party_setup import TWELVE, create_party, link_url

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def phones(chromium, count):
    contexts = [chromium.new_context(**PHONE) for _ in range(count)]
    return contexts, [c.new_page() for c in contexts]


def start_party(host, base, name):
    create_party(host, SimpleNamespace(url=base), name, TWELVE)
    return seating_of(host), {n: link_url(host, f"Table {n}") for n in (1, 2, 3)}


def open_table(page, url, number):
    page.goto(url)
    expect(page).to_have_url(re.compile(rf"/table/{number}/$"))
    expect(page.locator("body")).to_have_attribute("data-socket", "open")
    return Table(page, number)


def test_a_roll_tapped_offline_before_the_bell_counts_once_when_the_phone_is_back(
    chromium, server, shots
):
    contexts, (host, head_page, t3_page) = phones(chromium, 3)
    try:
        seats, urls = start_party(host, server.url, "Wi-Fi drops")
        head = open_table(head_page, urls[1], 1)
        t3 = open_table(t3_page, urls[3], 3)
        host.get_by_role("button", name="Start round 1").click()
        t3.expect("playing", [0, 0], turn=seats[2][0])
        head.expect("playing", [0, 0])

        # Table 3's phone drops off the Wi-Fi; its scorekeeper taps 2 points for seat 1.
        contexts[2].set_offline(True)
        t3_page.get_by_role("button", name="2 points", exact=True).click()
        expect(t3_page.locator(".outbox .tap")).to_contain_text(["2 points"])
        shots(t3_page, "offline-tap-waiting")

        # The head table rolls a called Bunco: the bell rings while table 3 is offline.
        dialog, before = head.bunco(seats[0][0])
        dialog.get_by_role("button", name="Yes, they called it").click()
        head.saved(before)
        expect(host.locator("#table-3 .phase")).to_have_text("Bell! Finish your turn")

        # The phone is back: the roll goes, and counts before the bell. The scorekeeper still
        # holds the dice (2 points keeps the turn) and finishes the turn.
        contexts[2].set_offline(False)
        t3_page.evaluate("window.dispatchEvent(new Event('online'))")
        expect(t3.live).to_have_attribute("data-version", "1")
        t3.expect("finishing", [2, 0], turn=seats[2][0])
        expect(host.locator("#table-3 .side-points")).to_have_text(["2", "0"])
        expect(t3_page.locator(".outbox .tap.pending, .outbox .tap.offline")).to_have_count(0)
        shots(t3_page, "offline-tap-counted")

        # Counted once: a reload resends nothing, and the table still shows one roll.
        t3_page.reload()
        t3_page.wait_for_timeout(1500)
        t3 = Table(t3_page, 3)
        expect(t3.live).to_have_attribute("data-version", "1")
        t3.expect("finishing", [2, 0], turn=seats[2][0])
        t3.tap("Nothing")
        t3.expect("done", [2, 0])
        expect(t3.live.locator(".side-0 .side-result")).to_have_text("wins")
        shots(t3_page, "offline-tap-table-done")
    finally:
        for context in contexts:
            context.close()


def test_a_roll_that_arrives_after_its_round_closed_goes_to_the_host_who_applies_it(
    chromium, server, shots
):
    # Table 3 has two phones. The first drops off the Wi-Fi with seat 1's 2 points from before
    # the bell; the second, none the wiser, enters seat 1's finishing miss and a roll-off that
    # seats 2 and 4 win. The round closes. The first phone comes back: its roll is not
    # counted and not lost: the host sees it, applies it, and table 3's result flips.
    contexts, (host, head_page, t2_page, t3a_page, t3b_page) = phones(chromium, 5)
    try:
        seats, urls = start_party(host, server.url, "Two phones, one table")
        head = open_table(head_page, urls[1], 1)
        t2 = open_table(t2_page, urls[2], 2)
        t3a = open_table(t3a_page, urls[3], 3)
        t3b = open_table(t3b_page, urls[3], 3)
        host.get_by_role("button", name="Start round 1").click()
        t3a.expect("playing", [0, 0], turn=seats[2][0])
        t3b.expect("playing", [0, 0], turn=seats[2][0])

        t2.tap("1 point")
        contexts[3].set_offline(True)
        t3a_page.get_by_role("button", name="2 points", exact=True).click()
        dialog, before = head.bunco(seats[0][0])
        dialog.get_by_role("button", name="Yes, they called it").click()
        head.saved(before)
        t3b.expect("finishing", [0, 0], turn=seats[2][0])
        # A tap within a moment of the bell's arrival counts as made before it (nobody reads
        # a screen that fast); these scorekeepers have seen the bell.
        t3b_page.wait_for_timeout(800)
        head.tap("Nothing")
        t2.tap("Nothing")
        t3b.tap("Nothing")  # seat 1 finishes: 0-0, a roll-off
        t3b.expect("rolloff", [0, 0], turn=seats[2][0])
        t3b.tap("Nothing")  # seat 1
        t3b.tap("1 point")  # seat 2 scores, then misses
        t3b.tap("Nothing")
        t3b.tap("Nothing")  # seat 3
        t3b_page.get_by_role("button", name="Nothing", exact=True).click()  # seat 4: closed
        expect(host.locator(".banner.wait")).to_contain_text("round 2")

        # The first phone is back: its roll is held for the host, and the phone says so.
        contexts[3].set_offline(False)
        t3a_page.evaluate("window.dispatchEvent(new Event('online'))")
        held = t3a_page.locator(".outbox .tap.held")
        expect(held).to_contain_text("went to the host")
        shots(t3a_page, "late-roll-held-on-the-phone")

        # The host's page lists it; Apply adds it before the bell, and the roll-off the late
        # roll made needless no longer counts.
        late = host.locator("#late-taps .late-tap")
        expect(late).to_contain_text(f"2 points for {seats[2][0]}; made before the bell")
        shots(host, "late-roll-on-the-host-page")
        late.get_by_role("button", name="Apply").click()
        expect(host.locator("#late-taps")).to_have_count(0)
        audit = host.locator("#corrections")
        expect(audit).to_contain_text(f"{seats[2][0]} & {seats[2][2]} now win")
        expect(audit).to_contain_text("after the bell")
        expect(audit).to_contain_text("no longer count")
        shots(host, "late-roll-applied")
    finally:
        for context in contexts:
            context.close()


def test_an_undo_names_the_round_its_page_showed(chromium, server):
    # An undo queued offline in one round must not take back a roll of the next: it carries
    # the round, which the server checks.
    contexts, (host, t2_page) = phones(chromium, 2)
    try:
        _seats, urls = start_party(host, server.url, "Undo in its round")
        t2 = open_table(t2_page, urls[2], 2)
        host.get_by_role("button", name="Start round 1").click()
        t2.tap("1 point")
        sent = []
        t2_page.on("request", lambda r: sent.append(r.post_data) if "/undo/" in r.url else None)
        before = t2.version()
        t2_page.get_by_role("button", name="Undo last roll").click()
        expect(t2.live).to_have_attribute("data-version", str(before + 1))
        t2.expect("playing", [0, 0])
        assert sent and f"round={t2.live.get_attribute('data-round')}" in sent[0], sent
    finally:
        for context in contexts:
            context.close()
