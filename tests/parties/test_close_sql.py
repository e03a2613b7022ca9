"""The close's rows written as plain values (parties.services.close_sql) arrive as the ORM reads them."""

import pytest
from django.db import IntegrityError, connection, transaction

from parties import selectors
from parties.models import ScoreSheetLine, Seat
from parties.services import close_sql
from tests.parties.test_play import new_party

pytestmark = pytest.mark.django_db


def _lines(round_, seats):
    return [
        (round_.id, seat.player_id, seat.table_id, seat.position % 2 == 0, 10 * seat.position,
         seat.position - 1, 0)
        for seat in seats
    ]


def _read(round_):
    return sorted(
        ScoreSheetLine.objects.filter(round=round_).values_list(
            "round_id", "player_id", "table_id", "won", "points", "buncos", "mini_buncos"
        ),
        key=lambda row: row[1],
    )


def test_rows_are_written_with_their_values():
    party = new_party()
    round_ = selectors.current_round(party)
    seats = list(Seat.objects.filter(round=round_))
    rows = _lines(round_, seats)
    close_sql.insert_rows(
        ScoreSheetLine,
        ("round_id", "player_id", "table_id", "won", "points", "buncos", "mini_buncos"),
        rows,
    )
    assert _read(round_) == sorted(rows, key=lambda row: row[1])
    assert {line.won for line in ScoreSheetLine.objects.filter(round=round_)} == {True, False}


def test_rows_beyond_the_databases_limit_on_parameters_go_in_several_statements(monkeypatch):
    party = new_party()
    round_ = selectors.current_round(party)
    rows = _lines(round_, Seat.objects.filter(round=round_))
    monkeypatch.setattr(connection.ops, "bulk_batch_size", lambda fields, objs: 5)
    close_sql.insert_rows(
        ScoreSheetLine,
        ("round_id", "player_id", "table_id", "won", "points", "buncos", "mini_buncos"),
        rows,
    )
    assert len(rows) == 12 and _read(round_) == sorted(rows, key=lambda row: row[1])


def test_no_rows_write_nothing():
    close_sql.insert_rows(ScoreSheetLine, ("round_id",), [])
    assert not ScoreSheetLine.objects.exists()


def test_a_row_refused_inside_written_meanwhile_raises_by_the_blocks_end_and_writes_nothing():
    """On PostgreSQL the block's statements are answered at its end: a refused row (here a
    second sheet line for the same player and round) must still raise, and roll back what
    went with it."""
    party = new_party()
    round_ = selectors.current_round(party)
    rows = _lines(round_, Seat.objects.filter(round=round_))
    fields = ("round_id", "player_id", "table_id", "won", "points", "buncos", "mini_buncos")
    with pytest.raises(IntegrityError), transaction.atomic():
        with close_sql.written_meanwhile():
            close_sql.insert_rows(ScoreSheetLine, fields, rows)
            close_sql.insert_rows(ScoreSheetLine, fields, rows[:1])
    assert not ScoreSheetLine.objects.exists()
    with transaction.atomic(), close_sql.written_meanwhile():  # the connection is usable after
        close_sql.insert_rows(ScoreSheetLine, fields, rows)
    assert _read(round_) == sorted(rows, key=lambda row: row[1])


def test_columns_go_as_arrays_of_their_values():
    assert close_sql._array((3, -7, 0)) == "{3,-7,0}"
    assert close_sql._array((True, False)) == "{t,f}"
    assert close_sql._array((1, True)) == [1, True]  # mixed: left to the driver
    assert close_sql._array((None, 2)) == [None, 2]
