"""The printables: who may open each, and what they show (the rule sheet's sentences, blank and
filled score sheets, a tally sheet a table a set, the players' QR cards)."""

import re
from html import unescape

import pytest
import segno
from django.urls import reverse

from parties import access
from parties.models import AccessLink, Party, Round, ScoreSheetLine, Seat
from tests.parties.conftest import create_party

pytestmark = pytest.mark.django_db

HOST_ONLY = ["player_cards", "score_sheets", "tally_sheets"]


def url(name, party):
    return reverse(f"parties:{name}", args=[party.id])


def text(response):
    """The page's words, tags stripped, as a reader sees them."""
    html = response.content.decode()
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))


def test_anyone_at_the_party_may_read_the_rule_sheet(host, keeper, player, code_viewer, party):
    for browser in (host, keeper, player, code_viewer):
        response = browser.get(url("rules_sheet", party))
        assert response.status_code == 200
        assert "no-store" in response["Cache-Control"]


def test_nobody_from_outside_the_party_may_read_the_rule_sheet(stranger, other_host, party):
    assert stranger.get(url("rules_sheet", party)).status_code == 403
    assert other_host.get(url("rules_sheet", party)).status_code == 403


@pytest.mark.parametrize("name", HOST_ONLY)
def test_only_the_host_may_print_cards_and_sheets(name, host, keeper, player, code_viewer,
                                                   stranger, other_host, party):
    assert host.get(url(name, party)).status_code == 200
    for browser in (keeper, player, code_viewer, stranger, other_host):
        assert browser.get(url(name, party)).status_code == 403


def test_the_rule_sheet_says_the_night_s_rules_in_sentences_not_option_names(host):
    party = create_party(host, preset="wba")
    page = text(host.get(url("rules_sheet", party)))
    assert "Tonight's rules" in page and "Playing World Bunco Association rules." in page
    assert "The night is four sets of 6 rounds; each set starts again at round 1." in page
    assert "There is a break after set 2." in page
    assert "Whoever rolls a Bunco takes the fuzzy die." in page
    assert "Traveling triple" not in page and "traveling_triple" not in page


def test_the_rule_sheet_of_a_standard_night_names_no_fuzzy_die_triple(host, party):
    page = text(host.get(url("rules_sheet", party)))
    assert "No fuzzy die tonight." in page
    assert "2-2-2" not in page
    # Three tables: the ladder as it runs over three.
    assert "the head table's winners stay and its losers go down to table 2" in page


def test_the_rule_sheet_says_custom_rules_once_an_option_differs(host):
    party = create_party(host, play_to="11")
    page = text(host.get(url("rules_sheet", party)))
    assert "Playing custom rules." in page and "reaches 11 points" in page


def test_the_rule_sheet_links_back_to_where_its_reader_came_from(host, player, party):
    assert url("host", party) in host.get(url("rules_sheet", party)).content.decode()
    page = player.get(url("rules_sheet", party)).content.decode()
    assert url("party", party) in page and url("host", party) not in page


def cards(response):
    return re.findall(r'<article class="score-card[^"]*">(.*?)</article>', response.content.decode(),
                      re.S)


def test_blank_score_sheets_are_one_a_player_four_to_a_page_with_every_set(host, party):
    response = host.get(url("score_sheets", party))
    html = response.content.decode()
    assert len(cards(response)) == 12
    assert html.count('class="paper score-page"') == 3
    names = re.findall(r'<h2 class="player-name">([^<]+)</h2>', html)
    assert names == [p.name for p in party.players.filter(is_ghost=False)]
    first = cards(response)[0]
    assert first.count('class="score-set"') == party.rules.sets == 2
    assert re.findall(r'<th scope="col">(\d)</th>', first) == [str(n) for n in range(1, 7)] * 2
    for label in ("W / L", "Buncos", "Mini Buncos"):
        assert first.count(f'<th scope="row">{label}</th>') == 2
    assert "Points</th>" not in first  # a blank sheet has boxes for the marks players keep
    assert not re.search(r"<td>[WL0-9]", first)  # and nothing filled in


def test_a_party_with_ghosts_prints_no_sheet_for_a_ghost(host):
    party = create_party(host, names=["Ann", "Bea", "Cleo", "Dot", "Edie"])
    response = host.get(url("score_sheets", party))
    assert len(cards(response)) == 5
    assert "Ghost" not in text(response)


def play_round_one(party):
    """Round 1 closed as the player's page would show it: Ann won with a Bunco, Bea lost."""
    round_ = Round.objects.get(party=party, number=1, bunco_set__number=1)
    for seat in Seat.objects.filter(round=round_).select_related("player"):
        name = seat.player.name
        ScoreSheetLine.objects.create(
            player=seat.player, round=round_, table=seat.table, won=name in ("Ann", "Cleo"),
            points={"Ann": 23, "Bea": 4}.get(name, 2), buncos=1 if name == "Ann" else 0,
            mini_buncos=2 if name == "Bea" else 0,
        )
    Round.objects.filter(pk=round_.pk).update(status="closed")


def card_of(response, name):
    return next(c for c in cards(response) if f">{name}</h2>" in c)


def rows(card):
    """{(set, label): [cells]} of a sheet, the set's total cell last."""
    found = {}
    for number, body in re.findall(r'<th scope="col">Set (\d)</th>.*?</tr>(.*?)</tbody>', card, re.S):
        for label, cells in re.findall(r'<th scope="row">([^<]+)</th>(.*?)</tr>', body, re.S):
            found[(int(number), label)] = [
                re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", cells)
            ]
    return found


def test_filled_score_sheets_show_each_round_as_the_player_s_page_does(host, party):
    play_round_one(party)
    response = host.get(url("score_sheets", party) + "?filled=1")
    assert response.status_code == 200
    ann, bea = rows(card_of(response, "Ann")), rows(card_of(response, "Bea"))
    assert ann[(1, "W / L")] == ["W", "", "", "", "", "", "1 W 0 L"]
    assert ann[(1, "Buncos")] == ["1", "", "", "", "", "", "1"]
    assert ann[(1, "Points")] == ["23", "", "", "", "", "", "23"]
    assert bea[(1, "W / L")][0] == "L" and bea[(1, "Mini Buncos")][0] == "2"
    assert ann[(2, "W / L")] == [""] * 7  # set 2 is still to come: not even a total
    # The same numbers as Ann's own page.
    ann_id = party.players.get(name="Ann").id
    own = text(host.get(reverse("parties:player", args=[party.id, ann_id])))
    assert "Points 23" in own
    totals = re.sub(r"<[^>]+>", " ", card_of(response, "Ann").split('class="night-totals">')[1])
    assert re.sub(r"\s+", " ", totals).split() == [
        "Wins", "1", "Losses", "0", "Buncos", "1", "Mini", "Buncos", "0", "Points", "23",
    ]


def tallies(response):
    return re.findall(r'<article class="tally-sheet">(.*?)</article>', response.content.decode(),
                      re.S)


def test_a_tally_sheet_a_table_a_set_with_two_team_columns_and_six_rounds(host, party):
    response = host.get(url("tally_sheets", party))
    sheets = tallies(response)
    assert len(sheets) == 3 * 2  # three tables, two sets
    assert response.content.decode().count('class="paper tally-page"') == 3
    heads = [re.search(r"<h2>(.*?)</h2>", s).group(1) for s in sheets]
    assert heads[:3] == ["Table 1 (head table) · Set 1", "Table 1 (head table) · Set 2",
                         "Table 2 · Set 1"]
    first = sheets[0]
    assert first.count('class="side-col"') == 2
    assert "Team A" in first and "seats 1 and 3" in first and "seats 2 and 4" in first
    assert first.count('<td class="tally-box">') == 6 * 2
    assert "play to 21" in first


def test_in_individual_play_a_tally_sheet_has_a_column_a_seat(host):
    party = create_party(host, names=["Ann", "Bea", "Cleo", "Dot", "Edie", "Fran"],
                         preset="tournament")
    sheets = tallies(host.get(url("tally_sheets", party)))
    seats = sorted(first.count('class="side-col"') for first in sheets)
    assert sum(seats) == 6 * 2  # six players, every seat a column, in each of two sets
    assert "Team" not in " ".join(sheets)
    assert "10-minute rounds" in sheets[0]


def test_player_cards_carry_each_player_s_link_and_the_party_code(host, party, settings):
    settings.BASE_URL = "http://192.168.1.23:8000/"  # the address phones use, as party_server sets
    html = host.get(url("player_cards", party)).content.decode()
    found = re.findall(r'<h2 class="player-name">([^<]+)</h2>', html)
    assert found == [p.name for p in party.players.filter(is_ghost=False)]
    assert html.count("<svg") >= 12 and html.count('class="paper player-card-page"') == 2
    assert "http://192.168.1.23:8000/join/" in html
    code = Party.objects.get(pk=party.pk).code
    assert f"{code[:4]} {code[4:8]} {code[8:]}" in html  # three groups of four
    # Ann's card holds the QR code of Ann's own link, at the address phones use.
    ann = AccessLink.objects.get(party=party, role="player", player__name="Ann")
    ann_url = "http://192.168.1.23:8000" + reverse("parties:redeem", args=[access.token_for(ann)])
    ann_card = html.split(">Ann</h2>")[1].split("</article>")[0]
    assert segno.make(ann_url, error="m").svg_inline(border=2, omitsize=True) in ann_card
    host_link = AccessLink.objects.get(party=party, role="host")
    table_link = AccessLink.objects.get(party=party, role="table", table__number=1)
    for other in (host_link, table_link):
        other_url = "http://192.168.1.23:8000" + reverse(
            "parties:redeem", args=[access.token_for(other)]
        )
        assert segno.make(other_url, error="m").svg_inline(border=2, omitsize=True) not in html
