"""Helpers for the table phone's browser tests: a party in play, a scorekeeper's phone at a
given screen size, and what is on its screen."""

import re
from types import SimpleNamespace

from playwright.sync_api import expect

from tests.devices import PHONE
from tests.e2e.test_party_setup import TWELVE, create_party, link_url

SIZES = {"360x740": {"width": 360, "height": 740}, "320x568": {"width": 320, "height": 568}}


def phone_context(chromium, size="360x740"):
    return chromium.new_context(**{**PHONE, "viewport": SIZES[size]})


def new_party(chromium, server, preset=None, name="Phone Night"):
    """A twelve-player party set up by a host (a phone): (host page, table 1's link)."""
    host = phone_context(chromium).new_page()
    create_party(host, SimpleNamespace(url=server.url), name, TWELVE, preset=preset)
    return host, link_url(host, "Table 1")


def start_round(host):
    host.get_by_role("button", name=re.compile(r"^Start round \d+$")).click()
    expect(host.locator(".controls .set-round")).to_contain_text("Playing")


def scorekeeper(chromium, url, size="360x740", context=None):
    """Table 1's phone, listening."""
    context = context or phone_context(chromium, size)
    page = context.new_page()
    page.goto(url)
    expect(page).to_have_url(re.compile(r"/table/1/$"))
    expect(page.locator("body")).to_have_attribute("data-socket", "open")
    return page


def table(page):
    return page.locator("section#table-1")


def version(page):
    return int(table(page).get_attribute("data-version"))


def points(page):
    return [int(p) for p in table(page).locator(".side-points").all_inner_texts()]


def tap(page, label):
    page.get_by_role("button", name=label, exact=True).click()


def in_viewport(page, locator, what):
    """`locator` is wholly on screen, with the page not scrolled."""
    assert page.evaluate("window.scrollY") == 0, "the page was scrolled"
    box = locator.bounding_box()
    assert box is not None, f"{what} is not shown"
    size = page.viewport_size
    assert box["y"] >= 0 and box["x"] >= 0, f"{what} starts above or left of the screen: {box}"
    assert box["y"] + box["height"] <= size["height"], (
        f"{what} ends at {box['y'] + box['height']:.0f}px, below the {size['height']}px screen"
    )
    assert box["x"] + box["width"] <= size["width"], f"{what} is wider than the screen: {box}"


def both_sizes(shots, page, label):
    """Screenshots of the page as it is now at 360x740 and at 320x568 (then back): the whole
    page, and the screen as the phone shows it unscrolled (where the fixed bar sits)."""
    before = page.viewport_size
    for name, size in SIZES.items():
        page.set_viewport_size(size)
        page.wait_for_timeout(100)
        shots(page, f"{label}-{name}")
        screen(shots, page, f"{label}-{name}")
    page.set_viewport_size(before)


def screen(shots, page, label):
    """A screenshot of what the phone's screen shows (not the whole page)."""
    shots.count += 1
    page.screenshot(path=str(shots.folder / f"{shots.count:02d}-{label}-screen.png"))
