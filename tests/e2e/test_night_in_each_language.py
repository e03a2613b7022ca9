"""A whole night in Spanish, and one in French, every screen a 360x740 phone whose browser asks
for that language: the host sets up four players at one table and starts the twelve rounds of
two sets, the table's scorekeeper scores them (a called Bunco one round, the host's bell and a
point the next), a player watches from her seat to the prizes; the host sets a pot in euros,
prints and downloads the standings. Every page reads the language (its <html lang>, its words
from the catalog) and no page is wider than the phone: both run longer than English. The
screenshots are in test-artifacts/screenshots/<this test>/."""

import csv
import io
import re

import pytest
from django.utils import translation
from playwright.sync_api import expect

from tests.devices import PHONE

pytestmark = pytest.mark.e2e

FOUR = ["Ann", "Bea", "Cleo", "Dot"]
ROUNDS = 12
# Each language, and the browser's locale that asks for it (Chromium sends it as
# Accept-Language): Spain's and France's, so the pot starts in euros.
LOCALES = {"es": "es-ES", "fr": "fr-FR"}
PARTY_NAMES = {"es": "Noche de Bunco", "fr": "Soirée Bunco"}
SAME_WORDS = {"Bunco", "1 point"}  # the same in a language as in English (French: "1 point")


@pytest.fixture(params=sorted(LOCALES))
def language(request):
    return request.param


def phone(chromium, language):
    return chromium.new_context(**PHONE, locale=LOCALES[language]).new_page()


def words(language):
    def t(english, **values):
        """What the app shows for `english` (the catalog's, as the server renders it)."""
        with translation.override(language):
            text = translation.gettext(english)
        assert text != english or english in SAME_WORDS, f"no {language} for {english!r}"
        return text % values if values else text

    return t


# The innermost elements that reach past the screen's right edge, to say what to fix.
WIDEST = """(width) => [...document.body.querySelectorAll('*')]
  .filter(e => e.getBoundingClientRect().right > width + 1
               && ![...e.children].some(c => c.getBoundingClientRect().right > width + 1))
  .slice(0, 5).map(e => e.tagName + '.' + e.className + ': ' + e.textContent.trim().slice(0, 60))"""


def fits(page, what):
    """The page reads its language and is no wider than the screen (nothing pushes it
    sideways)."""
    assert page.evaluate("document.documentElement.lang") in LOCALES, what
    width = page.evaluate("document.documentElement.scrollWidth")
    if width > page.viewport_size["width"]:
        wide = page.evaluate(WIDEST, page.viewport_size["width"])
        raise AssertionError(f"{what} is {width}px wide on a 360px phone: {wide}")


def link_url(host, label):
    row = host.locator("li.link-row", has=host.locator("summary", has_text=label))
    return row.locator("input.url").input_value()


def create_party(host, url, t, name):
    host.goto(url + "/")
    fits(host, "the landing page")
    host.get_by_role("link", name=t("Host a party")).click()
    host.wait_for_url(re.compile(r"/parties/new/"))
    host.wait_for_load_state("load")
    host.get_by_label(t("Party name")).fill(name)
    host.get_by_label(t("Players"), exact=True).fill("\n".join(FOUR))
    expect(host.locator("#plan-preview")).to_contain_text("4")
    expect(host.locator(".htmx-request")).to_have_count(0)
    fits(host, "the create form")
    host.get_by_role("button", name=t("Create the party")).click()
    expect(host).to_have_url(re.compile(r"/parties/\d+/host/$"))


def test_a_whole_night_on_phones_in_each_language(chromium, server, shots, language):
    t = words(language)
    host = phone(chromium, language)
    create_party(host, server.url, t, PARTY_NAMES[language])
    fits(host, "the host page")
    shots(host, "host-before-round-1")
    party_url = host.url.removesuffix("host/")
    table = phone(chromium, language)
    table.goto(link_url(host, t("Table %(number)s (head table)", number=1)))
    expect(table.locator("body")).to_have_attribute("data-socket", "open")
    player = phone(chromium, language)
    player.goto(link_url(host, "Ann"))
    expect(player.locator("body")).to_have_attribute("data-socket", "open")
    points = table.locator("section#table-1 .side-points")

    for number in range(1, ROUNDS + 1):
        host.get_by_role("button", name=t("Start round %(number)s", number=(number - 1) % 6 + 1)).click()
        # The round has begun on the table's phone (a tap before would be refused: not started).
        expect(table.locator("#live .live-table")).to_have_attribute("data-phase", "playing")
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
    # The pot: four buy-ins of 5 in euros (the host's browser is in Spain or France), written
    # the language's way: "20,00 €". The form is open while the night has no pot.
    expect(host.locator("select[name=currency]")).to_have_value("EUR")
    host.get_by_label(t("Buy-in per player")).fill("5")
    host.get_by_role("button", name=t("Save the pot")).click()
    expect(host.locator("#pot .pot-total strong")).to_have_text("20,00\u00a0€")
    fits(host, "the results with a pot")
    shots(host, "results-with-a-pot")
    # The standings file: headings in the language, the money a number a spreadsheet adds.
    with host.expect_download() as download:
        host.get_by_role("link", name=t("Download the standings (CSV)")).click()
    table_rows = list(csv.reader(io.StringIO(
        open(download.value.path(), encoding="utf-8-sig").read())))
    assert table_rows[0][1] == t("Player") and table_rows[0][-1] == t(
        "Takes home (%(currency)s)", currency="EUR")
    assert sum(float(row[-1]) for row in table_rows[1:]) == 20.0
    # W/L marks on the filled sheets are the language's (G/P in Spanish), twelve a card.
    host.goto(party_url + "sheets/?filled=1")
    won = translation.pgettext  # the marks have a context: "won a round" / "lost a round"
    with translation.override(language):
        marks = {won("won a round", "W"), won("lost a round", "L")}
    assert marks != {"W", "L"}
    for card in host.locator(".score-card").all():
        shown = [m for m in card.locator("tr.wl td").all_inner_texts() if m in marks]
        assert len(shown) == ROUNDS, shown
