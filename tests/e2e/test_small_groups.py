"""Every small group, 2 to 10 players, on the boxed set's table plans, played from phones.

For each count the host types the names on a phone, sees the plan the party will use, picks
the boxed_small preset and creates the party. Every table's scorekeeper has a phone. In round
1 each table below the head enters 1 1 2 3 on the 4-dice face picker (2 points for seat 1);
then the head table's first roller calls a Bunco: 21, that table is won at once and the bell
rings everywhere (a Bunco ends the round at every table). The others finish the turn in hand
with a miss, and the round closes: every phone shows the new seats, which must be the seed's
moves (winners stay, losers move down, the last table goes to table 1). A player alone sees
no partner on their own phone. Whole nights are the simulator's job (tests/scoring).
"""

import re

import pytest
from playwright.sync_api import expect

from tests.devices import PHONE
from tests.e2e.phone import screen
from tests.e2e.test_live_round import Table, fits, seating_of
from tests.e2e.test_party_setup import TWELVE, chromium, link_url  # noqa: F401

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

# (seats, alone) per table, seed 000's "Table plans for 5 to 10 players" and one-table game.
PLANS = {
    2: [(2, True)],
    3: [(3, True)],
    4: [(4, True)],
    5: [(3, True), (2, True)],
    6: [(4, False), (2, True)],
    7: [(4, False), (3, True)],
    8: [(4, False), (4, False)],
    9: [(4, False), (3, True), (2, True)],
    10: [(4, False), (4, False), (2, True)],
}


def moved_to(count, table, won, tables):
    """The seed's moves for one player at 0-based `table`: winners stay, losers move down one,
    the last table's players go to table 1 (all of them for 5, 6, 9 and 10)."""
    if tables == 1:
        return table
    if table == tables - 1 and count in (5, 6, 9, 10):
        return 0
    return table if won else (table + 1) % tables


def create_with_plan(host, base, names, shots):
    host.goto(base + "/parties/new/")
    host.get_by_label("Party name").fill(f"{len(names)} at Bunco")
    host.get_by_label("Players", exact=True).fill("\n".join(names))
    preview = host.locator("#plan-preview")
    if len(names) >= 4:  # the standard rules first: teams and ghosts
        ghosts = (4 - len(names) % 4) % 4
        expect(preview).to_contain_text(f"{len(names)} players" + (" and" if ghosts else " sit"))
    else:  # ghosts need 4 players: the preview says so, and what to pick instead
        expect(preview.locator(".error")).to_contain_text("Teams with ghosts need at least 4")
    host.get_by_label("Rules preset").select_option("boxed_small")
    plan = PLANS[len(names)]
    rows = preview.locator(".plan-table")
    expect(rows).to_have_count(len(plan))
    for n, (size, alone) in enumerate(plan, start=1):
        words = f"{size} playing alone" if alone else "4 in two teams"
        expect(rows.nth(n - 1)).to_contain_text(f"Table {n}")
        expect(rows.nth(n - 1)).to_contain_text(words)
    expect(preview).not_to_contain_text("ghost")
    expect(host.locator("#id_small_group")).to_have_value("boxed_plans")
    expect(host.locator("#id_dice")).to_have_value("4")
    preview.scroll_into_view_if_needed()
    shots(host, "create-plan")
    host.get_by_role("button", name="Create the party").click()
    expect(host).to_have_url(re.compile(r"/parties/\d+/host/$"))



def scroll_to(page, selector):
    """Scroll an element into view for a screenshot, in one script run: the page's live
    refetch may replace it between Playwright's find and scroll (a detached element)."""
    page.evaluate("s => document.querySelector(s).scrollIntoView({block: 'nearest'})", selector)

@pytest.mark.parametrize("count", sorted(PLANS))
def test_each_small_group_plays_a_round_through_the_phones(chromium, server, shots, count):  # noqa: F811
    contexts = []

    def phone():
        context = chromium.new_context(**PHONE)
        contexts.append(context)
        return context.new_page()

    try:
        _play_round(phone, server.url, shots, count)
    finally:
        for context in contexts:
            context.close()


def _play_round(phone, base, shots, count):
    names = TWELVE[:count]
    plan = PLANS[count]
    host = phone()
    create_with_plan(host, base, names, shots)
    seats = seating_of(host, len(plan))
    assert [len(t) for t in seats] == [size for size, _ in plan]
    assert sorted(sum(seats, [])) == sorted(names)
    expect(host.locator(".badge.ghost")).to_have_count(0)
    for n, (_, alone) in enumerate(plan, start=1):
        card = host.locator(f"#seats-{n}")
        expect(card).to_have_class(re.compile(r"\bsolo\b") if alone else re.compile(r"^(?!.*\bsolo\b)"))
        expect(card.locator(".seat-partner")).to_have_count(0 if alone else 4)
    expect(host.locator("#roster")).to_have_count(0)  # no ghosts to come or go
    scroll_to(host, f"#seats-{len(plan)}")
    screen(shots, host, "host-seating")

    tables = {}
    for n in range(1, len(plan) + 1):
        page = phone()
        page.goto(link_url(host, f"Table {n}"))
        expect(page).to_have_url(re.compile(rf"/table/{n}/$"))
        tables[n] = Table(page, n)
    alone_name = next((t[0] for t, (_, a) in zip(seats, plan, strict=True) if a), None)
    player = phone()
    if alone_name:
        player.goto(link_url(host, alone_name))
        expect(player.locator("h1")).to_have_text(alone_name)
        expect(player.locator("#where")).not_to_contain_text("partner")
    for page in [host, player] + [t.page for t in tables.values()]:
        if page is not player or alone_name:
            expect(page.locator("body")).to_have_attribute("data-socket", "open")

    host.get_by_role("button", name="Start round 1").click()
    for n, table in tables.items():
        size, alone = plan[n - 1]
        table.expect("playing", [0] * (size if alone else 2), turn=seats[n - 1][0])
        names_shown = table.live.locator(".side-names")
        if alone:
            expect(names_shown).to_have_text(seats[n - 1])  # one side a player, no "&"
        else:
            t = seats[n - 1]
            expect(names_shown).to_have_text([f"{t[0]} & {t[2]}", f"{t[1]} & {t[3]}"])
        expect(table.page.locator("#entry")).to_have_attribute("data-dice", "4")
        scroll_to(table.page, f"#table-{n}")
        screen(shots, table.page, f"table-{n}-playing")

    # Below the head table: 1 1 2 3 on the face picker, 2 points for seat 1, still rolling.
    for n in range(2, len(plan) + 1):
        table = tables[n]
        size, alone = plan[n - 1]
        if (size, alone) == (3, True):  # the picker half-filled on a table of three alone
            for face in (1, 1):
                table.page.locator(f"#entry .face[data-face='{face}']").click()
            expect(table.page.locator("#entry .slots")).to_contain_text("1")
            table.page.evaluate("window.scrollTo(0, 0)")
            shots(table.page, f"table-{n}-alone-four-dice-picker")
            before = table.version()
            for face in (2, 3):
                table.page.locator(f"#entry .face[data-face='{face}']").click()
            table.saved(before)
        else:
            table.dice(1, 1, 2, 3)
        table.expect("playing", [2] + [0] * ((size if alone else 2) - 1), turn=seats[n - 1][0])
        fits(table.page)

    # The head table's first roller calls a Bunco: 21 wins the table at once, and the bell
    # rings at every table.
    head = tables[1]
    head_size, head_alone = plan[0]
    dialog, before = head.bunco(seats[0][0])
    dialog.get_by_role("button", name="Yes, they called it").click()
    head.saved(before)
    head_points = [21] + [0] * ((head_size if head_alone else 2) - 1)
    if len(plan) == 1:  # the one-table game: the round is over, nobody moves
        expect(host.locator(".controls .set-round")).to_contain_text("round 2 · target 2 · Waiting")
        expect(host.locator("#seats-1 .seat-name")).to_have_text(seats[0])
        shots(head.page, "one-table-round-2")
        _check_sheet(player, alone_name, "W")
        return
    head.expect("done", head_points)
    expect(head.live.locator(".side-0 .side-result")).to_have_text("wins")
    for n in range(2, len(plan) + 1):
        size, alone = plan[n - 1]
        tables[n].expect("finishing", [2] + [0] * ((size if alone else 2) - 1))
        shots(tables[n].page, f"table-{n}-bell")
    # Each finishes the turn in hand with a miss; the last one closes the round.
    for n in range(2, len(plan) + 1):
        tables[n].page.get_by_role("button", name="Nothing", exact=True).click()

    won = set()
    for t, (_, alone) in zip(seats, plan, strict=True):
        won |= {t[0]} if alone else {t[0], t[2]}  # seat 1's side won every table
    expected = [set() for _ in plan]
    for i, t in enumerate(seats):
        for p in t:
            expected[moved_to(count, i, p in won, len(plan))].add(p)
    expect(host.locator(".controls .set-round")).to_contain_text("round 2 · target 2 · Waiting")
    after = seating_of(host, len(plan))
    assert [set(t) for t in after] == expected
    assert [len(t) for t in after] == [size for size, _ in plan]
    for n, table in tables.items():
        expect(table.page.locator(f"#seats-{n} .seat-name")).to_have_text(after[n - 1])
        expect(table.page.locator(".set-round")).to_have_text("Set 1 · round 2")
    scroll_to(host, f"#seats-{len(plan)}")
    screen(shots, host, "host-round-2-seating")
    for n, (_, alone) in enumerate(plan, start=1):
        # A team table that kept its winners splits them: nobody keeps a partner.
        if not alone:
            t = after[n - 1]
            assert {frozenset((t[0], t[2])), frozenset((t[1], t[3]))}.isdisjoint(
                {frozenset((s[0], s[2])) for s in seats if len(s) == 4}
                | {frozenset((s[1], s[3])) for s in seats if len(s) == 4}
            )
    if alone_name:
        _check_sheet(player, alone_name, "W")
        where = next(n for n, t in enumerate(after, start=1) if alone_name in t)
        expect(player.locator("#where")).to_contain_text(f"round 2: table {where}")
        if plan[where - 1][1]:
            expect(player.locator("#where")).not_to_contain_text("partner")
        else:
            expect(player.locator("#where")).to_contain_text("partner")
        shots(player, "player-round-2")


def _check_sheet(player, name, mark):
    if not name:
        return
    sheet = player.locator("#sheet")
    expect(sheet.locator("table.sheet tbody tr")).to_have_count(1)
    expect(sheet.locator("table.sheet tbody tr td").nth(3)).to_have_text(mark)
