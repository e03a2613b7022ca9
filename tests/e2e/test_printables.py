"""The printables printed by Chromium to PDF, on Letter and on A4: the words are on the paper,
every card and sheet lands whole on the page it belongs to, and no button, field or
navigation of the screen is printed."""

import math
import re
import unicodedata
from io import BytesIO
from types import SimpleNamespace

import pytest
from playwright.sync_api import expect
from pypdf import PdfReader

from bench.servers import ROOT
from tests.devices import LAPTOP, PHONE
from tests.e2e.phone import scorekeeper, start_round, tap
from tests.e2e.test_party_setup import TWELVE, create_party, link_url

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PDFS = ROOT / "test-artifacts" / "printables"
FORMATS = ("Letter", "A4")

# What the screen shows and paper must not: a control of any kind, or a page's navigation.
VISIBLE_CONTROLS = """() => [...document.querySelectorAll(
    'button, input, select, textarea, nav, form, [role=button]')]
  .filter((el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden')
  .map((el) => el.outerHTML.slice(0, 80))"""


def printed(page, name):
    """The page printed to PDF in each format: {format: [each paper page's text]}. The PDFs
    stay in test-artifacts/printables/ for a person to look at."""
    page.emulate_media(media="print")
    assert page.evaluate(VISIBLE_CONTROLS) == []
    PDFS.mkdir(parents=True, exist_ok=True)
    texts = {}
    for paper in FORMATS:
        pdf = page.pdf(format=paper)  # print media, no background graphics: as a printer gets it
        (PDFS / f"{name}-{paper.lower()}.pdf").write_bytes(pdf)
        reader = PdfReader(BytesIO(pdf))
        # NFKC: the PDF's font sets "fi" as one ligature glyph.
        texts[paper] = [
            re.sub(r"\s+", " ", unicodedata.normalize("NFKC", p.extract_text()))
            for p in reader.pages
        ]
    page.emulate_media(media="screen")
    return texts


def host_party(chromium, server, name, players, preset=None):
    host = chromium.new_context(**LAPTOP).new_page()
    create_party(host, SimpleNamespace(url=server.url), name, players, preset=preset)
    return host, host.url.removesuffix("host/")


def test_the_rule_sheet_prints_the_night_s_sentences_and_reads_on_a_phone(chromium, server, shots):
    host, party_url = host_party(chromium, server, "Rules Night", TWELVE, preset="wba")
    ann_link = link_url(host, "Ann")
    host.goto(party_url + "rules/")
    expect(host.get_by_role("heading", name="Tonight's rules")).to_be_visible()
    sentences = host.locator(".rule p").all_inner_texts()
    assert len(sentences) == 13
    for paper, pages in printed(host, "rules").items():
        assert len(pages) == 1, paper  # one sheet to lay on each table
        assert "Tonight's rules" in pages[0] and "Playing World Bunco Association rules." in pages[0]
        joined = " ".join(pages)
        assert "There is a break after set 2." in joined
        assert "Print" not in joined and "Back to the host page" not in joined
        for sentence in sentences:  # each topic printed whole on one page
            words = re.sub(r"\s+", " ", sentence)
            assert any(words in page_text for page_text in pages), (paper, sentence)

    # A player opens it on a phone from their own link.
    phone = chromium.new_context(**PHONE).new_page()
    phone.goto(ann_link)
    phone.goto(party_url + "rules/")
    expect(phone.locator(".rule h2").first).to_have_text("Target")
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 360, f"the rule sheet is {width}px wide on a 360px phone"
    shots(phone, "rules-phone")


def test_blank_sheets_print_four_to_a_page_tallies_two_and_player_cards_six(chromium, server, shots):
    # The World Bunco Association's four sets: the fullest score sheet.
    host, party_url = host_party(chromium, server, "Paper Night", TWELVE, preset="wba")
    host.goto(party_url + "sheets/")
    expect(host.locator(".score-card")).to_have_count(12)
    shots(host, "blank-sheets-laptop")
    names = host.locator(".score-card .player-name").all_inner_texts()
    for paper, pages in printed(host, "blank-sheets").items():
        assert len(pages) == 3, (paper, len(pages))  # a card too tall would spill a page
        for number, page_text in enumerate(pages):
            on_it = [name for name in names if f"{name} Paper Night" in page_text]
            assert on_it == names[number * 4 : number * 4 + 4], (paper, number, page_text)
            assert page_text.count("Set 4") == 4 and page_text.count("Mini Buncos") >= 16

    host.goto(party_url + "tally/")
    expect(host.locator(".tally-sheet")).to_have_count(3 * 4)
    heads = host.locator(".tally-sheet h2").all_inner_texts()
    for paper, pages in printed(host, "tally").items():
        assert len(pages) == 6, (paper, len(pages))
        for number, page_text in enumerate(pages):
            on_it = [head for head in heads if head in page_text]
            assert on_it == heads[number * 2 : number * 2 + 2], (paper, number, page_text)
            assert page_text.count("Team A") == 2 and page_text.count("roll 6s") == 2

    host.goto(party_url + "host/player-cards/")
    expect(host.locator(".player-card svg")).to_have_count(12)
    code = host.locator(".player-card .code").first.inner_text()
    for paper, pages in printed(host, "player-cards").items():
        assert len(pages) == math.ceil(12 / 6), (paper, len(pages))
        for number, page_text in enumerate(pages):
            # Each card gives the player's table and seat in the round to come.
            on_it = [name for name in TWELVE if re.search(
                rf"Paper Night {name} Table \d · seat \d: where you start Scan", page_text)]
            assert on_it == TWELVE[number * 6 : number * 6 + 6], (paper, number, page_text)
            # The code is letter-spaced on the card: how a PDF reader splits it into words
            # depends on the browser build, so compare it as a reader sees it, spaces aside.
            unspaced = re.sub(r"\s+", "", page_text)
            assert unspaced.count(re.sub(r"\s+", "", code)) == 6, (paper, number, page_text)
            assert page_text.count("/join/") == 6


def test_filled_score_sheets_print_the_night_as_the_phones_showed_it(chromium, server, shots):
    host, party_url = host_party(
        chromium, server, "Four Night", ["Ann", "Bea", "Cleo", "Dot"], preset="wba"
    )
    links = {name: link_url(host, name) for name in ("Table 1", "Ann", "Bea", "Cleo", "Dot")}
    start_round(host)
    table = scorekeeper(chromium, links["Table 1"])
    tap(table, "BUNCO!")
    table.locator("dialog.call-dialog").get_by_role("button", name="Yes, they called it").click()
    expect(table.locator("section#table-1 .side-points")).to_have_text(["21", "0"])
    tap(table, "Nothing")  # the bell ringer's turn ends: the only table is done
    expect(table.locator(".set-round")).to_have_text("Set 1 · round 2")

    host.goto(party_url + "sheets/?filled=1")
    cards = host.locator(".score-card")
    expect(cards).to_have_count(4)
    winners = [c for c in cards.all() if c.locator("tr.wl td").first.inner_text() == "W"]
    assert len(winners) == 2
    buncos = [c for c in cards.all() if c.locator(".night-totals dd").nth(2).inner_text() == "1"]
    assert len(buncos) == 1
    bunco_name = buncos[0].locator(".player-name").inner_text()
    shots(host, "filled-sheets-laptop")
    for paper, pages in printed(host, "filled-sheets").items():
        assert len(pages) == 1, paper
        assert pages[0].count("1 W 0 L") == 2 and pages[0].count("0 W 1 L") == 2, pages[0]
        assert all(name in pages[0] for name in ("Ann", "Bea", "Cleo", "Dot"))

    # The paper says what the Bunco roller's own page says.
    own = chromium.new_context(**PHONE).new_page()
    own.goto(links[bunco_name])
    expect(own.locator(".totals div", has_text="Buncos").first.locator("dd")).to_have_text("1")
    expect(own.locator(".totals div", has_text="Points").locator("dd")).to_have_text(
        buncos[0].locator(".night-totals dd").nth(4).inner_text()
    )


def test_table_cards_print_four_to_a_page_on_letter_as_on_a4(chromium, server, shots):
    # Twenty players sit at five tables: a full sheet of four cards, then one.
    players = [f"Player {n:02}" for n in range(1, 21)]
    host, _party_url = host_party(chromium, server, "Card Night", players)
    host.get_by_role("link", name="Print table cards").click()
    expect(host.locator(".table-print-card .qr svg")).to_have_count(5)
    code = host.locator(".table-print-card .code").first.inner_text()
    for paper, pages in printed(host, "table-cards").items():
        assert len(pages) == 2, (paper, len(pages))  # two cards on page 1 left half of it empty
        for number, page_text in enumerate(pages):
            tables = [int(n) for n in re.findall(r"\bTable (\d+)\b", page_text)]
            assert tables == list(range(number * 4 + 1, min(number * 4 + 4, 5) + 1)), (
                paper, number, page_text)
            unspaced = re.sub(r"\s+", "", page_text)
            assert unspaced.count(re.sub(r"\s+", "", code)) == len(tables), (paper, page_text)
        assert "Head table: rings the bell" in pages[0]
    shots(host, "table-cards-laptop")
