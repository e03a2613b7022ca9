"""A round's close at a big party: each phone's page reads only its own table, and the close's
push carries every phone its new seat (docs/performance.md, S6), so no phone has to refetch its
page at the moment hundreds of them would."""

import re
import uuid

import pytest

from bench.phone import where_shown
from parties import selectors
from parties.models import AccessLink, Party
from parties.services.roll import roll_record
from parties.services.round import bell_ring, round_start
from tests.parties import test_play
from tests.parties.conftest import Browser, redeem
from tests.parties.test_play import finish_round, live, new_party

pushes = test_play.pushes  # the fixture recording what the writes push

pytestmark = pytest.mark.django_db

FORTY = [f"Player {n}" for n in range(1, 41)]


@pytest.fixture
def big():
    party = new_party(names=FORTY)
    round_start(party=party)
    return party


def test_a_tables_seats_read_alone_are_the_same_as_in_the_whole_seating(big):
    round_ = selectors.current_round(big)
    whole = selectors.seating(round_)
    assert len(whole) == 10
    for table in whole:
        assert selectors.seating(round_, [table.number]) == [table]
    assert selectors.seating(round_, [3, 7]) == [whole[2], whole[6]]
    assert selectors.seating(round_, [11]) == []


def test_where_a_player_sits_is_found_from_their_own_seat(big):
    round_ = selectors.current_round(big)
    for table in selectors.seating(round_):
        for seat in table.seats:
            assert selectors.seat_of(round_, seat.player_id) == (table.number, seat)
    assert selectors.seat_of(round_, 10**9) is None


def test_a_players_page_reads_only_its_own_seat_and_table(client):
    """The player page's queries do not grow with the party: it reads the player's seat, then
    that one table's seats (never the whole round's)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    rows = {}
    for names in (FORTY[:12], FORTY):
        party = new_party(names=names)
        round_start(party=party)
        link = AccessLink.objects.filter(party=party, role="player").first()
        redeem(client, link)
        page = f"/parties/{party.id}/players/{link.player_id}/"
        client.get(page)  # the round's live state is read once, then remembered by the process
        with CaptureQueriesContext(connection) as queries:
            response = client.get(page, HTTP_HX_REQUEST="true")
        assert response.status_code == 200
        seat_reads = [q["sql"] for q in queries if 'FROM "parties_seat"' in q["sql"]]
        rows[len(names)] = (len(queries), seat_reads)
    assert rows[12][0] == rows[40][0]
    assert rows[40][1]
    for sql in rows[40][1]:
        where = sql.split("WHERE", 1)[1]
        assert '"parties_seat"."player_id" =' in where or '"parties_table"."number" IN' in where



def close_by_hand(party, tables):
    """The host rings the bell; each table scores a point, then misses: every table is done."""
    party.refresh_from_db()
    bell_ring(party=party, by="host")
    for number in range(1, tables + 1):
        for outcome in ("one", "miss"):
            _round, now = live(party)
            roll_record(
                party_id=party.id, table_number=number, tap_id=uuid.uuid4(), outcome=outcome,
                called=None, seen=now.extras[number - 1].version,
                link_ids=test_play.scorer(party, number),
            )


def _squeezed(html):
    return re.sub(r"\s+", " ", html).strip()


def _without_keep_score_forms(html):
    """The page less its keep-score forms: they carry the session's CSRF token, so the push
    leaves them out and the page's refetch a moment later brings them."""
    return re.sub(r'<form method="post" action="[^"]*/scorekeeper/".*?</form>', "", html, flags=re.S)


def test_the_close_tells_every_tables_phones_their_new_seats_as_their_pages_show_them(
    big, pushes, django_capture_on_commit_callbacks
):
    _round, before = live(big)
    with django_capture_on_commit_callbacks(execute=True):
        finish_round(big)
    closes = [(g, m) for g, m in pushes if m["type"] == "round" and m.get("what") == "closed"]
    *per_table, (last_group, everyone) = closes
    # One message per table of the closed round, then the party-wide one every other page
    # (host, TV, party page) refetches on; all with the close's seq.
    assert last_group == f"party-{big.id}" and "views" not in everyone
    assert [g for g, _m in per_table] == [f"party-{big.id}-table-{n}" for n in range(1, 11)]
    big.refresh_from_db()
    assert {m["seq"] for _g, m in closes} == {everyone["seq"]} == {big.seq}
    # 40 players: refetched from 0.1 s after the close, within 0.4 s more
    assert {(m["refetch_after"], m["refetch_within"]) for _g, m in per_table} == {(0.1, 0.4)}
    host = Browser()
    redeem(host, AccessLink.objects.get(party=big, role="host"))
    nxt = selectors.current_round(big)
    assert nxt.number == 2 and nxt.status == "waiting"
    for number, (_group, message) in enumerate(per_table, start=1):
        seated = before.seating[number - 1]
        assert set(message["views"]) == {f"table-{number}"} | {f"player-{p}" for p in seated}
        for view, piece in message["views"].items():
            kind, key = view.split("-")
            page = host.get(
                f"/parties/{big.id}/{'players' if kind == 'player' else 'table'}/{key}/",
                HTTP_HX_REQUEST="true",  # what the page's own refetch (its resync) shows
            ).content.decode()
            # Each pushed piece is the page's own, as the page shows it after the close: a
            # table's page its partials, a player's page the values of its seat's slots.
            shown = re.search(r'<div id="live"[^>]*data-tables="([^"]*)"', page)[1]
            assert piece["tables"] == shown
            if kind == "player":
                table, seat = selectors.seat_of(nxt, int(key))
                assert piece["where"] == where_shown(page)
                assert (piece["where"]["table"], piece["where"]["seat"]) == (table, seat.position)
                continue
            pieces = re.split(r"\n(?=<(?:section|details|p)\b)", piece["html"].strip())
            assert len(pieces) == 2
            for one in pieces:
                assert _squeezed(one) in _squeezed(_without_keep_score_forms(page))


def test_the_nights_last_close_tells_every_page_to_refetch(
    pushes, django_capture_on_commit_callbacks
):
    party = new_party(names=FORTY[:8], sets=1)
    for _round in range(6):
        round_start(party=party)
        with django_capture_on_commit_callbacks(execute=True):
            close_by_hand(party, tables=2)
    party.refresh_from_db()
    assert party.status == Party.Status.FINISHED
    closes = [(g, m) for g, m in pushes if m["type"] == "round" and m.get("what") == "closed"]
    assert len(closes) == 5 * 3  # five closes with 2 tables' views each and the party-wide one
    # The last says the night is over (the pages ring "That's the night!", not "sit next").
    last = [(g, m) for g, m in pushes if m["type"] == "round" and m.get("what") == "finished"]
    assert last == [(f"party-{party.id}", {"type": "round", "seq": party.seq, "what": "finished"})]
    assert pushes.index(last[0]) > pushes.index(closes[-1])
