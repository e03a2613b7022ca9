"""Who plays with whom, as every seating page shows it, is what docs/rules.md says for each
kind of table: at a team table seats 1 and 3 are partners against 2 and 4, each pair in its
own colour; at a table of players alone (individual play, a boxed plan's table of 2 or 3, its
one-table game) nobody has a partner or a team colour (sections 6 and 6a). The pages must not
work it out from the table's size: individual play seats four a table too."""

import re

import pytest
from django.urls import reverse

from parties.models import Seat
from tests.parties.conftest import TWELVE, create_party

pytestmark = pytest.mark.django_db

CASES = [
    ("standard", 5),  # team tables with ghosts
    ("standard", 8),
    ("tournament", 8),  # individual play, two tables of four alone
    ("tournament", 7),  # tables of four and three alone
    ("boxed_small", 4),  # the one-table game: four alone
    ("boxed_small", 7),  # a team table and three alone
    ("boxed_small", 10),  # two team tables and two alone
]


def plays_alone(preset, tables, seats):
    """The rules, written out: individual play is always alone; the boxed plans' one-table
    game and their tables of 2 or 3 are; every other table is two teams."""
    if preset == "tournament":
        return True
    if preset == "boxed_small":
        return tables == 1 or seats < 4
    return False


def shown_seats(html, card_id, item_class):
    """Each seat of the card `card_id` as the page shows it: (name, team class, partner)."""
    card = re.search(rf'id="{card_id}".*?</(?:div|article)>', html, re.S).group(0)
    shown = []
    for classes, body in re.findall(rf'<li class="{item_class}([^"]*)">(.*?)</li>', card, re.S):
        team = re.search(r"\bteam-(\w+)", classes)
        partner = re.search(r"partner: ([^<]+)<", body)
        name = re.search(r'class="seat-name">([^<]+)', body) or re.match(r"([^<]+)", body)
        shown.append((name.group(1).strip(), team and team.group(1), partner and partner.group(1)))
    return shown


@pytest.mark.parametrize(("preset", "count"), CASES)
def test_partners_and_team_colours_on_the_host_and_tv_pages_follow_the_rules(host, preset, count):
    party = create_party(host, names=TWELVE[:count], preset=preset)
    seats = list(
        Seat.objects.filter(round__party=party).select_related("player", "table")
        .order_by("table__number", "position")
    )
    by_table = {}
    for seat in seats:
        by_table.setdefault(seat.table.number, {})[seat.position] = seat.player.name
    host_page = host.get(reverse("parties:host", args=[party.id])).content.decode()
    tv_page = host.get(reverse("parties:tv", args=[party.id])).content.decode()
    for number, table in by_table.items():
        alone = plays_alone(preset, len(by_table), len(table))
        on_host = shown_seats(host_page, f"seats-{number}", "seat")
        on_tv = shown_seats(tv_page, f"tv-seats-{number}", "tv-seat")
        assert [name for name, _team, _partner in on_host] == list(table.values())
        for position, (name, team, partner) in enumerate(on_host, start=1):
            if alone:
                assert (team, partner) == (None, None), (number, name)
            else:
                across = (position + 1) % 4 + 1  # seats 1 and 3, 2 and 4
                assert partner == table[across], (number, name)
                assert team == ("a" if position % 2 else "b")
        assert [team for _name, team, _partner in on_tv] == [t for _n, t, _p in on_host]
