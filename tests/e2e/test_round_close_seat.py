"""A round's close shows every phone its new seat from the push itself: the message to each
table's phones carries the piece of each page that says where to sit next (docs/performance.md,
S6). The rest of the page is refetched a moment later; here those refetches are held back, to
show that the push alone puts the new seat on the player's and the table's phones, the same as
the page loaded whole shows it."""

import re
from types import SimpleNamespace

import pytest
from playwright.sync_api import expect

from tests.devices import PHONE
from tests.e2e.test_live_round import Table, seating_of
from tests.e2e.test_party_setup import TWELVE, create_party, link_url

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def hold_refetches(page):
    """Refuse the page's htmx refetches (its live region); count them."""
    held = []

    def route(route):
        if route.request.headers.get("hx-request"):
            held.append(route.request.url)
            route.abort()
        else:
            route.continue_()

    page.route("**/parties/**", route)
    return held


def wait_for(page, check, what):
    for _ in range(50):
        if check():
            return
        page.wait_for_timeout(100)
    raise AssertionError(what)


def test_the_close_push_alone_shows_the_player_and_the_table_their_new_seats(
    chromium, server, shots
):
    contexts = []

    def phone():
        context = chromium.new_context(**PHONE)
        contexts.append(context)
        return context.new_page()

    try:
        host = phone()
        create_party(host, SimpleNamespace(url=server.url), "Seat Night", TWELVE)
        seats = seating_of(host)
        me = seats[2][0]
        me_url = link_url(host, me)
        tables = {}
        for n in (1, 2, 3):
            page = phone()
            page.goto(link_url(host, f"Table {n}"))
            expect(page).to_have_url(re.compile(rf"/table/{n}/$"))
            tables[n] = Table(page, n)
        player = phone()
        player.goto(me_url)
        expect(player.locator("#where")).to_have_text(
            f"Set 1, round 1: table 3, seat 1, partner: {seats[2][2]}"
        )
        for page in [host, player] + [t.page for t in tables.values()]:
            expect(page.locator("body")).to_have_attribute("data-socket", "open")

        host.get_by_role("button", name="Start round 1").click()
        for table in tables.values():
            table.expect("playing", [0, 0])
        host.get_by_role("button", name="Ring the bell", exact=True).click()
        for table in tables.values():
            expect(table.live).to_have_attribute("data-phase", "finishing")
            table.tap("1 point")  # the turn in hand scores: that side wins the table
        tables[1].tap("Nothing")
        tables[2].tap("Nothing")
        last = tables[3]
        held = {"player": hold_refetches(player), "table": hold_refetches(last.page)}
        last.page.get_by_role("button", name="Nothing", exact=True).click()

        # From the push alone: the round-over banner, and the new seat.
        expect(player.locator("#bell-banner")).to_have_text("Round over! See where to sit next.")
        expect(player.locator("#where")).to_contain_text("Set 1, round 2: table ")
        expect(last.page.locator(".round-head .set-round")).to_have_text("Set 1 · round 2")
        expect(last.page.locator(".round-head .target")).to_have_text("Target 2")
        expect(last.page.locator("#seating-card")).to_have_attribute("open", "")
        expect(last.page.locator("#seats-3 .seat-name")).to_have_count(4)
        where = player.locator("#where").inner_text()
        names = last.page.locator("#seats-3 .seat-name").all_inner_texts()
        assert names != seats[2]  # the table's players changed
        shots(player, "player-seat-from-the-push")
        shots(last.page, "table-3-seat-from-the-push")
        # Each page still refetches the rest of itself a moment later (held back here).
        wait_for(player, lambda: held["player"], "the player's page never refetched")
        wait_for(last.page, lambda: held["table"], "the table's page never refetched")

        # The pages loaded whole say the same.
        expect(host.locator("#seats-3 .seat-name")).to_have_text(names)
        player.unroute("**/parties/**")
        player.reload()
        expect(player.locator("#where")).to_have_text(where)
        expect(player.locator("#sheet table.sheet tbody tr")).to_have_count(1)
        last.page.unroute("**/parties/**")
        last.page.reload()
        expect(last.page.locator("#seats-3 .seat-name")).to_have_text(names)
        expect(last.page.locator(".banner.wait")).to_have_text(
            "Waiting for the bell to start set 1, round 2."
        )
        shots(player, "player-page-loaded-whole")
    finally:
        for context in contexts:
            context.close()
