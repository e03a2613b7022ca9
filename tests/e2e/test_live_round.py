"""A whole round of a twelve-player party, played from phones in Chromium.

A host, the three tables' scorekeepers and one player each have their own phone (a browser
context of their own). The head table rolls a Bunco: 21 points, the bell on every phone. The
tables finish their turns (at table 3, with no roll entered yet, the scorekeeper holds the dice
and finishes that turn too), table 3 ties 0-0 and rolls off, and the round closes:
the player's phone shows the W and the new seat, every table shows its four new players.

The same round is played twice: on the test server (SQLite and one process in the default
run), and on the production topology (PostgreSQL, Redis, two daphne processes, the head
table's phone on one process and every other phone on the other).
"""

import re
from types import SimpleNamespace

import pytest
from playwright.sync_api import expect

from tests.devices import PHONE
from tests.e2e.test_party_setup import TWELVE, create_party, link_url

pytestmark = pytest.mark.e2e


def fits(page):
    """The page fits the phone's width: nothing to scroll sideways to."""
    # A mobile browser zooms out to show what overflows, so compare with the phone's width.
    extra = page.evaluate("document.documentElement.scrollWidth") - page.viewport_size["width"]
    assert extra <= 0, f"{page.url} is {extra}px wider than the phone"


def on(base, url):
    """The same link on another server process (same path, that process's origin)."""
    return base + re.sub(r"^https?://[^/]+", "", url)


def seating_of(host, tables=3):
    """Each table's players in seat order, as the host page shows them."""
    return [host.locator(f"#seats-{n} .seat-name").all_inner_texts() for n in range(1, tables + 1)]


def ladder(seating, winners):
    """docs/rules.md 5, `ladder` with `new_every_round`, written out for three tables: head winners
    stay and meet table 2's winners; table 2 gets the head losers and table 3's winners; table 3
    keeps its losers and gets table 2's losers. At each table the pair that stayed (else the
    one from above) takes seats 1 and 2, the other pair seats 3 and 4, so partners change."""
    won = [(t[w], t[w + 2]) for t, w in zip(seating, winners, strict=True)]
    lost = [(t[1 - w], t[3 - w]) for t, w in zip(seating, winners, strict=True)]
    pairs = [(won[0], won[1]), (lost[0], won[2]), (lost[2], lost[1])]
    return [[x[0], x[1], y[0], y[1]] for x, y in pairs]


class Table:
    """One scorekeeper's phone."""

    def __init__(self, page, number):
        self.page = page
        self.number = number
        self.live = page.locator(f"section#table-{number}")

    def version(self):
        return int(self.live.get_attribute("data-version"))

    def saved(self, before):
        # Each roll moves the table's version on by one; the new fragment arrives by websocket.
        expect(self.live).to_have_attribute("data-version", str(before + 1))
        expect(self.page.locator(".outbox .tap.pending")).to_have_count(0)

    def tap(self, button):
        before = self.version()
        self.page.get_by_role("button", name=button, exact=True).click()
        self.saved(before)

    def dice(self, *faces):
        before = self.version()
        for face in faces:
            self.page.locator(f"#entry .face[data-face='{face}']").click()
        self.saved(before)

    def bunco(self, roller):
        before = self.version()
        self.page.get_by_role("button", name="BUNCO!", exact=True).click()
        dialog = self.page.locator("dialog.call-dialog")
        expect(dialog).to_be_visible()
        expect(dialog.locator(".call-question")).to_have_text(f"Did {roller} call “Bunco!”?")
        return dialog, before

    def expect(self, phase, points, turn=None):
        expect(self.live).to_have_attribute("data-phase", phase)
        expect(self.live.locator(".side-points")).to_have_text([str(p) for p in points])
        if turn is not None:
            expect(self.live.locator(".turn .roller-name")).to_have_text(turn)


def play_a_round(chromium, shots, host_base, head_base=None):
    """The round, with the head table's phone on `head_base` and every other phone on
    `host_base` (the same server unless the test says otherwise)."""
    head_base = head_base or host_base
    contexts = []

    def phone():
        context = chromium.new_context(**PHONE)
        contexts.append(context)
        return context.new_page()

    try:
        _play(phone, shots, host_base, head_base)
    finally:
        for context in contexts:
            context.close()


def _play(phone, shots, host_base, head_base):
    # The host creates the party and hands out the links.
    host = phone()
    create_party(host, SimpleNamespace(url=host_base), "Round One", TWELVE)
    seats = seating_of(host)
    assert sorted(sum(seats, [])) == sorted(TWELVE)
    me = seats[2][0]  # the player we follow: seat 1 at table 3, the table that will tie
    urls = {n: link_url(host, f"Table {n}") for n in (1, 2, 3)}
    me_url = link_url(host, me)

    tables = {}
    for n in (1, 2, 3):
        page = phone()
        page.goto(on(head_base if n == 1 else host_base, urls[n]))
        expect(page).to_have_url(re.compile(rf"/table/{n}/$"))
        expect(page.locator(f"#seats-{n} .seat-name")).to_have_text(seats[n - 1])
        tables[n] = Table(page, n)
    head, t2, t3 = tables[1], tables[2], tables[3]
    assert head.page.url.startswith(head_base + "/")
    assert all(p.url.startswith(host_base + "/") for p in (host, t2.page, t3.page))
    player = phone()
    player.goto(on(host_base, me_url))
    expect(player.locator("h1")).to_have_text(me)
    expect(player.locator("#where")).to_have_text(
        f"Set 1, round 1: table 3, seat 1, partner: {seats[2][2]}"
    )
    expect(head.page.get_by_role("button", name="Ring the bell to start round 1")).to_be_visible()
    expect(t2.page.get_by_role("button", name="Ring the bell to start round 1")).to_have_count(0)
    everyone = [host, head.page, t2.page, t3.page, player]
    for page in everyone:  # every phone listens before anything happens
        expect(page.locator("body")).to_have_attribute("data-socket", "open")
    shots(head.page, "head-table-waiting")

    # The host starts round 1; every phone hears it and shows the round's live table.
    host.get_by_role("button", name="Start round 1").click()
    expect(host.locator(".controls .set-round")).to_contain_text("round 1 · target 1 · Playing")
    expect(host.locator(".live-tables section.live-table")).to_have_count(3)
    for table in tables.values():
        table.expect("playing", [0, 0], turn=seats[table.number - 1][0])
        expect(table.page.locator(".round-head .target")).to_have_text("Target 1")
        expect(table.page.get_by_role("button", name="Nothing", exact=True)).to_be_visible()
    expect(player.locator("section#table-3")).to_have_attribute("data-phase", "playing")
    shots(host, "host-round-1-started")
    shots(head.page, "head-table-playing")

    # Table 2: seat 1 scores a point, misses; seat 2 taps the dice 1 1 4 (2 points) and is
    # still rolling when the bell rings. Table 3 rolls nothing at all.
    t2.tap("1 point")
    t2.expect("playing", [1, 0], turn=seats[1][0])
    t2.tap("Nothing")
    t2.expect("playing", [1, 0], turn=seats[1][1])
    t2.dice(1, 1, 4)
    t2.expect("playing", [1, 2], turn=seats[1][1])
    expect(t2.live.locator(".last-roll")).to_have_text(
        f"Last: {seats[1][1]} rolled 1 1 4 = 2 (points)"
    )
    expect(t2.live.locator(".turn")).to_contain_text("2 this turn")
    shots(t2.page, "table-2-mid-turn")

    # The head table: 2 points, then a called Bunco: 23, past 21, and the bell rings.
    head.tap("2 points")
    head.expect("playing", [2, 0], turn=seats[0][0])
    dialog, before = head.bunco(seats[0][0])
    shots(head.page, "head-table-bunco-called")
    dialog.get_by_role("button", name="Yes, they called it").click()
    head.saved(before)
    # The bell, on every phone at once: the banner, and each phone's view of the round after it.
    # (The banner hides itself after 8 s, so it is checked on every phone first.)
    after_bell = {
        "host": lambda: (
            expect(host.get_by_role("button", name="Ring the bell", exact=True)).to_have_count(0),
            expect(host.locator("#table-1 .phase")).to_have_text("Bell! Finish your turn"),
            expect(host.locator("#table-2 .phase")).to_have_text("Bell! Finish your turn"),
            expect(host.locator("#table-3 .phase")).to_have_text("Bell! Finish your turn"),
        ),
        "head": lambda: head.expect("finishing", [23, 0], turn=seats[0][0]),
        "table-2": lambda: t2.expect("finishing", [1, 2], turn=seats[1][1]),
        # No roll entered at table 3 yet: its scorekeeper holds the dice and finishes that turn.
        "table-3": lambda: t3.expect("finishing", [0, 0], turn=seats[2][0]),
        "player": lambda: expect(player.locator("#table-3 .phase")).to_have_text(
            "Bell! Finish your turn"
        ),
    }
    for page in everyone:
        expect(page.locator("body")).to_have_attribute("data-bells", "1")
        expect(page.locator("#bell-banner")).to_be_visible()
        expect(page.locator("#bell-banner")).to_have_text(
            "Bell! Finish your turn; the round is ending."
        )
    for page, (label, check) in zip(everyone, after_bell.items(), strict=True):
        check()
        fits(page)
        shots(page, f"bell-{label}")
    # A quick button's roll reads as what was tapped, never as dice made up for it.
    expect(head.live.locator(".last-roll")).to_have_text(f"Last: {seats[0][0]}: Bunco")
    expect(head.live.locator(".finish-note")).to_have_text(
        "The bell has rung: finish this turn, then the table is done."
    )
    expect(t3.live.locator(".finish-note")).to_contain_text("The bell has rung")

    # Everyone finishes the turn in hand. The bell ringer's point while finishing counts.
    head.tap("1 point")
    head.expect("finishing", [24, 0])
    head.tap("Nothing")
    head.expect("done", [24, 0])
    expect(head.live.locator(".side-0 .side-result")).to_have_text("wins")
    expect(head.page.locator("#entry .quick")).to_be_hidden()
    shots(head.page, "head-table-done")
    t2.tap("Nothing")
    t2.expect("done", [1, 2])
    expect(t2.live.locator(".side-1 .side-result")).to_have_text("wins")
    expect(t2.live.locator(".side-0 .side-result")).to_have_count(0)
    shots(t2.page, "table-2-done")
    expect(host.locator("#table-2")).to_have_attribute("data-phase", "done")

    # Table 3's scorekeeper finishes the turn with a miss: 0-0, a tie. The roll-off: one turn
    # each, starting with the scorekeeper. Seat 1 scores a point.
    t3.tap("Nothing")
    t3.expect("rolloff", [0, 0], turn=seats[2][0])
    expect(t3.live.locator(".finish-note")).to_contain_text("Tied!")
    expect(player.locator("#table-3 .phase")).to_have_text("Tie: roll-off")
    shots(t3.page, "table-3-rolloff")
    t3.tap("1 point")
    expect(t3.live.locator(".side-0 .side-rolloff")).to_have_text("roll-off: 1")
    t3.expect("rolloff", [0, 0], turn=seats[2][0])
    expect(player.locator("#table-3 .side-0 .side-rolloff")).to_have_text("roll-off: 1")
    shots(player, "player-sees-rolloff")
    for seat in range(4):
        expect(t3.live.locator(".turn .roller-name")).to_have_text(seats[2][seat])
        if seat == 3:
            break
        t3.tap("Nothing")
    # The last miss closes the round: the "round over" bell, then everyone's new seat.
    t3.page.get_by_role("button", name="Nothing", exact=True).click()

    winners = [0, 1, 0]  # seats 1+3 won at the head table and (by the roll-off) at table 3
    after = ladder(seats, winners)
    for page in everyone:
        expect(page.locator("body")).to_have_attribute("data-bells", "2")
        expect(page.locator(".banner.wait")).to_have_text(
            "Everyone seated? Press Start round 2 to begin set 1, round 2."
            if page is host
            else "Waiting for the bell to start set 1, round 2."
        )
    expect(player.locator("#bell-banner")).to_have_text("Round over! See where to sit next.")
    seat = after[1].index(me) + 1
    assert (after[1], seat) == ([seats[0][1], seats[0][3], seats[2][0], seats[2][2]], 3)
    partner = after[1][(seat - 1 + 2) % 4]
    expect(player.locator("#where")).to_have_text(
        f"Set 1, round 2: table 2, seat {seat}, partner: {partner}"
    )
    sheet = player.locator("#sheet")
    expect(sheet.locator("table.sheet tbody tr")).to_have_count(1)
    expect(sheet.locator("table.sheet tbody tr td")).to_have_text(
        ["1", "1", "3", "W", "0", "0", "0"]
    )
    expect(sheet.locator(".totals div", has_text="Wins").locator("dd")).to_have_text("1")
    expect(sheet.locator(".totals div", has_text="Losses").locator("dd")).to_have_text("0")
    shots(player, "player-round-2-seat")
    for table in tables.values():
        card = table.page.locator(f"#seats-{table.number}")
        expect(card.locator(".seat-name")).to_have_text(after[table.number - 1])
        expect(table.page.locator(".set-round")).to_have_text("Set 1 · round 2")
        expect(table.page.locator(".round-head .target")).to_have_text("Target 2")
        expect(table.live).to_have_count(0)
        shots(table.page, f"table-{table.number}-round-2")
    expect(head.page.get_by_role("button", name="Ring the bell to start round 2")).to_be_visible()
    expect(host.locator(".controls .set-round")).to_contain_text("round 2 · target 2 · Waiting")
    for n in (1, 2, 3):
        expect(host.locator(f"#seats-{n} .seat-name")).to_have_text(after[n - 1])
    shots(host, "host-round-2-seating")
    for page in everyone:
        fits(page)


def test_a_twelve_player_round_from_the_first_roll_to_the_new_seats(chromium, server, shots):
    play_a_round(chromium, shots, server.url)


@pytest.mark.slow  # the faults tier plays on this topology; the default tier's fault scenario too
def test_the_same_round_on_postgres_redis_and_two_server_processes(chromium, production, shots):
    head_process, other_process = production
    assert head_process.port != other_process.port
    assert head_process.env["DATABASE_URL"].startswith("postgres")
    assert head_process.env["REDIS_URL"].startswith("redis://")
    assert head_process.process.pid != other_process.process.pid
    play_a_round(chromium, shots, other_process.url, head_base=head_process.url)
