"""A whole night in Chromium, as the default tier's one browser walk of it: a host on a laptop
sets up four players at one table, starts each of the twelve rounds of two sets, and the
table's scorekeeper phone scores them (a called Bunco one round, the host's bell and a point the
next); a player's phone watches the night from its seat to the prizes, and the results, the
filled sheets and the standings file say what the phones showed."""

import csv
import io
import re
from types import SimpleNamespace

import pytest
from playwright.sync_api import expect

from tests.devices import LAPTOP, PHONE
from tests.e2e.phone import scorekeeper, start_round, tap
from tests.e2e.test_party_setup import create_party, link_url

pytestmark = pytest.mark.e2e

FOUR = ["Ann", "Bea", "Cleo", "Dot"]
ROUNDS = 12  # the standard rules: two sets of six


def _points(table):
    return table.locator("section#table-1 .side-points")


def _bunco_round(table):
    tap(table, "BUNCO!")
    table.locator("dialog.call-dialog").get_by_role("button", name="Yes, they called it").click()
    expect(_points(table)).to_have_text(["21", "0"])  # the bell rings itself at 21
    tap(table, "Nothing")  # the ringer's turn ends: the only table is done


def _bell_round(host, table):
    host.get_by_role("button", name="Ring the bell", exact=True).click()
    expect(table.locator("#live .live-table")).to_have_attribute("data-bell", "1")
    tap(table, "1 point")  # the turn in hand scores after the bell
    expect(_points(table)).to_have_text(["1", "0"])
    tap(table, "Nothing")


def test_a_whole_night_is_hosted_scored_watched_and_printed(chromium, server, shots):
    host = chromium.new_context(**LAPTOP).new_page()
    create_party(host, SimpleNamespace(url=server.url), "Whole Night", FOUR)
    party_url = host.url.removesuffix("host/")
    table = scorekeeper(chromium, link_url(host, "Table 1"))
    player = chromium.new_context(**PHONE).new_page()
    player.goto(link_url(host, "Ann"))
    expect(player.locator("body")).to_have_attribute("data-socket", "open")

    for number in range(1, ROUNDS + 1):
        set_number, round_number = (number - 1) // 6 + 1, (number - 1) % 6 + 1
        expect(table.locator(".set-round")).to_have_text(f"Set {set_number} · round {round_number}")
        expect(player.locator("#where")).to_contain_text(
            f"Set {set_number}, round {round_number}: table 1"
        )
        start_round(host)
        if number % 2:
            _bunco_round(table)
        else:
            _bell_round(host, table)
        if number == 6:
            shots(player, "player-after-set-1")
        if number < ROUNDS:
            expect(player.locator("#sheet table.sheet tbody tr")).to_have_count(number)

    # The night is over on every screen.
    expect(player.locator("#where")).to_contain_text("That's the night!")
    expect(player.locator("#bell-banner")).to_have_text("That's the night! See the prizes.")
    shots(player, "player-night-over")
    sheet = {
        label: int(player.locator(".totals div", has_text=label).first.locator("dd").inner_text())
        for label in ("Wins", "Losses")
    }
    assert sheet["Wins"] + sheet["Losses"] == ROUNDS
    expect(player.locator("#sheet table.sheet tbody tr")).to_have_count(ROUNDS)

    host.goto(party_url + "results/")
    expect(host.locator(".lead")).to_have_text("Final standings")
    rows = host.locator("table.standings tbody tr")
    expect(rows).to_have_count(4)
    shots(host, "results-laptop")
    standings = {
        r.locator("td").nth(0).inner_text(): [int(c) for c in r.locator("td").all_inner_texts()[1:]]
        for r in rows.all()
    }
    assert standings["Ann"][:2] == [sheet["Wins"], sheet["Losses"]]
    # Six rounds won by a called Bunco (21 points each), six by one point after the bell:
    # every round has two winners and two losers, and the Buncos are six.
    assert sum(s[0] for s in standings.values()) == 2 * ROUNDS
    assert sum(s[1] for s in standings.values()) == 2 * ROUNDS
    assert sum(s[2] for s in standings.values()) == ROUNDS // 2
    prizes = host.locator("#prizes li")
    expect(prizes.first).not_to_contain_text("nobody yet")

    # The standings file, as the button downloads it, says the same.
    with host.expect_download() as download:
        host.get_by_role("link", name="Download the standings (CSV)").click()
    text = open(download.value.path(), encoding="utf-8-sig").read()
    by_name = {row["Player"]: row for row in csv.DictReader(io.StringIO(text))}
    assert set(by_name) == set(FOUR)
    for name, (wins, losses, buncos, *_rest) in standings.items():
        row = by_name[name]
        assert [int(row["Wins"]), int(row["Losses"]), int(row["Buncos"])] == [wins, losses, buncos]

    # The filled score sheets: twelve rounds on each player's card.
    host.goto(party_url + "sheets/?filled=1")
    expect(host.locator(".score-card")).to_have_count(4)
    for card in host.locator(".score-card").all():
        marks = [m for m in card.locator("tr.wl td").all_inner_texts() if re.fullmatch("[WL]", m)]
        assert len(marks) == ROUNDS, marks
    shots(host, "filled-sheets-laptop")
