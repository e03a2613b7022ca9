"""Guests who add themselves, in Chromium on 360x740 phones: a guest types the party code and
their name, the host's page shows them waiting without a reload, the host seats them and the
guest's phone lands on its player page by itself; a second guest is turned away and told so.
Then the host plays too: "I am playing", their table one tap away, and back."""

import re

import pytest
from playwright.sync_api import expect

from tests.devices import PHONE
from tests.e2e.test_accessibility import audit
from tests.e2e.test_party_setup import TWELVE, csp_messages, form_ready, settled_form

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ELEVEN = TWELVE[:11]  # one ghost's seat free before round 1
WAITS = 15_000  # ms: the waiting page looks again every 3 s


@pytest.fixture
def new_phone(chromium):
    """Opens a 360x740 phone; no page of any of them may log a refusal of the app's CSP (an
    inline script or style refused is a broken page)."""
    logged = []

    def open_phone():
        context = chromium.new_context(**PHONE)
        context.on("page", lambda page: logged.append(csp_messages(page)))
        return context.new_page()

    yield open_phone
    assert [text for texts in logged for text in texts] == []


def create_self_join_party(page, server, shots=None):
    page.goto(f"{server.url}/parties/new/")
    form_ready(page)
    page.get_by_label("Party name").fill("Open Door Bunco")
    page.get_by_label("Players", exact=True).fill("\n".join(ELEVEN))
    page.get_by_label("Guests may add themselves").check()
    settled_form(page, len(ELEVEN))
    if shots:
        page.get_by_label("Guests may add themselves").evaluate("el => el.scrollIntoView()")
        screen(shots, page, "create-form-self-join-screen")
    page.get_by_role("button", name="Create the party").click()
    expect(page).to_have_url(re.compile(r"/parties/\d+/host/$"))
    expect(page.locator("body")).to_have_attribute("data-socket", "open")


def guest_asks(new_phone, server, code, name, shots=None):
    phone = new_phone()
    phone.goto(f"{server.url}/join/")
    phone.get_by_label("Party code").fill(code)
    phone.get_by_label("Your name (optional)").fill(name)
    if shots:
        fits_the_phone(phone)
        shots(phone, "join-form-phone")
    phone.get_by_role("button", name="Find the party").click()
    expect(phone).to_have_url(re.compile(r"/join/waiting/$"))
    return phone


def screen(shots, page, label):
    """What the phone's screen shows now (not the whole page): the place being looked at."""
    shots.count += 1
    page.screenshot(path=str(shots.folder / f"{shots.count:02d}-{label}.png"))


def audit_as_seen(chromium, page, what, found):
    """axe-core on what `page` shows (no WCAG 2.2 A/AA violation, at both sizes, in both
    themes), opened again with its cookies in a context that lets axe's script in: the app's
    CSP refuses it, and the pages of the walk itself keep that CSP."""
    twin = chromium.new_context(**PHONE, storage_state=page.context.storage_state(),
                                bypass_csp=True)
    again = twin.new_page()
    again.goto(page.url)
    audit(again, what, found)
    twin.close()


def fits_the_phone(page):
    assert page.evaluate("document.documentElement.scrollWidth") <= 360, page.url


def test_a_guest_adds_themselves_and_the_host_seats_them_live(
    chromium, new_phone, server, shots
):
    host = new_phone()
    create_self_join_party(host, server, shots)
    expect(host.locator("#guests")).to_contain_text("Nobody is waiting to be seated.")
    code = host.locator("#party-code").inner_text()
    host.evaluate("window.notReloaded = true")

    mo = guest_asks(new_phone, server, code.lower(), "Mo", shots)
    expect(mo.locator("#waiting h1")).to_have_text("Hello, Mo!")
    expect(mo.locator("#waiting")).to_contain_text("Waiting to be seated")
    fits_the_phone(mo)
    shots(mo, "guest-waiting-phone")
    found = []
    audit_as_seen(chromium, mo, "waiting page", found)

    waiting = host.locator("#guests-waiting")
    expect(waiting).to_have_text("Waiting to be seated: Mo")  # pushed: no reload
    assert host.evaluate("window.notReloaded") is True
    nia = guest_asks(new_phone, server, code, "Nia")
    expect(waiting).to_have_text("Waiting to be seated: Mo, Nia")
    host.locator("#guests").evaluate("el => el.scrollIntoView()")
    fits_the_phone(host)
    screen(shots, host, "host-guests-waiting-screen")
    audit_as_seen(chromium, host, "host page with guests waiting", found)

    host.get_by_role("button", name="Seat Mo").click()
    expect(host.locator(".messages")).to_contain_text("Mo is seated")
    expect(waiting).to_have_text("Waiting to be seated: Nia")
    screen(shots, host, "host-after-seating-screen")
    expect(host.locator(".seat-name", has_text=re.compile(r"^Mo$"))).to_have_count(1)
    expect(mo).to_have_url(re.compile(r"/parties/\d+/players/\d+/$"), timeout=WAITS)
    expect(mo.locator("h1")).to_have_text("Mo")
    expect(mo.locator(".topbar .role")).to_have_text("Your sheet")
    expect(mo.locator("#where")).to_contain_text("table")
    fits_the_phone(mo)
    shots(mo, "guest-seated-player-page-phone")

    host.once("dialog", lambda dialog: dialog.accept())
    host.get_by_role("button", name="Turn Nia away").click()
    expect(host.locator("#guests")).to_contain_text("Nobody is waiting to be seated.")
    expect(nia.locator("#waiting h1")).to_have_text("The host turned you away", timeout=WAITS)
    fits_the_phone(nia)
    shots(nia, "guest-turned-away-phone")
    audit_as_seen(chromium, nia, "turned away", found)
    assert found == []


def test_the_host_plays_as_a_player_and_scores_at_their_table(
    chromium, new_phone, server, shots
):
    host = new_phone()
    create_self_join_party(host, server)
    host.get_by_role("link", name="I am playing").click()
    host.get_by_label("I am playing").select_option(label="Ann")
    host.get_by_role("button", name="That's me").click()
    expect(host.locator(".messages")).to_contain_text("This phone plays as Ann too.")
    expect(host.locator("#this-phone .phone-roles li")).to_have_text(["Host", "Player: Ann"])
    playing = host.locator(".playing")
    expect(playing).to_contain_text("You play as Ann")
    host.evaluate("window.scrollTo(0, 0)")
    fits_the_phone(host)
    screen(shots, host, "host-playing-screen")
    host.locator("#this-phone").evaluate("el => el.scrollIntoView()")
    screen(shots, host, "host-this-phone-screen")

    playing.get_by_role("link", name=re.compile(r"^Score at table \d$")).click()
    expect(host).to_have_url(re.compile(r"/table/\d/$"))
    back = host.locator(".topbar").get_by_role("link", name="Host page")
    expect(back).to_be_visible()
    fits_the_phone(host)
    screen(shots, host, "host-at-their-table-screen")
    found = []
    audit_as_seen(chromium, host, "the host at their table", found)
    back.click()
    expect(host).to_have_url(re.compile(r"/host/$"))

    host.locator(".playing").get_by_role("link", name="Your sheet").click()
    expect(host.locator("h1")).to_have_text("Ann")
    expect(host.locator(".topbar .role")).to_have_text("Your sheet")
    screen(shots, host, "host-their-sheet-screen")
    audit_as_seen(chromium, host, "the host's own sheet", found)
    assert found == []
    host.locator(".topbar").get_by_role("link", name="Host page").click()
    expect(host).to_have_url(re.compile(r"/host/$"))
