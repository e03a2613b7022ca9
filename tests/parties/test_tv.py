"""The room's scoreboard (parties:tv): who may open it, and what it shows before, during and
after a round, for 12 players and for a party of 100 tables."""

import re

import pytest
from django.urls import reverse

from parties import selectors
from parties.models import Party
from parties.party_codes import party_code_shown
from parties.services.party import party_create, party_end
from parties.services.round import round_start
from parties.views import tv as tv_views
from scoring import PRESETS
from tests.parties.conftest import TWELVE, Browser
from tests.parties.test_play import finish_round, tap

pytestmark = pytest.mark.django_db


def tv_url(party):
    return reverse("parties:tv", args=[party.id])


def with_the_code(party):
    """A browser that typed the party's code, as a smart TV's would."""
    browser = Browser()
    assert browser.post(reverse("parties:join"), {"code": party.code}).status_code == 302
    return browser


def text_of(response):
    """The page's words, tags dropped and spaces squeezed."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


@pytest.mark.parametrize(
    ("who", "status"),
    [("host", 200), ("code_viewer", 200), ("keeper", 403), ("player", 403), ("stranger", 403),
     ("other_host", 403)],
)
def test_the_hosts_link_or_the_party_code_opens_the_scoreboard_and_nothing_else(
    request, party, who, status
):
    response = request.getfixturevalue(who).get(tv_url(party))
    assert response.status_code == status
    if status == 403:
        words = text_of(response)
        assert "opens with the host's link , or with the party code" in words
        assert "A table's or a player's link alone does not open it" in words
        assert party.name not in words  # nothing of the party for a browser without access
        assert tv_url(party) in words  # where to come back once the code is typed


def test_a_screen_turned_away_types_the_code_and_lands_on_the_scoreboard(party):
    # From the TV's refusal, the join page keeps the way back; typed right, it opens the TV.
    tv = Browser()
    refused = tv.get(tv_url(party)).content.decode()
    assert f'href="{reverse("parties:join")}?then=tv"' in refused
    page = tv.get(reverse("parties:join") + "?then=tv").content.decode()
    assert "Open the room's scoreboard" in page and 'name="then" value="tv"' in page
    wrong = tv.post(reverse("parties:join"), {"code": "ZZZZZ2345", "then": "tv"})
    assert wrong.status_code == 400 and 'name="then" value="tv"' in wrong.content.decode()
    right = tv.post(reverse("parties:join"), {"code": party.code, "then": "tv"})
    assert right.status_code == 302 and right["Location"] == tv_url(party)
    assert tv.get(tv_url(party)).status_code == 200
    other = Browser()  # a guest's join, without the way back, lands on the party's page
    guest = other.post(reverse("parties:join"), {"code": party.code})
    assert guest["Location"] == reverse("parties:party", args=[party.id])


def test_before_round_one_the_tv_shows_where_to_sit_and_how_to_join(host, party):
    response = host.get(tv_url(party))
    html = response.content.decode()
    words = text_of(response)
    assert 'data-role="tv"' in html and 'data-tables="1,2,3"' in html
    assert "Set 1 · Round 1" in words and "Find your seat" in words
    assert re.search(r'class="tv-target-number">1<', html)
    seating = selectors.seating(selectors.current_round(party))
    for table in seating:
        card = re.search(rf'id="tv-seats-{table.number}".*?</article>', html, re.S).group(0)
        assert re.findall(r'<li class="tv-seat[^"]*">([^<]+)<', card) == [s.name for s in table.seats]
    assert "live-table" not in html  # no round in play: no table scores
    assert party_code_shown(party.code) in words
    assert "http://testserver/join/" in words  # the join page's address, also in the QR code
    assert html.count("<svg") == 1
    assert "tv-standings" not in html  # nobody has a sheet before round 1
    assert 'href="/static/parties/tv.css"' in html


def test_a_round_in_play_shows_every_tables_teams_and_points(host, party):
    round_start(party=party)
    tap(party, 2, (1, 1, 4))  # two 1s: 2 points for table 2's first team
    response = host.get(tv_url(party))
    html = response.content.decode()
    assert "In play" in text_of(response)
    assert html.count('class="live-table') == 3
    table_2 = re.search(r'<section id="table-2".*?</section>', html, re.S).group(0)
    assert re.findall(r'data-points="(\d+)"', table_2) == ["2", "0"]
    seats = selectors.seating(selectors.current_round(party))[1].seats
    names = re.findall(r'class="side-names">([^<]+)<', table_2)
    assert names[0].replace("&amp;", "&") == f"{seats[0].name} & {seats[2].name}"  # partners
    assert "cols-2" in html  # three tables in two rows: wider cards than three in a row
    # live.js refetches the live region alone after a push: it is the same region.
    live = host.get(tv_url(party), HTTP_HX_REQUEST="true").content.decode()
    assert live.lstrip().startswith('<div id="live"') and 'id="table-3"' in live
    assert "<svg" not in live  # the join column stays as it was


def test_after_the_bell_the_header_says_so(host, party):
    round_start(party=party)
    tap(party, 1, (1, 1, 1), called=True)  # the head table's Bunco rings the bell
    response = host.get(tv_url(party))
    assert 'data-stage="bell"' in response.content.decode()
    assert "Bell! Finish your turn" in text_of(response)


def test_between_rounds_the_tv_shows_the_standings_and_the_next_seats(host, party):
    round_start(party=party)
    finish_round(party)
    response = host.get(tv_url(party))
    html = response.content.decode()
    words = text_of(response)
    assert "Set 1 · Round 2" in words and "Where to sit for round 2" in words
    assert "Standings after 1 round" in words
    # The results page's order, with places shared by players level on wins and points.
    rows, _prizes = selectors.party_results(party)
    shown = re.findall(r'<td class="place">(\d+)</td><td class="name">([^<]+)</td>', html)
    assert [name for _place, name in shown] == [row.name for row in rows[:10]]
    assert shown[0][0] == "1" and len(shown) == 10
    assert "Top 10 of 12 players" in words
    places = [int(place) for place, _name in shown]
    assert places == sorted(places)
    for table in selectors.seating(selectors.current_round(party)):
        card = re.search(rf'id="tv-seats-{table.number}".*?</article>', html, re.S).group(0)
        assert re.findall(r'<li class="tv-seat[^"]*">([^<]+)<', card) == [s.name for s in table.seats]
    assert "live-table" not in html


def test_level_players_share_a_place():
    from parties.selectors import ResultRow
    from scoring.party import ScoreSheet

    def row(name, marks, points):
        return ResultRow(0, name, ScoreSheet(tuple(marks), 0, 0, points))

    rows = [row("Ann", "WW", 9), row("Bea", "WW", 9), row("Cleo", "WL", 9), row("Dot", "LL", 1)]
    places = [(leader.place, leader.row.name) for leader in tv_views.leaders(rows, PRESETS["standard"])]
    assert places == [(1, "Ann"), (1, "Bea"), (3, "Cleo"), (4, "Dot")]


def test_where_the_rules_use_a_fuzzy_die_the_tv_names_its_holder():
    party = party_create(
        name="WBA night", player_names=TWELVE, preset="wba", rules=PRESETS["wba"]
    )
    round_start(party=party)
    holder = selectors.fuzzy_die(party)
    words = text_of(with_the_code(party).get(tv_url(party)))
    assert f"Fuzzy die: {holder.name} (head table)" in words


def test_once_the_party_is_over_the_tv_shows_the_prizes_and_final_standings(host, party):
    round_start(party=party)
    finish_round(party)
    party_end(party=Party.objects.get(pk=party.pk))
    response = host.get(tv_url(party))
    words = text_of(response)
    assert "The party is over" in words and "Final standings" in words and "Prizes" in words
    assert "Where to sit" not in words


def test_a_hundred_table_party_renders_in_smaller_cards_and_a_scrolling_seating():
    party = party_create(
        name="The hall", player_names=[f"Player {n}" for n in range(400)], preset="standard",
        rules=PRESETS["standard"],
    )
    browser = with_the_code(party)
    waiting = browser.get(tv_url(party)).content.decode()
    assert waiting.count('class="tv-seat-card') == 100
    assert "scrolls scroll-120" in waiting  # 400 names do not fit: the list scrolls slowly
    round_start(party=party)
    response = browser.get(tv_url(party))
    html = response.content.decode()
    assert response.status_code == 200
    assert html.count('class="live-table') == 100 and 'id="table-100"' in html
    assert "cols-12" in html
    assert 'data-tables="' + ",".join(str(n) for n in range(1, 101)) + '"' in html


@pytest.mark.parametrize(
    ("tables", "columns"), [(1, 1), (2, 2), (3, 2), (4, 2), (6, 3), (12, 4), (15, 5), (100, 12)]
)
def test_the_board_takes_the_columns_that_give_the_largest_cards(tables, columns):
    width, height = tv_views.BOARD_WIDTH, tv_views.BOARD_HEIGHT
    aspect = tv_views.TABLE_CARD_ASPECT
    assert tv_views.grid_columns(tables, width, height, aspect=aspect) == columns


@pytest.mark.parametrize(
    ("tables", "columns"), [(1, 1), (2, 2), (3, 3), (4, 2), (5, 3), (6, 3), (7, 4), (8, 4), (9, 3)]
)
def test_the_next_seating_leaves_no_card_alone_on_a_row(tables, columns):
    # Three tables were two cards over one, the third alone below a row's height of nothing.
    layout = tv_views.seating_layout(tables, beside_standings=True)
    assert layout["seating_columns"] == columns
    assert -tables % columns < columns - 1 or tables < 3  # the last row is never one card


def test_a_timed_round_shows_its_clock_which_the_tv_never_reports_and_solo_play_has_four_sides():
    party = party_create(
        name="Tournament", player_names=TWELVE, preset="tournament", rules=PRESETS["tournament"]
    )
    browser = with_the_code(party)
    round_start(party=party)
    html = browser.get(tv_url(party)).content.decode()
    assert 'class="countdown"' in html
    # live.js reports a clock that ran out from a countdown with a clock URL: the host's and
    # the tables' pages do that; a screen opened with the code has nothing to report.
    assert "data-clock-url" not in html
    table_1 = re.search(r'<section id="table-1".*?</section>', html, re.S).group(0)
    assert table_1.count('class="side-points"') == 4 and "sides solo" in table_1
