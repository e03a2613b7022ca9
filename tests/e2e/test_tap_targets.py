"""Every control a person taps is at least 44 CSS pixels high (WCAG 2.5.5's size, the one the
platforms ask for) on the pages a party uses, at a phone's 360x740: the table's phone in
play, a player's sheet, the host's page and the results with the pot form."""

from types import SimpleNamespace

import pytest
from playwright.sync_api import expect

from tests.e2e.phone import phone_context, scorekeeper, start_round
from tests.e2e.test_party_setup import TWELVE, create_party, link_url

pytestmark = pytest.mark.e2e

CONTROLS = """() => [...document.querySelectorAll(
    'button, .button, summary, input[type=radio], input[type=checkbox], select')]
  .filter((el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden'
    && !el.closest('dialog:not([open]), template'))
  .map((el) => {
    const target = el.matches('input[type=radio], input[type=checkbox]') && el.closest('label')
      ? el.closest('label') : el;  // a box or dot is tapped through its whole label
    const box = target.getBoundingClientRect();
    return [target.textContent.trim().slice(0, 30) || el.outerHTML.slice(0, 60),
            Math.round(box.height * 10) / 10];
  })"""


def _small(page):
    return [(name, height) for name, height in page.evaluate(CONTROLS) if height < 44]


def test_every_control_on_the_partys_pages_is_at_least_44_pixels_high(chromium, server, shots):
    host = phone_context(chromium).new_page()
    create_party(host, SimpleNamespace(url=server.url), "Reach Night", TWELVE)
    party_url = host.url.removesuffix("host/")
    player = phone_context(chromium).new_page()
    player.goto(link_url(host, "Ann"))
    start_round(host)
    table = scorekeeper(chromium, link_url(host, "Table 1"))
    table.locator(".sound-off").click()
    expect(table.locator("section#table-1")).to_have_attribute("data-phase", "playing")
    pages = {"table": table, "player": player, "host": host}
    for name, page in pages.items():
        page.reload()
        expect(page.locator("body")).to_have_attribute("data-socket", "open")
        assert _small(page) == [], name
    host.goto(party_url + "results/")
    expect(host.get_by_role("button", name="Save the pot")).to_be_visible()
    assert _small(host) == [], "results"
    shots(table, "table-in-play")
