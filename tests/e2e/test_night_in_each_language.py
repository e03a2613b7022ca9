"""A whole night in Spanish, every screen a 360x740 phone whose browser asks for Spanish: the host
sets up four players at one table and starts the twelve rounds of two sets, the table's
scorekeeper scores them (a called Bunco one round, the host's bell and a point the next), a
player watches from her seat to the prizes. Every page reads Spanish (its <html lang>, its
words from the catalog) and no page is wider than the phone: Spanish runs longer than English.
The screenshots are in test-artifacts/screenshots/<this test>/."""

import re

import pytest
from django.utils import translation
from playwright.sync_api import expect

from tests.devices import PHONE

pytestmark = pytest.mark.e2e

FOUR = ["Ann", "Bea", "Cleo", "Dot"]
ROUNDS = 12
SPANISH = {**PHONE, "locale": "es-ES"}  # Chromium sends Accept-Language: es-ES


def t(english, **values):
    """The Spanish the app shows for `english` (the catalog's, as the server renders it)."""
    with translation.override("es"):
        text = translation.gettext(english)
    assert text != english or english in ("Bunco",), f"no Spanish for {english!r}"
    return text % values if values else text


def fits(page, what):
    """The page reads Spanish and is no wider than the phone (nothing pushes it sideways)."""
    assert page.evaluate("document.documentElement.lang") == "es", what
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"{what} is {width}px wide on a 360px phone"


def link_url(host, label):
    row = host.locator("li.link-row", has=host.locator("summary", has_text=label))
    return row.locator("input.url").input_value()


def create_party(host, url):
    host.goto(url + "/")
    fits(host, "the landing page")
    host.get_by_role("link", name=t("Host a party")).click()
    host.wait_for_url(re.compile(r"/parties/new/"))
    host.wait_for_load_state("load")
    host.get_by_label(t("Party name")).fill("Noche de Bunco")
    host.get_by_label(t("Players"), exact=True).fill("\n".join(FOUR))
    expect(host.locator("#plan-preview")).to_contain_text("4")
    expect(host.locator(".htmx-request")).to_have_count(0)
    fits(host, "the create form")
    host.get_by_role("button", name=t("Create the party")).click()
    expect(host).to_have_url(re.compile(r"/parties/\d+/host/$"))


def test_a_whole_night_in_spanish_on_phones(chromium, server, shots):
    host = chromium.new_context(**SPANISH).new_page()
    create_party(host, server.url)
    fits(host, "the host page")
    shots(host, "host-before-round-1")
    party_url = host.url.removesuffix("host/")
    table = chromium.new_context(**SPANISH).new_page()
    table.goto(link_url(host, t("Table %(number)s (head table)", number=1)))
    expect(table.locator("body")).to_have_attribute("data-socket", "open")
    player = chromium.new_context(**SPANISH).new_page()
    player.goto(link_url(host, "Ann"))
    expect(player.locator("body")).to_have_attribute("data-socket", "open")
    points = table.locator("section#table-1 .side-points")

    for number in range(1, ROUNDS + 1):
        host.get_by_role("button", name=t("Start round %(number)s", number=(number - 1) % 6 + 1)).click()
        expect(table.locator("#live .live-table")).to_have_attribute("data-bell", "0")
        if number % 2:
            table.get_by_role("button", name=t("BUNCO!"), exact=True).click()
            table.locator("dialog.call-dialog").get_by_role(
                "button", name=t("Yes, they called it")).click()
            expect(points).to_have_text(["21", "0"])
            if number == 1:
                fits(table, "the table after a Bunco")
                shots(table, "table-after-a-bunco")
            table.get_by_role("button", name=t("Nothing"), exact=True).click()
        else:
            host.get_by_role("button", name=t("Ring the bell"), exact=True).click()
            expect(table.locator("#live .live-table")).to_have_attribute("data-bell", "1")
            if number == 2:
                fits(table, "the table after the bell")
                shots(table, "table-after-the-bell")
            table.get_by_role("button", name=t("1 point"), exact=True).click()
            expect(points).to_have_text(["1", "0"])
            table.get_by_role("button", name=t("Nothing"), exact=True).click()
        if number == 6:
            fits(player, "the player's sheet")
            shots(player, "player-after-set-1")
            fits(host, "the host page in play")
            shots(host, "host-after-set-1")
        if number < ROUNDS:
            expect(player.locator("#sheet table.sheet tbody tr")).to_have_count(number)

    expect(player.locator("#sheet table.sheet tbody tr")).to_have_count(ROUNDS)
    fits(player, "the player's sheet at the end")
    shots(player, "player-night-over")
    for path, what in (("results/", "the results"), ("sheets/?filled=1", "the filled sheets"),
                       ("rules/", "the rules sheet")):
        host.goto(party_url + path)
        fits(host, what)
        shots(host, what.removeprefix("the ").replace(" ", "-"))
    tv = host.context.new_page()  # the host's laptop on the room's TV: a big screen
    tv.set_viewport_size({"width": 1280, "height": 720})
    tv.goto(party_url + "tv/")
    expect(tv.locator("body")).to_have_attribute("data-socket", "open")
    fits(tv, "the TV")
    shots(tv, "tv")
    host.goto(party_url + "results/")
    expect(host.locator("table.standings tbody tr")).to_have_count(4)
    # W/L marks on the filled sheets are the Spanish ones (G/P), twelve a card.
    host.goto(party_url + "sheets/?filled=1")
    won = translation.pgettext  # the marks have a context: "won a round" / "lost a round"
    with translation.override("es"):
        marks = {won("won a round", "W"), won("lost a round", "L")}
    assert marks != {"W", "L"}
    for card in host.locator(".score-card").all():
        shown = [m for m in card.locator("tr.wl td").all_inner_texts() if m in marks]
        assert len(shown) == ROUNDS, shown
