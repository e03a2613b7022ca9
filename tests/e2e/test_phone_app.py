"""The phone at a party: a table's link is an app Chromium would put on the home screen, opening
that table full-screen; and every page follows the phone's dark setting, its text readable
(WCAG AA, 4.5:1, measured on the rendered page) in either theme, the printed cards black on
white whatever the setting."""

import json
import re

import pytest
from playwright.sync_api import expect

from tests.conftest import CHROMIUM_FLAGS
from tests.devices import LAPTOP, PHONE
from tests.e2e.phone import new_party, scorekeeper, screen, start_round, tap
from tests.e2e.test_party_setup import (  # chromium: every page, no CSP refusal
    TWELVE,
    chromium,  # noqa: F401
    create_party,
    csp_messages,
    link_url,
)
from tests.service_checks import chromium_path

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PAUSED = "The host has paused the game; wait for the host to resume it."

# Every visible piece of text on the page whose colour is under 4.5:1 against the background it
# is drawn on: the nearest ancestors' background colours composited (alpha) down to the first
# opaque one, the text's colour faded by its own and its ancestors' opacity. Disabled controls
# are exempt (as in WCAG); an <input> counts its value.
LOW_CONTRAST_JS = """
() => {
  const rgba = (css) => {
    const m = css.match(/rgba?\\(([^)]+)\\)/);
    if (!m) return null;
    const p = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const over = (top, under) => {
    const a = top[3];
    return [0, 1, 2].map(i => top[i] * a + under[i] * (1 - a)).concat([1]);
  };
  const background = (el) => {
    const layers = [];
    for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
      const c = rgba(getComputedStyle(node).backgroundColor);
      if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
    }
    let colour = [255, 255, 255, 1];  // the canvas, were nothing opaque
    for (const layer of layers.reverse()) colour = over(layer, colour);
    return colour;
  };
  const opacity = (el) => {
    let o = 1;
    for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
      o *= Number(getComputedStyle(node).opacity);
    }
    return o;
  };
  const luminance = (c) => {
    const [r, g, b] = c.slice(0, 3).map(v => {
      v /= 255;
      return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const ratio = (a, b) => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };
  const hex = (c) => "#" + c.slice(0, 3).map(v => Math.round(v).toString(16).padStart(2, "0")).join("");
  const low = [];
  for (const el of document.querySelectorAll("body *")) {
    if (el.closest("svg, script, style, noscript, template")) continue;
    const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    const field = el.matches("input:not([type=hidden]):not([type=checkbox]):not([type=radio]), textarea, select")
      && (el.value || "").trim();
    if (!own && !field) continue;
    if (el.disabled || el.closest("[disabled]")) continue;
    const box = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    if (box.width <= 1 || box.height <= 1 || style.visibility !== "visible") continue;
    if (el.closest("dialog:not([open])")) continue;
    const bg = background(el);
    const fg = over([...rgba(style.color).slice(0, 3), rgba(style.color)[3] * opacity(el)], bg);
    const r = ratio(fg, bg);
    if (r < 4.5) {
      const text = field ? el.value : [...el.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join("");
      low.push(`${r.toFixed(2)}: ${el.tagName.toLowerCase()}.${[...el.classList].join(".")} ` +
               `"${text.trim().slice(0, 40)}" ${hex(fg)} on ${hex(bg)}`);
    }
  }
  return low;
}
"""


def body_background(page):
    return page.evaluate("getComputedStyle(document.body).backgroundColor")


class Look:
    """Screenshots a page and notes its text that is too faint, page by page."""

    def __init__(self, shots):
        self.shots = shots
        self.low = {}

    def __call__(self, page, label, whole=True):
        if whole:
            self.shots(page, label)
        else:
            screen(self.shots, page, label)
        low = page.evaluate(LOW_CONTRAST_JS)
        if low:
            self.low[label] = low


def installable_phone(browser, profile):
    """A phone's browser with a profile on disk: Chromium installs no app from an incognito
    window (its installability check says "in-incognito"), and every new_context is one."""
    page = browser.new_context().new_page()  # only to reach the browser's type
    browser_type = page.context.browser.browser_type
    page.context.close()
    context = browser_type.launch_persistent_context(
        str(profile), executable_path=chromium_path(), args=CHROMIUM_FLAGS, **PHONE
    )
    refused = []
    context.on("page", lambda page: refused.append(csp_messages(page)))
    return context, refused


def test_a_table_link_on_a_phone_is_an_app_chromium_would_install_that_opens_the_table(
    chromium, server, tmp_path  # noqa: F811
):
    host, url = new_party(chromium, server)
    context, refused = installable_phone(chromium, tmp_path / "phone")
    page = scorekeeper(chromium, url, context=context)
    cdp = context.new_cdp_session(page)

    # Chromium fetches the manifest as the page asks (with the page's cookie): no errors, and
    # it is this table's, opening this phone's own link.
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["errors"] == [], manifest["errors"]
    assert re.search(r"/parties/\d+/manifest\.webmanifest\?for=table-1$", manifest["url"])
    data = json.loads(manifest["data"])
    assert data["display"] == "standalone"
    assert data["start_url"] == url.removeprefix(server.url)
    assert cdp.send("Page.getInstallabilityErrors")["installabilityErrors"] == []

    # The home-screen app (an iOS one has a cookie jar of its own) opens the table.
    app = chromium.new_context(**PHONE).new_page()
    app.goto(server.url + data["start_url"])
    expect(app).to_have_url(re.compile(r"/table/1/$"))
    expect(app.locator(".role")).to_have_text("Scorekeeper · table 1")

    # The landing page is an app too: the site's, opening the landing page.
    landing = context.new_page()
    landing.goto(server.url + "/")
    cdp = context.new_cdp_session(landing)
    manifest = cdp.send("Page.getAppManifest")
    # Production serves the collected file under its content hash (site.<hash>.webmanifest).
    assert manifest["errors"] == [] and re.search(
        r"/static/parties/site(\.[0-9a-f]{12})?\.webmanifest$", manifest["url"]), manifest["url"]
    assert json.loads(manifest["data"])["start_url"] == "/"
    assert cdp.send("Page.getInstallabilityErrors")["installabilityErrors"] == []
    assert [text for texts in refused for text in texts] == []
    for c in (context, app.context, host.context):
        c.close()


def test_the_table_page_mid_round_follows_the_phone_s_dark_setting(chromium, server, shots):  # noqa: F811
    host, url = new_party(chromium, server)
    start_round(host)
    look = Look(shots)
    pages = {}
    for scheme in ("light", "dark"):
        context = chromium.new_context(**PHONE, color_scheme=scheme)
        page = pages[scheme] = scorekeeper(chromium, url, context=context)
        tap(page, "1 point")
        expect(page.locator(".outbox .tap").last).to_have_text("1 point: saved")
        # A tap refused while the host paused (with the one behind it held back), and a roll
        # half entered: everything the scorekeeper's screen shows mid-round.
        context.set_offline(True)
        tap(page, "2 points")
        tap(page, "1 point")
        host.get_by_role("button", name="Pause", exact=True).click()
        context.set_offline(False)
        expect(page.locator(".outbox .tap.refused")).to_contain_text(PAUSED)
        host.get_by_role("button", name="Resume", exact=True).click()
        expect(page.locator(".banner.pause")).to_have_count(0)
        page.get_by_role("button", name="3", exact=True).click()
        page.get_by_role("button", name="5", exact=True).click()
        look(page, f"table-mid-round-{scheme}-phone")
        look(page, f"table-mid-round-{scheme}-phone", whole=False)

    assert body_background(pages["light"]) != body_background(pages["dark"])
    assert body_background(pages["dark"]) == "rgb(21, 19, 26)"  # site.css's dark --paper

    # The bell: the banner over each phone's page.
    host.get_by_role("button", name="Ring the bell", exact=True).click()
    for scheme, page in pages.items():
        expect(page.locator("#bell-banner")).to_be_visible()
        look(page, f"table-bell-{scheme}-phone", whole=False)
    assert look.low == {}


def test_every_page_reads_in_the_light_and_in_the_dark_and_the_cards_print_light(
    chromium, server, shots  # noqa: F811
):
    # Eleven players: a ghost fills the twelfth seat, so its faded name is on the pages too.
    host = chromium.new_context(**LAPTOP).new_page()
    create_party(host, server, "Dim Room Bunco", TWELVE[:11])
    table_url = link_url(host, "Table 1")
    start_round(host)
    host_url, ann_url = link_url(host, "Host"), link_url(host, "Ann")
    look = Look(shots)
    for scheme in ("light", "dark"):
        phone = chromium.new_context(**PHONE, color_scheme=scheme).new_page()
        phone.goto(server.url + "/")
        look(phone, f"landing-{scheme}-phone")
        phone.get_by_role("link", name="Host a party").click()
        phone.get_by_text("Every rule, as the preset sets it").click()
        look(phone, f"create-{scheme}-phone")
        phone.get_by_role("button", name="Create the party").click()  # nothing filled in
        expect(phone.locator(".error").first).to_be_visible()
        look(phone, f"create-errors-{scheme}-phone")

        phone.goto(ann_url)
        expect(phone).to_have_url(re.compile(r"/players/\d+/$"))
        look(phone, f"player-{scheme}-phone")
        phone.goto(table_url)
        expect(phone.locator("body")).to_have_attribute("data-socket", "open")
        look(phone, f"table-{scheme}-phone")
        phone.goto(phone.url.split("/table/")[0] + "/")
        look(phone, f"party-{scheme}-phone")
        phone.goto(phone.url + "results/")
        look(phone, f"results-{scheme}-phone")

        laptop = chromium.new_context(**LAPTOP, color_scheme=scheme).new_page()
        laptop.goto(host_url)
        expect(laptop).to_have_url(re.compile(r"/host/$"))
        laptop.locator("li.link-row summary", has_text="Kay").click()
        laptop.locator("li.link-row", has_text="Kay").get_by_role("button", name="New link").click()
        expect(laptop.locator(".message.success")).to_be_visible()  # a message, as after any change
        look(laptop, f"host-{scheme}-laptop")
        laptop.get_by_role("link", name="Print table cards").click()
        look(laptop, f"table-cards-{scheme}-laptop")
        laptop.emulate_media(media="print")
        assert body_background(laptop) == "rgb(255, 255, 255)", scheme
        assert laptop.evaluate("getComputedStyle(document.querySelector('h1')).color") == (
            "rgb(0, 0, 0)"  # black on white, as every printable prints
        ), scheme
        look(laptop, f"table-cards-{scheme}-print")
        phone.context.close()
        laptop.context.close()
    assert look.low == {}
