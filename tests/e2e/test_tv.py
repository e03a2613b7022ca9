"""The room's scoreboard on a 1920x1080 screen, in Chromium: a whole round followed from the TV
(opened with the party code, as a smart TV would), a 60-player party on one screen, and a
100-table party in smaller cards."""

import json
import re
import subprocess
import sys
from types import SimpleNamespace

import pytest
from playwright.sync_api import expect

from bench.servers import ROOT
from tests.devices import LAPTOP, PHONE
from tests.e2e.test_live_round import Table, ladder, seating_of
from tests.e2e.test_party_setup import TWELVE, create_party, link_url

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

SCREEN = {"viewport": {"width": 1920, "height": 1080}}
SIXTY = [
    "Ann", "Bea", "Cleo", "Dot", "Edie", "Fran", "Gail", "Hope", "Iris", "June", "Kay", "Lou",
    "Mae", "Nell", "Opal", "Pearl", "Queenie", "Rose", "Sue", "Tess", "Una", "Vi", "Wren",
    "Xena", "Yvette", "Zelda", "Abigail", "Bernadette", "Carmen", "Delphine", "Esmeralda",
    "Florence", "Georgina", "Henrietta", "Imogen", "Jacqueline", "Katarina", "Lucinda",
    "Marguerite", "Nadia", "Octavia", "Philippa", "Rosalind", "Seraphina", "Theodora",
    "Ursula", "Valentina", "Wilhelmina", "Yolanda", "Zuzanna", "Mary-Catherine", "Ana Lucía",
    "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ike",
]


def open_tv_with_code(chromium, base, host):
    """A screen of its own (no host link) that types the party code, then opens the TV page."""
    party_id = re.search(r"/parties/(\d+)/", host.url).group(1)
    code = host.locator("#party-code").inner_text()
    tv = chromium.new_context(**SCREEN).new_page()
    tv.goto(f"{base}/parties/{party_id}/tv/")
    expect(tv.locator("h1")).to_have_text("This screen cannot show the scoreboard yet")
    tv.get_by_role("link", name="type the party code").click()  # and come back here
    expect(tv.locator("h1")).to_have_text("Open the room's scoreboard")
    tv.get_by_label("Party code").fill(code)
    tv.get_by_role("button", name="Find the party").click()
    expect(tv).to_have_url(re.compile(rf"/parties/{party_id}/tv/$"))
    expect(tv.locator("body")).to_have_attribute("data-socket", "open")
    expect(tv.locator("#sound-bar .sound-text")).to_have_text("Hear the bell on this screen?")
    return tv


def on_one_screen(tv, selector, count):
    """`count` elements matching `selector`, each wholly on the unscrolled 1920x1080 screen."""
    cards = tv.locator(selector)
    expect(cards).to_have_count(count)
    size = tv.viewport_size
    scroll = tv.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
    assert scroll == [size["width"], size["height"]], f"the page scrolls: {scroll}"
    for box in (cards.nth(i).bounding_box() for i in range(count)):
        assert box["x"] >= 0 and box["y"] >= 0, box
        assert box["x"] + box["width"] <= size["width"], box
        assert box["y"] + box["height"] <= size["height"], box


def font_px(locator):
    return float(locator.evaluate("el => parseFloat(getComputedStyle(el).fontSize)"))


def full_screen(tv):
    """The bell banner covers the whole screen."""
    box = tv.locator("#bell-banner").bounding_box()
    assert box == {"x": 0, "y": 0, "width": 1920, "height": 1080}, box


def test_the_room_follows_a_round_on_the_tv(chromium, server, shots):
    contexts = []

    def context(**kwargs):
        contexts.append(chromium.new_context(**kwargs))
        return contexts[-1]

    try:
        host = context(**LAPTOP).new_page()
        create_party(host, SimpleNamespace(url=server.url), "Room Night", TWELVE)
        seats = seating_of(host)
        tv = open_tv_with_code(chromium, server.url, host)
        contexts.append(tv.context)
        tables = {}
        for n in (1, 2, 3):
            page = context(**PHONE).new_page()
            page.goto(link_url(host, f"Table {n}"))
            expect(page.locator("body")).to_have_attribute("data-socket", "open")
            tables[n] = Table(page, n)
        head, t2, t3 = tables[1], tables[2], tables[3]

        # Before round 1: where everyone sits, how to join, nothing to score yet.
        expect(tv.locator(".tv-set-round")).to_have_text("Set 1 · Round 1")
        expect(tv.locator(".tv-target-number")).to_have_text("1")
        expect(tv.locator(".tv-stage")).to_have_text("Find your seat")
        for n in (1, 2, 3):
            expect(tv.locator(f"#tv-seats-{n} .tv-seat")).to_have_text(seats[n - 1])
        expect(tv.locator("#party-code")).to_have_text(host.locator("#party-code").inner_text())
        # The code's three groups, one under the other, inside the join column.
        code, column = tv.locator("#party-code").bounding_box(), tv.locator(".tv-join").bounding_box()
        assert column["x"] < code["x"] and code["x"] + code["width"] < column["x"] + column["width"]
        assert code["height"] > 2.5 * font_px(tv.locator("#party-code")), code
        expect(tv.locator(".tv-qr svg")).to_be_visible()
        # The screen is asked to stay on all night, round or not (wake-lock where the browser
        # grants it; a headless one may refuse, and the page then waits for a tap).
        expect(tv.locator("body")).to_have_attribute("data-awake", re.compile("wake-lock|needs-tap"))
        on_one_screen(tv, ".tv-seat-card", 3)
        shots(tv, "tv-before-round-1")

        # The host starts the round: the TV announces it full-screen, then shows the tables.
        host.get_by_role("button", name="Start round 1").click()
        expect(tv.locator("#bell-banner")).to_have_text("The round has started: roll!")
        expect(tv.locator("#bell-banner")).to_be_visible()
        full_screen(tv)
        expect(tv.locator("section.live-table")).to_have_count(3)
        expect(tv.locator(".tv-stage")).to_have_text("In play", use_inner_text=True)
        expect(tv.locator("#bell-banner")).to_be_hidden(timeout=8000)
        on_one_screen(tv, "section.live-table", 3)
        assert font_px(tv.locator("#table-2 .side-points").first) >= 48

        # Taps at the tables reach the TV as they are made, by the socket alone (no refetch).
        refetches = tv.locator("body").get_attribute("data-refetches")
        t2.tap("1 point")
        expect(tv.locator("#table-2 .side-points")).to_have_text(["1", "0"])
        t2.tap("Nothing")
        t2.dice(1, 1, 4)
        expect(tv.locator("#table-2 .side-points")).to_have_text(["1", "2"])
        head.tap("2 points")
        expect(tv.locator("#table-1 .side-points")).to_have_text(["2", "0"])
        assert tv.locator("body").get_attribute("data-refetches") == refetches
        expect(tv.locator("#table-2 .side-names")).to_have_text(
            [f"{seats[1][0]} & {seats[1][2]}", f"{seats[1][1]} & {seats[1][3]}"]
        )
        shots(tv, "tv-in-play")

        # The head table's Bunco rings the bell: the whole screen, for a few seconds.
        dialog, before = head.bunco(seats[0][0])
        dialog.get_by_role("button", name="Yes, they called it").click()
        head.saved(before)
        expect(tv.locator("body")).to_have_attribute("data-bells", "1")
        expect(tv.locator("#bell-banner")).to_have_text("Bell! Finish your turn; the round is ending.")
        expect(tv.locator("#bell-banner")).to_be_visible()
        full_screen(tv)
        assert font_px(tv.locator("#bell-banner")) >= 120
        shots(tv, "tv-bell")
        expect(tv.locator("#bell-banner")).to_be_hidden(timeout=8000)
        expect(tv.locator(".tv-stage")).to_have_text("Bell! Finish your turn", use_inner_text=True)
        expect(tv.locator("#table-1 .side-points")).to_have_text(["23", "0"])
        expect(tv.locator("#table-3 .phase")).to_have_text("Bell! Finish your turn")
        shots(tv, "tv-after-the-bell")

        # Every table finishes; table 3 ties 0-0 and rolls off; the last miss closes the round.
        head.tap("Nothing")
        t2.tap("Nothing")
        t3.tap("Nothing")
        expect(tv.locator("#table-3")).to_have_attribute("data-phase", "rolloff")
        expect(tv.locator("#table-1 .side-0 .side-result")).to_have_text("wins")
        shots(tv, "tv-rolloff")
        t3.tap("1 point")
        for _ in range(3):
            t3.tap("Nothing")
        t3.page.get_by_role("button", name="Nothing", exact=True).click()

        # Round over: announced full-screen, then the standings and who sits where for round 2.
        expect(tv.locator("body")).to_have_attribute("data-bells", "2")
        expect(tv.locator("#bell-banner")).to_have_text("Round over! See where to sit next.")
        expect(tv.locator(".tv-set-round")).to_have_text("Set 1 · Round 2")
        expect(tv.locator(".tv-target-number")).to_have_text("2")
        after = ladder(seats, [0, 1, 0])
        for n in (1, 2, 3):
            expect(tv.locator(f"#tv-seats-{n} .tv-seat")).to_have_text(after[n - 1])
            expect(host.locator(f"#seats-{n} .seat-name")).to_have_text(after[n - 1])
        expect(tv.locator("#tv-standings-title")).to_have_text("Standings after 1 round")
        rows = tv.locator(".tv-leaders tbody tr")
        expect(rows).to_have_count(10)
        winners = {seats[0][0], seats[0][2], seats[1][1], seats[1][3], seats[2][0], seats[2][2]}
        leaders = rows.locator(".name").all_inner_texts()
        assert set(leaders[:6]) == winners  # the six with a W first, as the results page ranks
        # The Bunco's roller leads: a W, the Bunco, and the 23 points of the bell's turn.
        expect(rows.nth(0).locator("td")).to_have_text(["1", seats[0][0], "1", "1", "23"])
        expect(tv.locator(".tv-more")).to_have_text("Top 10 of 12 players: every sheet is on your phone.")
        expect(tv.locator("#bell-banner")).to_be_hidden(timeout=8000)
        on_one_screen(tv, ".tv-seat-card", 3)
        tops = {round(card.bounding_box()["y"]) for card in tv.locator(".tv-seat-card").all()}
        assert len(tops) == 1, "the three tables' seats are not on one row"  # none alone
        shots(tv, "tv-round-2-seats-and-standings")

        # The host ends the night: the prizes and the final standings.
        host.once("dialog", lambda dialog: dialog.accept())
        host.get_by_role("button", name="End the party").click()
        expect(tv.locator(".tv-stage")).to_have_text("The party is over")
        expect(tv.locator("#tv-standings-title")).to_have_text("Final standings")
        expect(tv.locator(".tv-prizes li").first).to_be_visible()
        expect(tv.locator(".tv-seat-card")).to_have_count(0)
        shots(tv, "tv-party-over")
    finally:
        for each in contexts:
            each.close()


def test_sixty_players_fit_on_one_screen_in_large_type(chromium, server, shots):
    host_context = chromium.new_context(**SCREEN)
    try:
        host = host_context.new_page()
        create_party(host, SimpleNamespace(url=server.url), "Sixty at the Hall", SIXTY)
        party_url = re.sub(r"host/$", "", host.url)
        tv = host_context.new_page()  # the host's own browser: its link opens the TV
        tv.goto(party_url + "tv/")
        expect(tv.locator("body")).to_have_attribute("data-socket", "open")
        on_one_screen(tv, ".tv-seat-card", 15)
        assert font_px(tv.locator(".tv-seat").first) >= 24
        shots(tv, "tv-sixty-seats")

        host.get_by_role("button", name="Start round 1").click()
        expect(tv.locator("section.live-table")).to_have_count(15)
        expect(tv.locator("#bell-banner")).to_be_hidden(timeout=8000)
        on_one_screen(tv, "section.live-table", 15)
        points = tv.locator("section.live-table .side-points")
        assert min(font_px(points.nth(i)) for i in range(30)) >= 48
        assert font_px(tv.locator("#table-15 .side-names").first) >= 20

        # The host scores a roll at table 15 from its own page: the TV shows it.
        host.goto(party_url + "table/15/")
        Table(host, 15).tap("2 points")
        expect(tv.locator("#table-15 .side-points")).to_have_text(["2", "0"])
        shots(tv, "tv-sixty-in-play")
        host.goto(party_url + "host/")
        host.get_by_role("button", name="Ring the bell", exact=True).click()
        expect(tv.locator("#bell-banner")).to_be_visible()
        full_screen(tv)
        shots(tv, "tv-sixty-bell")
        expect(tv.locator("#bell-banner")).to_be_hidden(timeout=8000)
        expect(tv.locator("#table-15 .phase")).to_have_text("Bell! Finish your turn")
        on_one_screen(tv, "section.live-table", 15)
        shots(tv, "tv-sixty-after-the-bell")
        tv.emulate_media(color_scheme="dark")  # a TV set to a dark theme, or a dim room
        shots(tv, "tv-sixty-after-the-bell-dark")
    finally:
        host_context.close()


BIG_PARTY = """
import json
from parties.services.party import party_create
from scoring import PRESETS
party = party_create(
    name="The Convention Hall", player_names=[f"Guest {n}" for n in range(1, 401)],
    preset="standard", rules=PRESETS["standard"],
)
print(json.dumps({"id": party.id, "code": party.code}))
"""
START = (
    "from parties.models import Party; from parties.services.round import round_start; "
    "round_start(party=Party.objects.get(pk={id}))"
)


def manage_shell(server, code):
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code], cwd=ROOT, env=server.env,
        capture_output=True, text=True, check=True,
    )
    return done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""


def test_a_hundred_tables_fit_in_smaller_cards_and_their_seating_scrolls(chromium, server, shots):
    party = json.loads(manage_shell(server, BIG_PARTY))
    tv_context = chromium.new_context(**SCREEN)
    try:
        tv = tv_context.new_page()
        tv.goto(f"{server.url}/join/")
        tv.get_by_label("Party code").fill(party["code"])
        tv.get_by_role("button", name="Find the party").click()
        expect(tv).to_have_url(re.compile(rf"/parties/{party['id']}/$"))
        tv.goto(f"{server.url}/parties/{party['id']}/tv/")
        # 400 names do not fit one screen: the list scrolls down by itself.
        grid = tv.locator(".tv-seat-grid")
        expect(tv.locator(".tv-seat-card")).to_have_count(100)
        assert font_px(tv.locator(".tv-seat").first) >= 24
        shots(tv, "tv-hundred-seats-top")
        start = grid.bounding_box()["y"]
        # Half way down, without waiting a minute for it.
        tv.evaluate("document.getAnimations().forEach(a => { a.currentTime = 60000; })")
        assert grid.bounding_box()["y"] < start - 1000, "the seating did not scroll"
        shots(tv, "tv-hundred-seats-scrolled")

        manage_shell(server, START.format(id=party["id"]))
        tv.reload()
        on_one_screen(tv, "section.live-table", 100)
        assert font_px(tv.locator("#table-100 .side-points").first) >= 28
        assert font_px(tv.locator("#table-100 h3")) >= 14
        shots(tv, "tv-hundred-in-play")
    finally:
        tv_context.close()
