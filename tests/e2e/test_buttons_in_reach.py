"""Every tap button in reach on a real phone's screen, at every kind of table, in every state.

Real phones show fewer than 740 CSS pixels once the browser's own bars are drawn. At 360x640 and
390x664, at a table of two teams, a table of three playing alone (the boxed set's small-group
plan for five) and a four-dice table, every die face and quick button is on the screen, above
the fixed tap bar and not covered by anything, with the page not scrolled: before the sound
question is answered, after a roll, with sound off, with a refused tap and while paused, after
the bell, and in a roll-off. Prompts and notices may not push the buttons out.
"""

import pytest
from playwright.sync_api import expect

from tests.devices import LAPTOP, PHONE
from tests.e2e.phone import screen
from tests.e2e.test_live_facts import create_with
from tests.e2e.test_party_setup import TWELVE, chromium, link_url  # noqa: F401

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

SIZES = ((360, 640), (390, 664))
KINDS = {  # preset, players, and what table 1 and table 2 are
    "two-teams": ("standard", TWELVE),
    "three-alone": ("boxed_small", TWELVE[:5]),  # table 1: three alone; table 2: two alone
    "four-dice": ("boxed4", TWELVE),
}
READ_MS = 700  # longer than table.js's READ_GRACE_MS: a person reads a change before tapping
PAUSED = "The host has paused the game; wait for the host to resume it."

# Each visible tap button: where it is, and whether a tap at its middle and near each corner
# reaches it (nothing drawn over any part of it).
BUTTONS = """() => [...document.querySelectorAll('#entry .faces button, #entry .quick button')]
  .filter((b) => b.getClientRects().length > 0 && getComputedStyle(b).visibility !== 'hidden')
  .map((b) => {
    const r = b.getBoundingClientRect();
    const points = [[r.left + r.width / 2, r.top + r.height / 2], [r.left + 4, r.top + 4],
                    [r.right - 4, r.top + 4], [r.left + 4, r.bottom - 4], [r.right - 4, r.bottom - 4]];
    const reached = points.every(([x, y]) => {
      const hit = document.elementFromPoint(x, y);
      return Boolean(hit) && (hit === b || b.contains(hit));
    });
    return { name: b.textContent.trim() || b.getAttribute('aria-label'), top: r.top,
             bottom: r.bottom, left: r.left, right: r.right, reached };
  })"""


def in_reach(page, state, least):
    """Every tap button on screen, above the tap bar, and nothing drawn over it."""
    page.evaluate("window.scrollTo(0, 0)")
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    dock = page.locator(".tap-dock").bounding_box()
    floor = dock["y"] if dock else height
    buttons = page.evaluate(BUTTONS)
    where = f"{state} at {width}x{height}"
    assert len(buttons) >= least, (where, buttons)
    for b in buttons:
        assert b["top"] >= 0 and b["bottom"] <= floor, (where, "off screen or under the bar", b)
        assert b["left"] >= 0 and b["right"] <= width, (where, "off the side", b)
        assert b["reached"], (where, "covered", b)


def tap(page, label):
    page.wait_for_timeout(READ_MS)
    page.get_by_role("button", name=label, exact=True).click()


def phase(page, number, value):
    expect(page.locator(f"section#table-{number}")).to_have_attribute("data-phase", value)


@pytest.mark.parametrize("kind", KINDS)
def test_every_tap_button_is_in_reach_at_every_table_kind_and_state(
    chromium, server, shots, kind  # noqa: F811
):
    preset, players = KINDS[kind]
    host = chromium.new_context(**LAPTOP).new_page()
    create_with(host, server, f"Reach {kind}", players, preset)
    phones = {}  # (table, size) -> page
    for number in (1, 2):
        url = link_url(host, f"Table {number}")
        for width, height in SIZES:
            context = chromium.new_context(**{**PHONE, "viewport": {"width": width, "height": height}})
            page = context.new_page()
            page.goto(url)
            expect(page.locator("body")).to_have_attribute("data-socket", "open")
            phones[number, f"{width}x{height}"] = page
    head = [page for (number, _), page in phones.items() if number == 1]
    second = [page for (number, _), page in phones.items() if number == 2]
    dice_faces = 6  # a face button for each of 1-6, and at least Nothing, points and Bunco
    least = dice_faces + 4

    def check(pages, state, number):
        for page in pages:
            size = "x".join(str(v) for v in page.viewport_size.values())
            page.evaluate("window.scrollTo(0, 0)")
            screen(shots, page, f"{kind}-t{number}-{state}-{size}")  # before: a failure's too
            in_reach(page, state, least)

    host.get_by_role("button", name="Start round 1").click()
    for (number, _), page in phones.items():
        phase(page, number, "playing")
        expect(page.locator("#sound-bar")).to_be_visible()
    check(head, "sound-question", 1)
    check(second, "sound-question", 2)

    # A miss at each table: the last roll shows on every phone of the table.
    tap(head[0], "Nothing")
    tap(second[0], "Nothing")
    for (number, _), page in phones.items():
        expect(page.locator(f"section#table-{number}")).to_have_attribute("data-version", "1")
    check(head, "after-a-roll", 1)
    check(second, "after-a-roll", 2)

    for page in phones.values():
        page.get_by_role("button", name="No sound").click()
        expect(page.locator("#sound-bar")).to_have_attribute("data-state", "off")
    check(head, "sound-off", 1)

    # Table 1's phones tap offline while the host pauses: back online, each tap is refused.
    for page in head:
        page.context.set_offline(True)
        tap(page, "Nothing")
    host.get_by_role("button", name="Pause", exact=True).click()
    expect(host.get_by_role("button", name="Resume", exact=True)).to_be_visible()
    for page in head:
        page.context.set_offline(False)
        expect(page.locator(".outbox .tap", has_text=PAUSED)).to_be_visible()
    for page in second:
        expect(page.locator(".banner.pause")).to_be_visible()
    check(head, "refused-while-paused", 1)
    check(second, "paused", 2)
    host.get_by_role("button", name="Resume", exact=True).click()
    for page in phones.values():
        expect(page.locator(".banner.pause")).to_have_count(0)
    check(head, "refused", 1)
    for page in head:
        page.locator(".outbox .tap.refused").get_by_role("button", name="Dismiss").click()

    # The head table's Bunco rings the bell: table 2 finishes its turn, tied at 0.
    tap(head[0], "BUNCO!")
    dialog = head[0].locator("dialog.call-dialog")
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name="Yes, they called it").click()
    for page in second:
        phase(page, 2, "finishing")
    check(second, "after-the-bell", 2)

    tap(second[0], "Nothing")
    for page in second:
        phase(page, 2, "rolloff")
    check(second, "roll-off", 2)
    for page in [host, *phones.values()]:
        page.context.close()
