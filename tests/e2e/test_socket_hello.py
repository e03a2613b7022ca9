"""A page rendered just before a change, whose socket joined just after it, still shows it: the
socket's first message (the hello) says what the party is at, and the page refetches."""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.phone import new_party, phone_context, start_round

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_a_round_started_while_the_table_page_was_opening_its_socket_shows_as_started(
    chromium, server, shots
):
    host, url = new_party(chromium, server, name="Late Socket")
    page = phone_context(chromium).new_page()
    # The page's socket: open as far as the page knows (Playwright answers it), joined to
    # the server only once the round has started, as a socket that joined its groups late.
    held = []
    page.route_web_socket(re.compile(r"/ws/parties/"), lambda ws: held.append(ws))
    page.goto(url)
    expect(page).to_have_url(re.compile(r"/table/1/$"))
    expect(page.locator("#live")).to_have_attribute("data-round-status", "setup")
    for _ in range(100):  # the page asks for its socket once loaded (Playwright's calls
        if held:           # are when its handler runs)
            break
        page.wait_for_timeout(50)
    assert len(held) == 1, "the page never opened its socket"

    start_round(host)  # announced to every socket of the party: this page has none yet
    held[0].connect_to_server()  # messages pass through unchanged from here on

    expect(page.locator("body")).to_have_attribute("data-socket", "open")
    expect(page.locator("#live")).to_have_attribute("data-round-status", "playing")
    shots(page, "table-after-a-late-socket")
