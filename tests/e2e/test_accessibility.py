"""axe-core over the party's pages, as a night goes, each at a phone's size (360x740) and a
laptop's (1280x800), in the light and the dark theme: no violation of WCAG 2.2 A and AA.

axe's script is injected into each page, so these browsers alone bypass the app's CSP (which
refuses any script it did not serve). What axe cannot decide by itself ("needs review") is
written to test-artifacts/axe/ for a person to read."""

import json
import re
from pathlib import Path

import axe_playwright_python
import pytest
from playwright.sync_api import expect

from bench.servers import ROOT
from tests.devices import LAPTOP, PHONE
from tests.e2e.test_live_round import Table
from tests.e2e.test_party_setup import TWELVE, create_party, link_url

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

AXE = Path(axe_playwright_python.__file__).parent / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
REVIEW = ROOT / "test-artifacts" / "axe"
RUN = """async (tags) => {
  const result = await axe.run(document, {
    runOnly: { type: 'tag', values: tags }, resultTypes: ['violations', 'incomplete'] });
  const brief = (items) => items.map((item) => ({
    id: item.id, impact: item.impact, help: item.help,
    nodes: item.nodes.slice(0, 4).map((node) => ({ target: node.target.join(' '),
      why: node.failureSummary || (node.any[0] && node.any[0].message) || '' })) }));
  return { violations: brief(result.violations), incomplete: brief(result.incomplete) };
}"""


def audit(page, what, found):
    """axe on `page` as it is now, at both sizes and in both themes; violations are added to
    `found`."""
    own = page.viewport_size
    for viewport in (PHONE["viewport"], LAPTOP["viewport"]):
        page.set_viewport_size(viewport)
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            page.wait_for_timeout(100)  # the size's layout and the theme's colours are drawn
            if not page.evaluate("() => typeof axe !== 'undefined'"):
                page.add_script_tag(path=str(AXE))
            result = page.evaluate(RUN, TAGS)
            label = f"{what} {viewport['width']}x{viewport['height']} {scheme}"
            found.extend((label, v["id"], v["impact"], v["nodes"]) for v in result["violations"])
            if result["incomplete"]:
                REVIEW.mkdir(parents=True, exist_ok=True)
                name = re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")
                (REVIEW / f"{name}.json").write_text(json.dumps(result["incomplete"], indent=1))
    page.set_viewport_size(own)
    page.emulate_media(color_scheme="light")


def test_the_nights_pages_have_no_accessibility_violations(chromium, server):
    found = []
    laptop = chromium.new_context(**LAPTOP, bypass_csp=True)
    host = laptop.new_page()
    for path, what in (("/", "landing"), ("/join/", "join"), ("/parties/new/", "create")):
        host.goto(server.url + path)
        audit(host, what, found)
    host.get_by_role("button", name="Create the party").click()  # nothing filled in
    expect(host.locator(".error").first).to_be_visible()
    audit(host, "create with errors", found)
    create_party(host, server, "Axe Night", TWELVE)
    party = host.url.removesuffix("host/")
    audit(host, "host before round 1", found)
    links = {who: link_url(host, who) for who in ("Table 1", "Table 2", TWELVE[0])}

    phone = chromium.new_context(**PHONE, bypass_csp=True)
    table_page, player_page = phone.new_page(), phone.new_page()
    table_page.goto(links["Table 1"])
    expect(table_page.locator("body")).to_have_attribute("data-socket", "open")
    audit(table_page, "table before the round", found)
    player_page.goto(links[TWELVE[0]])
    host.get_by_role("button", name="Start round 1").click()
    table = Table(table_page, 1)
    table.expect("playing", [0, 0])
    audit(table_page, "table with the sound question", found)
    table_page.get_by_role("button", name="No sound").click()
    table_page.wait_for_timeout(700)
    table.tap("2 points")
    audit(table_page, "table after a roll", found)
    audit(player_page, "player in play", found)
    audit(host, "host in play", found)
    for path, what in (("", "everyone's tables"), ("tv/", "tv"), ("rules/", "rules"),
                       ("sheets/", "score sheets"), ("tally/", "tally sheets"),
                       ("host/cards/", "table cards"), ("host/player-cards/", "player cards")):
        host.goto(party + path)
        audit(host, what, found)

    host.goto(party + "host/")
    host.get_by_role("button", name="Pause", exact=True).click()
    expect(table_page.locator(".banner.pause")).to_be_visible()
    audit(host, "host paused", found)
    audit(table_page, "table paused", found)
    host.get_by_role("button", name="Resume", exact=True).click()
    expect(table_page.locator(".banner.pause")).to_have_count(0)
    host.locator("#rolls a[href$='/correct/']").first.click()
    audit(host, "correct a roll", found)
    host.get_by_role("button", name="Show what it changes").click()
    expect(host.locator("form button[type=submit]").first).to_be_visible()
    audit(host, "a correction's preview", found)
    host.goto(server.url + "/parties/import/")
    audit(host, "import", found)

    host.goto(party + "host/")
    table_page.wait_for_timeout(700)
    dialog, _before = table.bunco(table.live.locator(".turn .roller-name").inner_text())
    audit(table_page, "table asking did they call it", found)
    dialog.get_by_role("button", name="Yes, they called it").click()
    expect(table_page.locator("#bell-banner")).to_be_visible()
    audit(table_page, "table after the bell", found)
    audit(host, "host after the bell", found)
    host.goto(party + "results/")
    audit(host, "results", found)


    assert found == [], "\n".join(
        f"{label}: {rule} ({impact}) {nodes}" for label, rule, impact, nodes in found)
    laptop.close()
    phone.close()
