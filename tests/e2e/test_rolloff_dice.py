"""The house roll-off in a four-dice game, from the table's phone (docs/rules.md section 3:
`rolloff_dice_total` always throws three dice, even where the game uses four). The phone asks
for as many dice as the table's state says: four in play, three in the roll-off."""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import PHONE
from tests.e2e.test_live_round import Table
from tests.e2e.test_party_setup import TWELVE, chromium, link_url  # noqa: F401

pytestmark = pytest.mark.e2e


def test_a_four_dice_table_tied_at_the_bell_rolls_off_with_three_dice(chromium, server, shots):  # noqa: F811
    host = chromium.new_context(**PHONE).new_page()
    host.goto(server.url + "/parties/new/")
    host.get_by_label("Party name").fill("Four dice, ties by total")
    host.get_by_label("Players", exact=True).fill("\n".join(TWELVE))
    host.get_by_label("Rules preset").select_option("boxed4")
    host.get_by_text("Every rule, as the preset sets it").click()
    host.get_by_label("Tie break").select_option("rolloff_dice_total")
    host.get_by_role("button", name="Create the party").click()
    expect(host).to_have_url(re.compile(r"/parties/\d+/host/$"))

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

    # Table 2's holder finishes the turn with a miss (no 1 in round 1): 0-0, a roll-off.
    second.dice(2, 3, 4, 5)
    second.expect("rolloff", [0, 0])
    expect(second.live).to_have_attribute("data-dice", "3")
    expect(slots).to_have_count(3)
    expect(second.live.locator(".turn")).to_contain_text("rolls three dice")
    shots(second.page, "four-dice-rolloff-three-slots")
    second.dice(6, 6, 5)  # three faces are the whole roll: it goes at once
    expect(slots).to_have_count(3)
    second.dice(2, 2, 3)
    second.expect("done", [0, 0])
    expect(second.live.locator(".side-0 .side-result")).to_have_text("wins the roll-off")
