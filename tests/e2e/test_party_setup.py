"""A host sets up parties in Chromium; a scorekeeper and a player open their links elsewhere."""

import re

import pytest
from playwright.sync_api import expect

from tests.devices import LAPTOP, PHONE

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

TWELVE = ["Ann", "Bea", "Cleo", "Dot", "Edie", "Fran", "Gail", "Hope", "Iris", "June", "Kay", "Zoë"]


def csp_messages(page):
    """The console messages about the Content-Security-Policy that `page` logs, as they come."""
    seen = []
    page.on("console", lambda m: seen.append(m.text + repr(m.location)) if "Content Security Policy" in m.text else None)
    return seen


@pytest.fixture
def chromium(chromium):
    """The session's Chromium, but every page opened in these tests must log no message about
    the Content-Security-Policy: a refused inline script or style is a broken page."""
    messages = []

    class Watched:
        def new_context(self, **options):
            context = chromium.new_context(**options)
            context.on("page", lambda page: messages.append(csp_messages(page)))  # DEBUGLOC
            return context

        def refused(self):
            return [text for texts in messages for text in texts]

        def forget(self):
            messages.clear()

    watched = Watched()
    yield watched
    assert watched.refused() == []


def form_ready(page):
    """The create form loaded, and htmx listening on it: typing before htmx has set up its
    triggers (on DOMContentLoaded) redraws no plan preview, as no person types that fast."""
    page.wait_for_url(re.compile(r"/parties/new/"))
    page.wait_for_load_state("load")


def settled_form(page, count, preset=None):
    """Wait, as a host looks before tapping Create, until the form shows what was typed: the
    plan preview counts `count` players and the rules are `preset`'s, with no redraw under way.
    A redraw that lands between the click's press and release moves the button away from the
    pointer (the preview grows from one line to a list of tables), and the click is lost."""
    expect(page.locator("#plan-preview")).to_contain_text(re.compile(rf"\b{count} players"))
    if preset:
        expect(page.locator("#rules-options input[name=options_for]")).to_have_value(preset)
    expect(page.locator(".htmx-request")).to_have_count(0)


def create_party(page, server, name, players, shots=None, preset=None):
    page.goto(server.url + "/")
    page.get_by_role("link", name="Host a party").click()
    form_ready(page)
    page.get_by_label("Party name").fill(name)
    page.get_by_label("Players", exact=True).fill("\n".join(players))
    if preset:
        page.get_by_label("Rules preset").select_option(preset)
    settled_form(page, len(players), preset)
    if shots:
        page.get_by_text("Every rule, as the preset sets it").click()
        shots(page, "create-form")
    page.get_by_role("button", name="Create the party").click()
    expect(page).to_have_url(re.compile(r"/parties/\d+/host/$"))


def link_url(page, label):
    row = page.locator("li.link-row", has=page.locator("summary", has_text=label))
    return row.locator("input.url").input_value()


def test_a_host_sets_up_a_twelve_player_party_and_hands_out_links(chromium, server, shots):
    host = chromium.new_context(**PHONE).new_page()
    host.goto(server.url + "/")
    shots(host, "landing-phone")
    create_party(host, server, "Friday Bunco", TWELVE, shots)

    expect(host.locator(".table-card")).to_have_count(3)
    expect(host.locator(".seat")).to_have_count(12)
    expect(host.locator("#seats-1 .badge.head")).to_have_text("head table")
    expect(host.locator(".badge.ghost")).to_have_count(0)
    code = host.locator("#party-code").inner_text()
    assert re.fullmatch(r"[A-Z2-9]{4} [A-Z2-9]{4} [A-Z2-9]{4}", code)  # three groups of four
    box = host.locator("#party-code").bounding_box()
    assert box["x"] + box["width"] <= 360, box  # whole on the phone's screen
    shots(host, "host-seating-phone")

    # Reshuffle with htmx: the seating fragment is replaced, everyone still seated once.
    names_before = host.locator(".seat-name").all_inner_texts()
    host.get_by_role("button", name="Reshuffle everyone").click()
    expect(host.locator(".seat")).to_have_count(12)
    assert sorted(host.locator(".seat-name").all_inner_texts()) == sorted(names_before)

    # Every link has its QR code.
    expect(host.locator("li.link-row")).to_have_count(1 + 3 + 12)
    host.locator("li.link-row summary", has_text="Table 2").click()
    expect(host.locator("li.link-row", has_text="Table 2").locator(".qr svg")).to_be_visible()
    host.locator("#links").scroll_into_view_if_needed()
    shots(host, "host-links-phone")
    table2_url, ann_url = link_url(host, "Table 2"), link_url(host, "Ann")
    host_url = host.url

    # A tap on a link's field selects all of it, ready to copy (page.js, not an inline handler).
    field = host.locator("li.link-row", has_text="Table 2").locator("input.url")
    field.click()
    assert field.evaluate("el => el.value.slice(el.selectionStart, el.selectionEnd)") == table2_url

    # Ending the party asks first; saying no ends nothing.
    asked = []
    host.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    host.get_by_role("button", name="End the party").click()
    assert asked == ["End the party now? The round in play will not count."]
    expect(host).to_have_url(host_url)
    expect(host.get_by_role("button", name="End the party")).to_be_visible()

    # The scorekeeper of table 2, on another phone.
    keeper = chromium.new_context(**PHONE).new_page()
    keeper.goto(table2_url)
    expect(keeper).to_have_url(re.compile(r"/table/2/$"))
    expect(keeper.locator("h3")).to_contain_text("Table 2")
    expect(keeper.locator(".banner.wait")).to_have_text(
        "Waiting for the bell to start set 1, round 1."
    )
    expect(keeper.locator(".seat")).to_have_count(4)
    shots(keeper, "scorekeeper-phone")
    assert keeper.goto(host_url).status == 403
    shots(keeper, "scorekeeper-denied-host-page")

    # Ann, on her own phone.
    ann = chromium.new_context(**PHONE).new_page()
    ann.goto(ann_url)
    expect(ann.locator("h1")).to_have_text("Ann")
    expect(ann.locator("#where")).to_contain_text(re.compile(r"table \d, seat \d, partner: \w+"))
    shots(ann, "player-phone")
    assert ann.goto(table2_url.replace("/l/", "/l/x")).status == 404
    assert ann.goto(keeper.url).status == 403

    # A friend without a link types the code, then picks a name.
    friend = chromium.new_context(**PHONE).new_page()
    friend.goto(server.url + "/")
    friend.get_by_label("Party code").fill(code.lower())
    shots(friend, "join-code-typed-phone")  # the whole code in sight in the field
    friend.get_by_role("button", name="Find my sheet").click()
    expect(friend.locator(".table-card")).to_have_count(3)
    shots(friend, "party-view-phone")
    friend.get_by_role("link", name="Zoë").click()
    expect(friend.locator("h1")).to_have_text("Zoë")

    # The same pages on a laptop.
    for url, label in [(host_url, "host"), (table2_url, "scorekeeper"), (ann_url, "player")]:
        laptop = chromium.new_context(**LAPTOP).new_page()
        if label == "host":
            create_party(laptop, server, "Laptop Bunco", TWELVE)
        else:
            laptop.goto(url)
        shots(laptop, f"{label}-laptop")
        laptop.context.close()
    for context in (host.context, keeper.context, ann.context, friend.context):
        context.close()


def test_an_eleven_player_party_gets_a_ghost_and_printable_table_cards(chromium, server, shots):
    host = chromium.new_context(**LAPTOP).new_page()
    create_party(host, server, "Eleven", TWELVE[:11])
    expect(host.locator(".seat")).to_have_count(12)
    expect(host.locator(".seat.ghost")).to_have_count(1)
    expect(host.locator(".seat.ghost .seat-name")).to_contain_text("Ghost 1")
    expect(host.locator("li.link-row")).to_have_count(1 + 3 + 11)
    shots(host, "host-eleven-laptop")

    host.get_by_role("link", name="Print table cards").click()
    expect(host.locator(".table-print-card")).to_have_count(3)
    expect(host.locator(".table-print-card .qr svg")).to_have_count(3)
    expect(host.get_by_role("button", name="Print")).to_have_attribute("data-print", "")
    shots(host, "table-cards-laptop")

    phone = chromium.new_context(**PHONE).new_page()
    create_party(phone, server, "Eleven on a phone", TWELVE[:11])
    expect(phone.locator(".seat.ghost")).to_have_count(1)
    shots(phone, "host-eleven-phone")


def test_mistakes_in_the_form_are_shown_and_nothing_typed_is_lost(chromium, server, shots):
    page = chromium.new_context(**PHONE).new_page()
    page.goto(server.url + "/parties/new/")
    page.get_by_label("Party name").fill("Oops")
    page.get_by_label("Players", exact=True).fill("Ann\nBea\nCleo\nAnn")
    page.get_by_role("button", name="Create the party").click()
    expect(page.locator("ul.error")).to_contain_text("Line 4: “Ann” is already on line 1.")
    expect(page.get_by_label("Players", exact=True)).to_have_value("Ann\nBea\nCleo\nAnn")
    expect(page.get_by_label("Party name")).to_have_value("Oops")
    shots(page, "create-error-phone")

    # Adding players one by one, and switching preset (htmx swaps in that preset's rules).
    page.get_by_label("Players", exact=True).fill("Ann\nBea\nCleo")
    page.get_by_placeholder("Add one player").fill("Dot")
    page.get_by_role("button", name="Add", exact=True).click()
    expect(page.get_by_label("Players", exact=True)).to_have_value("Ann\nBea\nCleo\nDot")
    page.get_by_label("Rules preset").select_option("short")
    page.get_by_text("Every rule, as the preset sets it").click()
    expect(page.get_by_label("Play to")).to_have_value("11")
    settled_form(page, 4, "short")
    page.get_by_role("button", name="Create the party").click()
    expect(page.locator(".seat")).to_have_count(4)
    expect(page.locator("#rule-options dt:text-is(\"Play to\") + dd")).to_have_text("11")



def test_the_watch_for_policy_messages_sees_a_refused_inline_style(chromium, server):
    # The check on every page must be able to fail: Chromium refuses an inline style and says so.
    page = chromium.new_context(**PHONE).new_page()
    page.goto(server.url + "/")
    page.evaluate("() => document.body.setAttribute('style', 'outline: 3px solid red')")
    page.wait_for_timeout(200)
    assert any("style-src 'self'" in text for text in chromium.refused())
    chromium.forget()
