"""A party on the boxed set's table plans (docs/rules.md "Small groups"): team tables and
tables of players alone in one party, on the pages a phone and the host see."""

import re

import pytest
from django.urls import reverse

from bench.phone import where_shown
from parties import selectors
from parties.models import AccessLink, Party, Round, Seat
from parties.services.errors import PartyError
from parties.services.player import player_leave
from parties.services.round import round_start
from tests.parties.conftest import TWELVE, create_party, redeem

pytestmark = pytest.mark.django_db


def seating(party):
    round_ = Round.objects.filter(party=party).exclude(status="closed").first()
    seats = Seat.objects.filter(round=round_).select_related("player", "table")
    tables = {}
    for seat in seats.order_by("table__number", "position"):
        tables.setdefault(seat.table.number, []).append(seat.player.name)
    return tables


@pytest.fixture
def seven(host):
    """Seven players: two teams at table 1, three alone at table 2."""
    return create_party(host, names=TWELVE[:7], preset="boxed_small")


def test_the_host_page_shows_partners_at_the_team_table_and_none_at_the_table_alone(host, seven):
    page = host.get(reverse("parties:host", args=[seven.id])).content.decode()
    start = page.index('id="seats-2"')
    table_two = page[start : page.index("</div>", start)]
    assert "solo" in page[page.rindex("<div", 0, start) : start]
    assert "partner:" not in table_two
    assert page.count("partner:") == 4  # the four at table 1


def test_a_player_alone_is_shown_no_partner_on_their_own_page(host, seven):
    alone = seating(seven)[2][0]
    link = AccessLink.objects.get(party=seven, role="player", player__name=alone)
    redeem(host, link)
    page = host.get(reverse("parties:player", args=[seven.id, link.player_id])).content.decode()
    assert where_shown(page)["table"] == 2 and where_shown(page)["partner"] == ""
    page = re.sub(r"<template\b.*?</template>", "", page, flags=re.S)  # not shown: no words
    assert "partner:" not in page


def test_the_table_alone_phone_shows_one_side_a_player_and_four_dice(host, seven):
    round_start(party=seven)
    names = seating(seven)[2]
    page = host.get(reverse("parties:table", args=[seven.id, 2])).content.decode()
    assert '<div class="sides solo">' in page
    shown = page[page.index('<div class="sides solo">') :]
    for name in names:
        assert f'<div class="side-names">{name}</div>' in shown
    assert " & " not in shown[: shown.index('<p class="turn">')]
    team = host.get(reverse("parties:table", args=[seven.id, 1])).content.decode()
    assert '<div class="sides">' in team
    assert len(re.findall(r'<div class="side-names">[^<&]+ & [^<&]+</div>', team)) == 2
    assert 'data-dice="4"' in page  # the face picker takes four dice


def test_comings_and_goings_are_refused_on_the_boxed_plans(host, seven):
    ann = seven.players.get(name="Ann")
    with pytest.raises(PartyError, match="no ghosts"):
        player_leave(party=seven, player_id=ann.id)
    page = host.get(reverse("parties:host", args=[seven.id])).content.decode()
    assert 'id="roster"' not in page
    assert Party.objects.get(pk=seven.pk).players.count() == 7


def test_a_mixed_round_closes_with_the_seeds_moves_and_survives_export_and_import(seven):
    from parties.exchange import exports
    from parties.services.round import round_start
    from tests.parties.test_import import imported, standings
    from tests.parties.test_play import tap

    before = seating(seven)
    round_start(party=seven)
    assert tap(seven, 2, (1, 1, 2, 3)).status == "saved"  # seat 1 alone at table 2: 2 points
    bunco = tap(seven, 1, (1, 1, 1, 1))  # four 1s in round 1: a Bunco, 21, table 1 won
    if bunco.status == "ask_call":
        bunco = tap(seven, 1, (1, 1, 1, 1), called=True)
    assert bunco.status == "saved"
    assert tap(seven, 2, (2, 3, 4, 5)).status == "saved"  # the bell: seat 1 finishes, 2 wins
    after = seating(seven)
    team, alone = before[1], before[2]
    # Table 1: the winners (seats 1+3) stay and split, table 2's two losers come up.
    assert after[1] == [team[0], team[2], alone[1], alone[2]]
    # Table 2: its winner stays, table 1's losing team comes down.
    assert after[2] == [alone[0], team[1], team[3]]
    marks = {row.name: row.sheet.marks for row in selectors.party_results(seven)[0]}
    assert marks == {team[0]: ("W",), team[2]: ("W",), team[1]: ("L",), team[3]: ("L",),
                     alone[0]: ("W",), alone[1]: ("L",), alone[2]: ("L",)}

    copy = imported(exports.party_document(seven))
    assert standings(copy) == standings(seven)
    assert seating(copy) == after


def test_the_printouts_tv_and_results_of_a_mixed_party(host, seven):
    round_start(party=seven)
    tally = host.get(reverse("parties:tally_sheets", args=[seven.id])).content.decode()
    assert tally.count("Team A") == seven.rules.sets  # table 1's sheets, one a set
    assert "Seat 3" in tally and "Seat 4" not in tally.replace("seats 2 and 4", "")
    rules = host.get(reverse("parties:rules_sheet", args=[seven.id])).content.decode()
    assert "everyone plays alone and the highest scorer wins" in rules
    assert "the last table&#x27;s players go up to table 1" in rules.lower()
    for name in ("tv", "results", "score_sheets"):
        assert host.get(reverse(f"parties:{name}", args=[seven.id])).status_code == 200, name
