"""Fixing mistakes from real phones: the scorekeeper's Undo takes back the roll that closed the
round (the round reopens on every phone), and the host corrects a roll of a closed round (the
W/L marks, the results and the waiting round's seats follow, and the change is listed)."""

import re
from types import SimpleNamespace

import pytest
from playwright.sync_api import expect

from tests.devices import PHONE
from tests.e2e.test_live_round import Table, ladder, seating_of
from tests.e2e.test_party_setup import TWELVE, create_party, link_url

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def party_on_phones(chromium, server, name, follow):
    """The host, the three tables' phones and the phone of the player at `follow` (table,
    seat index), every socket open, round 1 started."""
    phone = lambda: chromium.new_context(**PHONE).new_page()  # noqa: E731
    host = phone()
    create_party(host, SimpleNamespace(url=server.url), name, TWELVE)
    seats = seating_of(host)
    tables = {}
    for n in (1, 2, 3):
        page = phone()
        page.goto(link_url(host, f"Table {n}"))
        expect(page).to_have_url(re.compile(rf"/table/{n}/$"))
        tables[n] = Table(page, n)
    me = seats[follow[0] - 1][follow[1]]
    player = phone()
    player.goto(link_url(host, me))
    for page in [host, player] + [t.page for t in tables.values()]:
        expect(page.locator("body")).to_have_attribute("data-socket", "open")
    host.get_by_role("button", name="Start round 1").click()
    for table in tables.values():
        table.expect("playing", [0, 0])
    return host, tables, player, seats, me


def ring_at_the_head_table(head, seats):
    dialog, before = head.bunco(seats[0][0])
    dialog.get_by_role("button", name="Yes, they called it").click()
    head.saved(before)
    head.tap("Nothing")  # the ringer finishes their turn: the head table is done, 21-0
    head.expect("done", [21, 0])


def test_undo_of_the_round_closing_roll_reopens_the_round_on_every_phone(
    chromium, server, shots
):
    host, tables, player, seats, me = party_on_phones(chromium, server, "Undo Night", (3, 0))
    head, t2, t3 = tables[1], tables[2], tables[3]
    ring_at_the_head_table(head, seats)
    t2.tap("1 point")  # each holder finishes: a point, then a miss
    t2.tap("Nothing")
    t2.expect("done", [1, 0])
    t3.tap("1 point")
    t3.page.get_by_role("button", name="Nothing", exact=True).click()  # closes the round
    expect(t3.page.locator(".set-round")).to_have_text("Set 1 · round 2")
    expect(player.locator("#where")).to_contain_text("Set 1, round 2")
    undo = t3.page.get_by_role("button", name="Undo last roll (reopens round 1)")
    expect(undo).to_be_visible()
    shots(t3.page, "table-3-waiting-with-undo")
    undo.click()
    # Round 1 is in play again: table 3 is finishing its turn with its point, on its own phone
    # and on the player's.
    expect(t3.page.locator(".set-round")).to_have_text("Set 1 · round 1")
    t3.expect("finishing", [1, 0])
    expect(player.locator("#where")).to_contain_text("Set 1, round 1: table 3")
    expect(player.locator("section#table-3")).to_have_attribute("data-phase", "finishing")
    expect(player.locator(".banner.wait")).to_have_count(0)
    # The "Round over!" every phone heard is taken back in words (here on the host's page; a
    # player whose seat moved was reconnecting to its new table and refetched instead).
    expect(host.locator("#bell-banner")).to_have_text(
        "A roll was taken back: the round is in play again."
    )
    expect(host.locator(".controls .set-round")).to_contain_text("round 1 · target 1 · Playing")
    expect(host.locator("#corrections")).to_contain_text("table 3")
    shots(t3.page, "table-3-round-1-reopened")
    shots(player, "player-round-1-reopened")
    shots(host, "host-round-1-reopened")
    t3.tap("Nothing")  # entered again, it closes the round again
    expect(player.locator("#where")).to_contain_text("Set 1, round 2")


def test_a_host_correction_in_a_closed_round_flips_a_table_everywhere(chromium, server, shots):
    # Table 2: seat 1 misses; seat 2 scores a point and misses; the bell; seat 3 finishes
    # with 2 points and a miss: 2-1 to seats 1 and 3. The host then corrects seat 2's point:
    # it was a called Bunco, so seats 2 and 4 win 21-2.
    host, tables, player, seats, me = party_on_phones(chromium, server, "Fix Night", (2, 1))
    head, t2, t3 = tables[1], tables[2], tables[3]
    t2.tap("Nothing")
    t2.tap("1 point")
    t2.tap("Nothing")
    ring_at_the_head_table(head, seats)
    t2.tap("2 points")
    t2.tap("Nothing")
    t2.expect("done", [2, 1])
    t3.tap("1 point")
    t3.page.get_by_role("button", name="Nothing", exact=True).click()  # closes the round
    expect(player.locator("#where")).to_contain_text("Set 1, round 2")
    sheet = player.locator("#sheet table.sheet tbody tr td")
    expect(sheet).to_have_text(["1", "1", "2", "L", "0", "0", "1"])
    host.reload()
    for n in (1, 2, 3):
        expect(host.locator(f"#seats-{n} .seat-name")).to_have_text(ladder(seats, [0, 0, 0])[n - 1])

    rolls = host.locator("#rolls details", has_text="Set 1, round 1")
    row = rolls.locator("tr", has_text=seats[1][1]).filter(has_text="1 point")
    expect(row).to_have_count(1)
    shots(host, "host-rolls-of-closed-round")
    row.get_by_role("link", name="Correct").click()
    host.get_by_label("The dice").fill("1 1 1")
    shots(host, "host-correct-form")
    host.get_by_role("button", name="Show what it changes").click()
    preview = host.locator("#correct-preview")
    expect(preview).to_contain_text(f"{seats[1][1]} & {seats[1][3]} now win")
    shots(host, "host-correct-preview")
    preview.get_by_role("button", name="Yes, correct it").click()
    expect(host).to_have_url(re.compile(r"/host/(#rolls)?$"))
    message = host.locator(".messages")
    expect(message).to_contain_text("The roll was corrected.")
    expect(message).to_contain_text(f"{seats[1][1]} & {seats[1][3]} now win")
    after = ladder(seats, [0, 1, 0])
    for n in (1, 2, 3):
        expect(host.locator(f"#seats-{n} .seat-name")).to_have_text(after[n - 1])
    audit = host.locator("#corrections tr.correction")
    expect(audit).to_have_count(1)
    expect(audit).to_contain_text("now win")
    expect(audit).to_contain_text("host")
    shots(host, "host-after-correction")

    # The player's sheet (seat 2 at table 2) now has a W and the Bunco, and a new seat.
    expect(sheet).to_have_text(["1", "1", "2", "W", "1", "0", "21"])
    table = next(n for n in (1, 2, 3) if me in after[n - 1])
    expect(player.locator("#where")).to_contain_text(f"Set 1, round 2: table {table}")
    shots(player, "player-sheet-after-correction")
    results = chromium.new_context(**PHONE).new_page()
    results.context.add_cookies(host.context.cookies())
    results.goto(host.url.split("/host/")[0] + "/results/")
    row = results.locator("table.standings tr", has_text=me)
    expect(row.locator("td")).to_have_text([me, "1", "0", "1", "0", "21"])
    expect(results.locator("#corrections")).to_contain_text("now win")
    shots(results, "results-after-correction")


def test_a_corrected_roll_leaves_the_later_rolls_with_their_players_on_every_screen(
    chromium, server, shots
):
    # A real night's table: Gail "2 points", Gail "nothing", Hope "1 point", Hope "nothing";
    # the host corrects Gail's 2 points to nothing. The host sees what it changes under each
    # choice first; kept as entered, Hope's point stays Hope's on every screen.
    host, tables, player, seats, me = party_on_phones(chromium, server, "Gail Night", (2, 1))
    t2 = tables[2]
    gail, hope = seats[1][0], seats[1][1]
    for button in ("2 points", "Nothing", "1 point", "Nothing"):
        t2.tap(button)
    t2.expect("playing", [2, 1])
    host.reload()
    rows = host.locator("#rolls details", has_text="Set 1, round 1").locator("tr[id^=roll-]")
    expect(rows.locator("td:first-child")).to_have_text([gail, gail, hope, hope])
    rows.filter(has_text="2 points").get_by_role("link", name="Correct").click()
    host.get_by_label("or what it scored").select_option(label="Nothing")
    host.get_by_role("button", name="Show what it changes").click()
    preview = host.locator("#correct-preview")
    choices = preview.locator("fieldset.choice")
    expect(choices).to_have_count(2)
    expect(choices.nth(0)).to_contain_text(f"{gail} 2 → 0")
    expect(choices.nth(0)).not_to_contain_text(f"{hope}'s roll")
    expect(choices.nth(1)).to_contain_text(f"{hope}'s roll (1 point) is now")
    shots(host, "host-correct-two-choices")
    choices.nth(0).get_by_role("button", name="Correct it this way").click()
    expect(host.locator(".messages")).to_contain_text("The roll was corrected.")
    t2.expect("playing", [0, 1])
    rows = host.locator("#rolls details", has_text="Set 1, round 1").locator("tr[id^=roll-]")
    expect(rows.locator("td:first-child")).to_have_text([gail, gail, hope, hope])
    expect(rows.locator("td.entry")).to_have_text(["nothing", "nothing", "1 point", "nothing"])
    shots(host, "host-rolls-after-correction")
