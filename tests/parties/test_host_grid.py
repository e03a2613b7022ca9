"""A big party's host page: the tables as a grid of small cells, the filter, the search by
name, the links' QR codes drawn only when opened, and what a refetch weighs at 100 tables."""

import re
import uuid

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from parties.models import AccessLink, LateTap, Party, Roll, Seat
from parties.pages import host_grid
from parties.services.party import party_create
from parties.services.round import round_start
from scoring import PRESETS
from tests.parties.conftest import Browser, create_party, redeem
from tests.parties.test_play import finish_round, live, tap

pytestmark = pytest.mark.django_db
HALL = [f"Guest {n:03}" for n in range(1, 401)]


@pytest.fixture
def hall():
    """A 400-player party (100 tables) and its host's browser."""
    party = party_create(name="The hall", player_names=HALL, preset="standard",
                         rules=PRESETS["standard"])
    browser = Browser()
    redeem(browser, AccessLink.objects.get(party=party, role="host"))
    return party, browser


def host_page(browser, party, query="", **headers):
    response = browser.get(reverse("parties:host", args=[party.id]) + query, **headers)
    assert response.status_code == 200
    return response.content.decode()


def cells(html):
    return [int(n) for n in re.findall(r'<li id="cell-(\d+)"', html)]


def cells_with(html, mark):
    return [int(n) for n, classes in re.findall(r'<li id="cell-(\d+)" class="([^"]*)"', html)
            if mark in classes.split()]


def test_a_hundred_tables_are_a_grid_of_cells_with_no_full_table_cards(hall):
    party, browser = hall
    round_start(party=party)
    html = host_page(browser, party)
    assert cells(html) == list(range(1, 101))
    assert 'class="live-table' not in html  # no card a table
    assert 'id="grid-search"' in html and "0 of 100 done" in html
    # The table's link is each cell, and each cell says what the table is doing.
    assert f'href="{reverse("parties:table", args=[party.id, 57])}"' in html
    assert html.count("Rolling</span>") == 100


def test_a_party_of_eight_tables_or_fewer_keeps_a_card_a_table(host):
    party = create_party(host, names=[f"P{n}" for n in range(32)])
    round_start(party=party)
    html = host_page(host, party)
    assert html.count('class="live-table') == 8 and 'id="table-grid"' not in html
    assert host_grid.COMPACT_FROM == 8


def test_after_the_bell_the_grid_names_the_tables_still_playing_and_the_filter_hides_the_done(hall):
    party, browser = hall
    round_start(party=party)
    tap(party, 1, (1, 1, 1), called=True)  # the head table's Bunco rings the bell
    tap(party, 1, (2, 3, 4))  # the ringer's turn ends: table 1 is done
    tap(party, 2, (1, 2, 3))  # table 2's scorekeeper scores 1 (a 0-0 table would roll off)
    tap(party, 2, (2, 3, 4))  # and misses: done
    html = host_page(browser, party)
    assert "2 of 100 done" in html
    behind = re.search(r'<p class="behind-note".*?</p>', html, re.S).group(0)
    assert "98 tables still playing after the bell" in behind
    assert cells_with(html, "behind") == list(range(3, 101))
    table_1 = re.search(r'<li id="cell-1".*?</li>', html, re.S).group(0)
    assert "phase-done" in table_1 and '<span class="lead">21</span>' in table_1
    for number in range(3, 91):  # all but ten finish: those ten are named
        tap(party, number, (1, 2, 3))
        tap(party, number, (2, 3, 4))
    html = host_page(browser, party)
    behind = re.search(r'<p class="behind-note".*?</p>', html, re.S).group(0)
    assert "Still playing after the bell: " in behind and "table 91<" in behind
    assert "table 90<" not in behind and "table 100<" in behind
    assert host_page(browser, party, "?show=late").count('class="grid-empty">No late roll') == 1
    open_only = host_page(browser, party, "?show=open")
    assert cells(open_only) == list(range(91, 101))
    assert "Showing 10 of 100 tables: not done." in open_only
    # The refetch (htmx, at the address shown) keeps the filter.
    refetch = host_page(browser, party, "?show=open", HTTP_HX_REQUEST="true")
    assert refetch.lstrip().startswith('<div id="live"') and cells(refetch) == list(range(91, 101))


def test_the_late_roll_filter_shows_only_tables_with_a_roll_waiting_for_the_host(hall):
    party, browser = hall
    round_start(party=party)
    round_, _state = live(party)
    LateTap.objects.create(
        party=party, round=round_, table=party.tables.get(number=42), tap_id=uuid.uuid4(),
        fields={"dice": [1, 2, 3], "called": None, "seen": 0, "bell_seen": False},
        description="1 point for Guest 001", entered_by="Table 42",
    )
    html = host_page(browser, party, "?show=late")
    assert cells(html) == [42]
    assert "1 late roll</a> waiting" in html and "1 late</span>" in html


def test_a_search_by_name_finds_the_players_table_and_seat_in_any_case(hall):
    party, browser = hall
    round_start(party=party)
    round_, now = live(party)
    guest = party.players.get(name="Guest 123")
    number = next(n for n, t in enumerate(now.state.tables, 1) if str(guest.id) in t.seats)
    seat = now.state.tables[number - 1].seats.index(str(guest.id)) + 1
    html = host_page(browser, party, "?find=guest+123")
    found = re.search(r'<div class="found card".*?</div>', html, re.S).group(0)
    assert f"<strong>Guest 123</strong>: table {number}, seat {seat}" in found
    marked = re.search(rf'<li id="cell-{number}" class="[^"]*"', html).group(0)
    assert "found" in marked
    assert len(re.findall(r'class="grid-cell[^"]* found"', html)) == 1
    # A part of a name finds everyone it is in; the list is cut, the grid marks them all.
    many = host_page(browser, party, "?find=guest+1")
    assert many.count("<strong>Guest 1") == host_grid.FOUND_SHOWN
    assert f"and {100 - host_grid.FOUND_SHOWN} more" in many  # Guest 100 to Guest 199
    nobody = host_page(browser, party, "?find=Zed")
    assert "No player's name holds “Zed”." in nobody


def test_an_unknown_filter_shows_every_table_and_a_search_is_cut_to_a_names_length(hall):
    party, browser = hall
    html = host_page(browser, party, "?show=nonsense&find=" + "x" * 500)
    assert len(cells(html)) == 100  # before round 1 the grid shows the seating
    assert "x" * 41 not in html and "x" * 40 in html
    assert "Waiting</span>" in html


def test_the_links_qr_codes_are_images_the_host_alone_can_load(hall):
    party, browser = hall
    html = host_page(browser, party)
    assert "<svg" not in html  # 501 codes are not drawn into the page
    link = AccessLink.objects.filter(party=party, role="player").first()
    url = reverse("parties:link_qr", args=[party.id, link.id])
    assert f'src="{url}"' in html
    response = browser.get(url)
    assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"
    assert response.content.startswith(b'<svg xmlns="http://www.w3.org/2000/svg"')
    assert "no-store" in response["Cache-Control"]
    assert Browser().get(url).status_code in (403, 404)  # a stranger
    other = create_party(Browser())
    other_link = AccessLink.objects.filter(party=other).first()
    assert browser.get(reverse("parties:link_qr", args=[party.id, other_link.id])).status_code == 404


def test_at_a_hundred_tables_in_play_the_refetch_stays_small(hall):
    party, browser = hall
    round_start(party=party)
    for number in range(2, 101):
        tap(party, number, (1, 2, 3))
    refetch = host_page(browser, party, HTTP_HX_REQUEST="true")
    whole = host_page(browser, party)
    # 385 KB and 1.9 MB before the grid (bench/results/2026-12-01.md).
    assert len(refetch.encode()) < 60_000, len(refetch.encode())
    assert len(whole.encode()) < 400_000, len(whole.encode())  # 501 links, each a row


@pytest.mark.slow
def test_a_whole_round_at_a_hundred_tables_closes_and_the_grid_shows_the_next_seating(hall):
    party, browser = hall
    round_start(party=party)
    finish_round(party, taps=1000)  # a few taps a table, for 100 tables
    party = Party.objects.get(pk=party.pk)
    html = host_page(browser, party, "?find=Guest+001")
    assert "Set 1, round 2" in html and len(cells(html)) == 100
    assert 'id="seating"' in html and html.count('class="table-card') == 100


def players_view(browser, party, query=""):
    response = browser.get(reverse("parties:party", args=[party.id]) + query)
    assert response.status_code == 200
    return response.content.decode()


def test_the_players_view_of_a_big_party_finds_a_players_table_by_name(hall):
    party, host = hall
    round_, now = live(party)
    guest = party.players.get(name="Guest 321")
    number = next(n for n, t in enumerate(now.state.tables, 1) if str(guest.id) in t.seats)
    html = players_view(host, party, "?find=GUEST+321")
    assert 'id="find-table"' in html
    found = re.search(r'<div class="found card".*?</div>', html, re.S).group(0)
    assert f"<strong>Guest 321</strong></a>: table {number}, seat " in found
    assert reverse("parties:player", args=[party.id, guest.id]) in found
    # Every table is still there, folded away, and the 400 names too.
    assert html.count('class="table-card') == 100
    assert '<details class="every-table">' in html and '<details class="every-name">' in html
    assert "No player's name holds “Zed”" in players_view(host, party, "?find=Zed")


def test_a_small_partys_players_view_is_as_before(host):
    party = create_party(host)
    html = players_view(host, party, "?find=Ann")
    assert 'id="find-table"' not in html and "every-table" not in html
    assert html.count('class="table-card') == 3


def test_a_400_player_tournament_gives_every_player_a_table_on_their_card(host):
    # Seed 004: "You will receive your table number at registration": individual play, nobody
    # changes tables, so the card's table is the player's for the night.
    party = create_party(host, names=HALL, preset="tournament")
    assert party.tables.count() == 100 and not party.players.filter(is_ghost=True).exists()
    page = host.get(reverse("parties:player_cards", args=[party.id])).content.decode()
    cards = re.findall(
        r'<h2 class="player-name">([^<]+)</h2>\s*<p class="player-table"><strong>Table (\d+)'
        r"</strong> · seat (\d): your table for the night</p>", page)
    assert [name for name, _t, _s in cards] == HALL
    seated = {(s.player.name, s.table.number, s.position)
              for s in Seat.objects.filter(round__party=party, round__number=1,
                                           round__bunco_set__number=1)
              .select_related("player", "table")}
    assert {(name, int(t), int(s)) for name, t, s in cards} == seated
    per_table = [sum(1 for _n, t, _s in cards if int(t) == n) for n in range(1, 101)]
    assert per_table == [4] * 100


def test_a_team_partys_card_says_where_the_player_starts(host):
    party = create_party(host)
    page = host.get(reverse("parties:player_cards", args=[party.id])).content.decode()
    assert page.count(": where you start</p>") == 12 and "for the night" not in page


def test_397_players_sit_at_100_tables_with_three_ghosts_each_beside_a_real_partner(host):
    party = create_party(host, names=HALL[:397])
    assert party.tables.count() == 100
    seats = Seat.objects.filter(round__party=party).select_related("player", "table")
    assert seats.count() == 400
    by_table = {}
    for seat in seats:
        by_table.setdefault(seat.table.number, {})[seat.position] = seat.player
    assert all(len(chairs) == 4 for chairs in by_table.values())
    ghosts = [(n, p) for n, chairs in by_table.items() for p, player in chairs.items()
              if player.is_ghost]
    assert len(ghosts) == 3 and all(n >= 98 for n, _p in ghosts)  # from the bottom table up
    for number, position in ghosts:
        partner = by_table[number][(position + 1) % 4 + 1]  # across the table: 1-3, 2-4
        assert not partner.is_ghost


def test_a_400_player_night_exports_and_imports_whole(hall):
    from parties.exchange import exports
    from parties.views.files import document_json

    party, _host = hall
    round_start(party=party)
    for number in range(1, 101, 7):
        tap(party, number, (1, 2, 3))
    text = document_json(exports.party_document(party)).encode()
    browser = Browser()
    response = browser.post(reverse("parties:import"), {
        "file": SimpleUploadedFile("hall.json", text, content_type="application/json")})
    assert response.status_code == 302, response.content.decode()[:500]
    copy = Party.objects.exclude(pk=party.pk).get()
    assert copy.players.filter(is_ghost=False).count() == 400 and copy.tables.count() == 100
    assert Roll.objects.filter(round__party=copy).count() == 15
    assert len(cells(host_page(browser, copy))) == 100
