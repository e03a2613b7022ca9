"""A round's close at a big party: each phone's page reads only its own table, and the close's
push carries every phone its new seat (docs/performance.md, S6), so no phone has to refetch its
page at the moment hundreds of them would."""

import pytest

from parties import play, selectors
from tests.parties.test_play import new_party

pytestmark = pytest.mark.django_db

FORTY = [f"Player {n}" for n in range(1, 41)]


@pytest.fixture
def big():
    party = new_party(names=FORTY)
    play.round_start(party=party, by="host")
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

    from parties.models import AccessLink
    from tests.parties.conftest import redeem

    rows = {}
    for names in (FORTY[:12], FORTY):
        party = new_party(names=names)
        play.round_start(party=party, by="host")
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

