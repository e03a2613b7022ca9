"""The house roll-off in a four-dice game, from the table's phone (docs/rules.md section 3:
`rolloff_dice_total` always throws three dice, even where the game uses four). The phone asks
for as many dice as the table's state says: four in play, three in the roll-off."""

import pytest
from playwright.sync_api import expect

from tests.devices import PHONE
from tests.e2e.test_live_facts import create_with
from tests.e2e.test_live_round import Table
from tests.e2e.test_party_setup import TWELVE, chromium, link_url  # noqa: F401

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

READ_MS = 700  # longer than table.js's READ_GRACE_MS (600)


def read(table):
    table.page.wait_for_timeout(READ_MS)


def test_a_four_dice_table_tied_at_the_bell_rolls_off_with_three_dice(chromium, server, shots):  # noqa: F811
    host = chromium.new_context(**PHONE).new_page()
    create_with(
        host, server, "Four dice, ties by total", TWELVE, "boxed4",
        **{"Tie break": "rolloff_dice_total"},
    )

    tables = {}
    for number in (1, 2):
        page = chromium.new_context(**PHONE).new_page()
        page.goto(link_url(host, f"Table {number}"))
        expect(page.locator("body")).to_have_attribute("data-socket", "open")
        tables[number] = Table(page, number)
    head, second = tables[1], tables[2]
    slots = second.page.locator("#entry .slots .slot")

    host.get_by_role("button", name="Start round 1").click()
    second.expect("playing", [0, 0])
    expect(slots).to_have_count(4)

    # A Bunco at the head table wins it at once and rings the bell everywhere (boxed4).
    dialog, before = head.bunco(head.live.locator(".turn .roller-name").inner_text())
    dialog.get_by_role("button", name="Yes, they called it").click()
    head.saved(before)
    second.expect("finishing", [0, 0])

    # Table 2's holder finishes the turn with a miss (no 1 in round 1): 0-0, a roll-off. The
    # scorekeeper reads each change before entering the next roll, as a person does (the
    # phone takes a roll begun within READ_GRACE_MS of a change as begun before it).
    read(second)
    second.dice(2, 3, 4, 5)
    second.expect("rolloff", [0, 0])
    expect(second.live).to_have_attribute("data-dice", "3")
    expect(slots).to_have_count(3)
    expect(second.live.locator(".turn")).to_contain_text("rolls three dice")
    shots(second.page, "four-dice-rolloff-three-slots")
    read(second)
    second.dice(6, 6, 5)  # three faces are the whole roll: it goes at once
    expect(slots).to_have_count(3)
    read(second)
    second.dice(2, 2, 3)
    second.expect("done", [0, 0])
    expect(second.live.locator(".side-0 .side-result")).to_have_text("wins the roll-off")
