"""A traveling triple's mini Bunco and a reseat between sets, played from phones in Chromium.

With `traveling: triple` (2-2-2 takes the fuzzy die) a scorekeeper who taps "Mini Bunco" is
asked which number it was: a 2 gives the roller the fuzzy die on every page, a 4 at another
table does not. With `rotation: none` (the tournament preset) the host swaps two players'
seats before round 1 of set 2; the new seats show on the host's page and on a moved player's
phone, the reseat is listed with the corrections, and once that round has started a swap is
refused in words.
"""

import re

import pytest
from playwright.sync_api import expect

from tests.devices import LAPTOP, PHONE
from tests.e2e.test_live_round import Table, seating_of
from tests.e2e.test_party_setup import TWELVE, form_ready, link_url, settled_form

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

# Only helpers that tests/e2e had before these features are imported, so the file runs (and
# fails for the right reason) on older code too.
EIGHT = TWELVE[:8]


def listening(page):
    expect(page.locator("body")).to_have_attribute("data-socket", "open")
    return page


def screen(shots, page, label):
    """A screenshot of what the phone's screen shows (not the whole page)."""
    shots.count += 1
    page.screenshot(path=str(shots.folder / f"{shots.count:02d}-{label}-screen.png"))


def on_screen(page, locator, what):
    """`locator` is wholly inside the phone's screen as it is now (scrolled or not)."""
    box = locator.bounding_box()
    assert box is not None, f"{what} is not shown"
    size = page.viewport_size
    assert box["x"] >= 0 and box["y"] >= 0, f"{what} starts off the screen: {box}"
    assert box["x"] + box["width"] <= size["width"], f"{what} is wider than the screen: {box}"
    assert box["y"] + box["height"] <= size["height"], f"{what} ends below the screen: {box}"


def open_page(chromium, contexts, url=None, options=PHONE):
    """A new phone (or laptop) of its own; at `url`, with its socket open."""
    context = chromium.new_context(**options)
    contexts.append(context)
    page = context.new_page()
    if url:
        page.goto(url)
        listening(page)
    return page


def fuzzy_die(page, holder):
    """Every fuzzy die line the page shows names `holder`: the line on each table card in play
    (the page's own line is then hidden), else the page's line."""
    shown = page.locator(".fuzzy:visible")
    expect(shown.first).to_have_text(f"Fuzzy die: {holder}")
    assert set(shown.all_inner_texts()) == {f"Fuzzy die: {holder}"}, shown.all_inner_texts()


def create(page, server, name, players, preset, **options):
    """The create form at ?preset=`preset`, with some rules picked under "Every rule"."""
    page.goto(f"{server.url}/parties/new/?preset={preset}")
    form_ready(page)
    page.get_by_label("Party name").fill(name)
    page.get_by_label("Players", exact=True).fill("\n".join(players))
    page.get_by_text("Every rule, as the preset sets it").click()
    for label, value in options.items():
        page.get_by_role("combobox", name=label, exact=True).select_option(value)
    settled_form(page, len(players))
    page.get_by_role("button", name="Create the party").click()
    expect(page).to_have_url(re.compile(r"/parties/\d+/host/$"))


def mini_bunco(table, face):
    """The scorekeeper taps "Mini Bunco"; the phone asks which number; they pick `face`."""
    before = table.version()
    table.page.get_by_role("button", name="Mini Bunco", exact=True).click()
    picker = table.page.get_by_role("dialog", name="Which number was the mini Bunco?")
    expect(picker).to_be_visible()
    on_screen(table.page, picker, "the face picker")
    return picker, before


def test_a_mini_bunco_of_the_traveling_triple_gives_its_roller_the_fuzzy_die(
    chromium, server, shots
):
    contexts = []
    try:
        host = open_page(chromium, contexts, options=LAPTOP)
        # The create form from the standard preset, the fuzzy die to whoever rolls 2-2-2.
        create(host, server, "Triple Night", TWELVE, "standard",
               **{"Traveling": "triple", "Traveling triple": "2"})
        expect(host.locator("#rule-options dt:text-is(\"Traveling\") + dd")).to_have_text("triple")
        expect(host.locator("#rule-options dt:text-is(\"Traveling triple\") + dd")).to_have_text("2")
        seats = seating_of(host)
        roller, other = seats[0][0], seats[1][0]  # each table's seat 1 rolls first
        head = Table(open_page(chromium, contexts, link_url(host, "Table 1")), 1)
        t2 = Table(open_page(chromium, contexts, link_url(host, "Table 2")), 2)
        player = open_page(chromium, contexts, link_url(host, seats[2][1]))  # at table 3
        view = player.context.new_page()  # the party's view, on the same player's phone
        view.goto(re.sub(r"host/$", "", host.url))
        listening(view)
        fuzzy_die(player, "nobody yet")
        listening(host)
        host.get_by_role("button", name="Start round 1").click()
        head.expect("playing", [0, 0], turn=roller)
        t2.expect("playing", [0, 0], turn=other)

        # Table 1: a mini Bunco of 2s (target 1, so 2 is among the faces offered).
        picker, before = mini_bunco(head, 2)
        expect(picker.get_by_role("button")).to_have_text(["2", "3", "4", "5", "6", "Cancel"])
        shots(head.page, "table-1-face-picker")
        screen(shots, head.page, "table-1-face-picker")  # the phone's screen, as it shows it
        picker.get_by_role("button", name="2", exact=True).click()
        head.saved(before)
        expect(picker).to_be_hidden()
        head.expect("playing", [5, 0], turn=roller)  # a mini Bunco keeps the dice
        last = head.live.locator(".last-roll")
        expect(last).to_have_text(f"Last: {roller}: a mini Bunco of 2s = 5")
        expect(head.live.locator(".last-roll .dice-text")).to_have_count(0)  # no made-up dice
        expect(head.live.locator(".fuzzy")).to_have_text(f"Fuzzy die: {roller}")  # on its card
        for page in (head.page, player, view, host):
            fuzzy_die(page, roller)
        shots(head.page, "table-1-mini-bunco-of-2s")
        shots(player, "player-fuzzy-die")
        shots(view, "party-view-fuzzy-die")

        # Table 2: a mini Bunco of 4s. Its roller scores 5 but does not take the die.
        picker, before = mini_bunco(t2, 4)
        picker.get_by_role("button", name="4", exact=True).click()
        t2.saved(before)
        t2.expect("playing", [5, 0], turn=other)
        expect(t2.live.locator(".last-roll")).to_have_text(f"Last: {other}: a mini Bunco of 4s = 5")
        fuzzy_die(t2.page, roller)
        shots(t2.page, "table-2-mini-bunco-of-4s")
        for page in (player, view, host):
            page.reload()
            fuzzy_die(page, roller)
        # The host's roll list keeps both as tapped.
        rolls = host.locator("#rolls")
        expect(rolls).to_contain_text("a mini Bunco of 2s")
        expect(rolls).to_contain_text("a mini Bunco of 4s")
        shots(host, "host-after-two-mini-buncos")
    finally:
        for context in contexts:
            context.close()


def play_a_round_to_its_end(host, tables, number):
    """Round `number` of set 1: the host starts it; at each table the first roller scores a
    point; the host rings the bell; each roller finishes the turn with a miss (1-0-0-0)."""
    host.get_by_role("button", name=f"Start round {number}", exact=True).click()
    for table in tables:
        expect(table.page.locator(".round-head .set-round")).to_have_text(f"Set 1 · round {number}")
        expect(table.live).to_have_attribute("data-phase", "playing")
        table.tap("1 point")
    host.get_by_role("button", name="Ring the bell", exact=True).click()
    for table in tables:
        expect(table.live).to_have_attribute("data-phase", "finishing")
        table.tap("Nothing")  # done; the last table's miss closes the round


def test_the_host_reseats_players_between_sets_with_rotation_none(chromium, server, shots):
    contexts = []
    try:
        host = open_page(chromium, contexts, options=LAPTOP)
        # The tournament preset: individual play, rotation none, timed rounds, 2 sets.
        create(host, server, "Reseat Night", EIGHT, "tournament")
        expect(host.locator("#rule-options dt:text-is(\"Rotation\") + dd")).to_have_text("none")
        expect(host.locator("#rule-options dt:text-is(\"Sets\") + dd")).to_have_text("2")
        before = seating_of(host, tables=2)
        tables = [
            Table(open_page(chromium, contexts, link_url(host, f"Table {n}")), n) for n in (1, 2)
        ]
        # Set 1 from the phones: six rounds, each a point and a miss at each table around the
        # host's bell (about 1.5 s a round).
        listening(host)
        for number in range(1, 7):
            play_a_round_to_its_end(host, tables, number)
        expect(host.locator(".controls .set-round")).to_have_text(
            "Set 2 · round 1 · target 1 · Waiting to start"
        )
        assert seating_of(host, tables=2) == before  # rotation none: nobody moved

        # The players who will swap: seat 2 at table 1 and seat 3 at table 2.
        mover, other = before[0][1], before[1][2]
        phone = open_page(chromium, contexts, link_url(host, mover))
        expect(phone.locator("#where")).to_contain_text("Set 2, round 1: table 1, seat 2")
        seating = host.locator("#seating")
        expect(seating.locator(".reseat .help")).to_contain_text("Between sets: swap two")
        shots(host, "host-between-sets")
        # A refetch still due from the round's last rolls (at most 1 s after them) would draw
        # the form afresh between the choices and the click: start from a page with none due.
        host.reload()
        listening(host)
        seating = host.locator("#seating")
        seating.get_by_label("Swap").select_option(label=f"{mover} (table 1)")
        seating.get_by_label("with").select_option(label=f"{other} (table 2)")
        listening(host)
        seating.get_by_role("button", name="Swap seats").click()

        # The new seats on the host's page and on the moved player's phone.
        after = [list(t) for t in before]
        after[0][1], after[1][2] = other, mover
        for n in (1, 2):
            expect(host.locator(f"#seats-{n} .seat-name")).to_have_text(after[n - 1])
        expect(phone.locator("#where")).to_contain_text("Set 2, round 1: table 2, seat 3")
        shots(phone, "moved-player-where-to-sit")
        # The reseat is listed with the corrections, with what it changed (each player named
        # with the seat they now take).
        audit = host.locator("#corrections tr.correction")
        expect(audit).to_have_count(1)
        expect(audit.locator("td")).to_have_text([
            re.compile(r"^\d\d:\d\d$"), "host", "Set 2, round 1: Reseat",
            f"Set 2, round 1: {mover} and {other} swap seats; {mover} now sits at table 2, "
            f"seat 3, and {other} at table 1, seat 2",
        ])
        shots(host, "host-after-reseat")
        # The table phones show their new players too.
        expect(tables[1].page.locator("#seats-2 .seat-name")).to_have_text(after[1])

        # A second tab of the host's, opened now, hears nothing more (its socket goes nowhere):
        # a page left open while the round starts elsewhere.
        stale = host.context.new_page()
        stale.route_web_socket(re.compile(r"/ws/"), lambda ws: None)
        stale.goto(host.url)
        expect(stale.get_by_role("button", name="Swap seats")).to_be_visible()
        host.get_by_role("button", name="Start round 1", exact=True).click()
        expect(host.locator("#fact-stage")).to_have_text("Set 2, round 1 in play")
        # The host's page offers no swap now, and says when one can be made.
        expect(host.get_by_role("button", name="Swap seats")).to_have_count(0)
        expect(host.locator("#seating")).to_contain_text(
            "Between sets, before round 1, you can swap players' seats here."
        )
        # The stale tab tries: refused, in words, and nobody moves.
        stale_seating = stale.locator("#seating")
        stale_seating.get_by_label("Swap").select_option(label=f"{other} (table 1)")
        stale_seating.get_by_label("with").select_option(label=f"{mover} (table 2)")
        stale_seating.get_by_role("button", name="Swap seats").click()
        # The answer goes into the page's seating section (the rest of the host's page stays).
        expect(stale.locator("#live #seating .message")).to_have_text(
            "Round 1 has started: its scorekeeper and seats stay until it ends."
        )
        expect(stale.locator("h1")).to_have_text("Reseat Night")
        expect(stale.locator("#links")).to_be_attached()
        expect(stale.get_by_role("button", name="Swap seats")).to_have_count(0)
        shots(stale, "stale-tab-swap-refused")
        host.reload()
        for n in (1, 2):
            expect(host.locator(f"#seats-{n} .seat-name")).to_have_text(after[n - 1])
        expect(host.locator("#corrections tr.correction")).to_have_count(1)
        expect(phone.locator("#where")).to_contain_text("Set 2, round 1: table 2, seat 3")
    finally:
        for context in contexts:
            context.close()
