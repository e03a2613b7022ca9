"""The prize results as a host prints them, in Chromium: one round played at two tables, a
pot, a prize tie settled by roll-off; printed to PDF on Letter and A4. Paper shows the prizes
and their winners, the roll-off's totals, the pot and the standings, and no control to tap."""

import io
import re
import unicodedata
from types import SimpleNamespace

import pytest
from playwright.sync_api import expect
from pypdf import PdfReader

from tests.devices import LAPTOP, SCREENSHOTS
from tests.e2e.test_live_round import Table
from tests.e2e.test_party_setup import create_party

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

EIGHT = ["Ann", "Bea", "Cleo", "Dot", "Edie", "Fran", "Gail", "Hope"]


def at_table(host, party_url, number):
    """The host opens a table's page and waits for its socket (which brings each roll back)."""
    host.goto(f"{party_url}table/{number}/")
    expect(host.locator("body")).to_have_attribute("data-socket", "open")
    return Table(host, number)


def play_one_round(host, party_url):
    """The host enters the round at both tables: a point at table 2 (so it has no tie to roll
    off), then 2 points at the head table until it passes 21 (the bell), a miss to end the
    ringer's turn, and a miss for the player holding the dice at table 2."""
    host.get_by_role("button", name="Start round 1").click()
    expect(host.locator("#fact-stage")).to_have_text("Set 1, round 1 in play")
    table_2 = at_table(host, party_url, 2)
    table_2.tap("1 point")
    table_2.tap("Nothing")
    head = at_table(host, party_url, 1)
    while head.live.get_attribute("data-bell") != "1":
        head.tap("2 points")
    head.tap("Nothing")
    table_2 = at_table(host, party_url, 2)
    expect(table_2.live).to_have_attribute("data-bell", "1")
    if table_2.live.get_attribute("data-phase") == "finishing":  # the holder's turn goes on
        table_2.tap("Nothing")
    host.goto(f"{party_url}host/")
    expect(host.locator("#fact-stage")).to_have_text("Set 1, round 2 waiting to start")


def test_the_printed_results_show_prizes_rolloffs_pot_and_standings(chromium, server):
    host = chromium.new_context(**LAPTOP).new_page()
    create_party(host, SimpleNamespace(url=server.url), "Print Night", EIGHT)
    party_url = re.sub(r"host/$", "", host.url)
    play_one_round(host, party_url)
    host.goto(f"{party_url}results/")
    # Four winners tie for most wins: the app rolls it off. A $5 buy-in, equal shares (the
    # form is open while there is no pot).
    host.get_by_label("Buy-in per player").fill("5")
    host.get_by_role("button", name="Save the pot").click()
    expect(host.locator(".messages")).to_contain_text("The pot is set.")
    wins = host.locator("#prize-most_wins")
    while wins.get_by_role("button", name="Roll for them").count():
        wins.get_by_role("button", name="Roll for them").click()
        expect(host.locator(".messages")).to_contain_text("Roll-off recorded.")
    expect(wins.locator(".rolloff-totals").first).to_contain_text("Roll-off")
    winner = wins.locator("strong").inner_text()

    host.emulate_media(media="print")
    visible_controls = host.locator(
        "main button:visible, main input:visible, main select:visible, main textarea:visible, "
        "nav:visible, .topbar:visible"
    )
    expect(visible_controls).to_have_count(0)
    out = SCREENSHOTS / "test_the_printed_results_show_prizes_rolloffs_pot_and_standings"
    out.mkdir(parents=True, exist_ok=True)
    for paper in ("Letter", "A4"):
        pdf = host.pdf(format=paper, print_background=False)
        (out / f"results-{paper}.pdf").write_bytes(pdf)
        text = " ".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages)
        text = " ".join(unicodedata.normalize("NFKC", text).split())  # "ﬀ" is "ff"
        for words in ("Print Night: results", "Most wins", winner, "Roll-off", "The pot",
                      "$40.00: 8 players × $5.00", "Takes home", "Everyone's sheet"):
            assert words in text, (paper, words, text)
        for words in ("Save the pot", "Roll for them", "Record totals", "Back to the host page"):
            assert words not in text, (paper, words)
