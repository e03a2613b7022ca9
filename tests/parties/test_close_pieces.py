"""The close's pieces formatted in Python (parties.live.close_pieces) are the partials' own bytes:
each is checked here against the template the page includes, rendered in the same context, for
names a user may type (HTML characters, quotes, braces, percent signs) and every branch."""

from dataclasses import replace
from itertools import product
from types import SimpleNamespace

import pytest
from django.template.loader import render_to_string

from parties.live import close_pieces
from parties.selectors import SeatView, TableView
from scoring import PRESETS

TRICKY = [
    'Ann <b>"the bold"</b>',
    "O'Brien & Sons",
    "<script>alert(1)</script>",
    "{0} {name} %s %(x)s",
    "Zoë 🎲 — ünïcode",
    "&amp; already escaped?",
]
RULES = [PRESETS["standard"], replace(PRESETS["standard"], play_to=11)]


def _round(set_number=2, number=3, target=3):
    return SimpleNamespace(bunco_set=SimpleNamespace(number=set_number), number=number,
                           target=target)


def _table(number, names, *, team_play=True, ghosts=(), keeps=None):
    """A TableView as selectors.table_views makes it: partners across the table at four."""
    size = len(names)
    seats = []
    for position, name in enumerate(names, start=1):
        partner = names[(position + 1) % 4] if team_play and size == 4 else ""
        seats.append(SeatView(position, 100 * number + position, name, position in ghosts,
                              partner, position == keeps))
    return TableView(number, seats, team_play)


def _tables():
    yield _table(1, TRICKY[:4])
    yield _table(2, TRICKY[2:6], keeps=2)
    yield _table(3, TRICKY[1:5], ghosts=(1,))  # a ghost in seat 1: its partner keeps score
    yield _table(4, TRICKY[:3], team_play=False)  # three players alone
    yield _table(7, TRICKY[3:5], team_play=False, ghosts=(2,))
    yield _table(12, ["A", "B", "C", "D"], ghosts=(3,), keeps=4)


def _context(rules, round_, status="playing", **more):
    party = SimpleNamespace(id=42, status=status, rules=rules)
    return {"party": party, "round": round_, "rules": rules, **more}


@pytest.mark.parametrize("rules", RULES)
def test_a_tables_pieces_are_the_partials_rendered(rules):
    round_ = _round(target=5)
    for table in _tables():
        context = _context(rules, round_, table=table, number=table.number, live_html="")
        assert close_pieces.round_head_html(
            rules=rules, round_=round_, table=table
        ) == render_to_string("parties/_round_head.html", context)
        assert close_pieces.seating_card_html(
            table=table, number=table.number
        ) == render_to_string("parties/_seating_card.html", context)


@pytest.mark.parametrize(("rules", "status"), list(product(RULES, ["playing", "break", "finished"])))
def test_a_players_piece_is_the_partial_rendered(rules, status):
    round_ = _round(set_number=1, number=6, target=6)
    places = [None] + [
        (table.number, seat) for table in _tables() for seat in table.seats
    ]
    for place in places:
        expected = render_to_string("parties/_where.html", _context(rules, round_, status,
                                                                    place=place))
        assert close_pieces.where_html(
            party_id=42, status=status, rules=rules, round_=round_, place=place
        ) == expected


def test_what_a_user_typed_reaches_the_pieces_escaped():
    rules = RULES[0]
    table = _table(1, ["<i>x</i>", "B", "C & D", 'say "hi"'])
    html = (
        close_pieces.round_head_html(rules=rules, round_=_round(), table=table)
        + close_pieces.seating_card_html(table=table, number=1)
        + close_pieces.where_html(party_id=1, status="playing", rules=rules, round_=_round(),
                                  place=(1, table.seats[1]))
    )
    assert "<i>" not in html and "&lt;i&gt;x&lt;/i&gt;" in html
    assert "C &amp; D" in html and "say &quot;hi&quot;" in html


@pytest.mark.django_db
@pytest.mark.parametrize("names", [TRICKY[:5], [f"{n} <&>" for n in TRICKY] * 2])
def test_the_pieces_of_a_real_partys_seating_are_the_partials_rendered(names):
    """The same on the seats a party's database gives, ghosts and all (5 players: 3 ghosts)."""
    from parties import selectors
    from tests.parties.test_play import new_party

    party = new_party(names=[f"{i} {name}" for i, name in enumerate(names)])
    round_ = selectors.current_round(party)
    tables = selectors.seating(round_)
    assert any(seat.is_ghost for table in tables for seat in table.seats) == (len(names) == 5)
    for table in tables:
        context = _context(party.rules, round_, table=table, number=table.number, live_html="")
        assert close_pieces.round_head_html(
            rules=party.rules, round_=round_, table=table
        ) == render_to_string("parties/_round_head.html", context)
        assert close_pieces.seating_card_html(
            table=table, number=table.number
        ) == render_to_string("parties/_seating_card.html", context)
        for seat in table.seats:
            place = (table.number, seat)
            assert close_pieces.where_html(
                party_id=42, status="playing", rules=party.rules, round_=round_, place=place
            ) == render_to_string("parties/_where.html", _context(party.rules, round_,
                                                                  place=place))
