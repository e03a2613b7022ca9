"""The tap's statements, hand-written: what `roll_record` (parties.services.roll) reads and
writes on every tap.

Django's ORM compiles each query anew, which was most of a tap's cost (bench/ measures it), so
the few statements every tap runs are written out here; everything rarer (a replay, the bell,
the round's close) stays in the ORM. The one read that holds a rule of the app, which links are
live (parties.access), is the ORM's own query compiled once a process, not written again here.
These functions decide nothing: they read and write rows.

The order is the point (the lesson of the first version): the party's row is locked in a
statement of its own, and everything the decision needs is read in new statements after it.
Under PostgreSQL's READ COMMITTED a statement that waited for a lock sees the newest version of
the locked row but the joined rows as they were before the wait; the first lean path joined
the round into its locking statement and judged taps on a round that had since changed.
On SQLite the transaction starts IMMEDIATE (settings.py), which serialises writers the same way.

On PostgreSQL the lock and the reads behind it go out together in one round trip (psycopg's
pipeline), and the roll with its round's version in one statement.
"""

import contextlib
import functools
from dataclasses import dataclass
from datetime import UTC

from django.db import connection
from django.utils import timezone

from parties import access
from parties.models import Roll

LOCK_PARTY_SQL = "SELECT status, paused_at, seq FROM parties_party WHERE id = %s"
# The live links that could score at the table are the ORM's query (parties.access
# scoring_links: which links are live is written there once), compiled here once a process
# with stand-ins for its two values, then run as the other statements are. The stand-ins are
# in their columns' range: the ORM leaves a comparison with an out-of-range value out.
_PARTY_STAND_IN, _TABLE_STAND_IN = 987_654_321, 32_109
PLAYING_ROUND_SQL = (
    "SELECT id, version, started_at, target, ends_at FROM parties_round "
    "WHERE party_id = %s AND status = 'playing'"
)
EARLIER_TAP_SQL = (
    "SELECT ro.round_id, t.party_id, t.number FROM parties_roll ro "
    "JOIN parties_table t ON t.id = ro.table_id WHERE ro.tap_id = %s"
)
ROLL_FIELDS = (
    "round",
    "table",
    "roller",
    "phase",
    "die1",
    "die2",
    "die3",
    "die4",
    "outcome",
    "face",
    "called",
    "before_bell",
    "tap_id",
    "entered_by",
    "created_at",
)
INSERT_ROLL_SQL = (
    "INSERT INTO parties_roll (round_id, table_id, roller_id, phase, die1, die2, die3, die4, "
    "outcome, face, called, before_bell, tap_id, entered_by, created_at) VALUES (%s, %s, %s, "
    "%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (tap_id) DO NOTHING RETURNING id"
)
assert INSERT_ROLL_SQL.count("%s") == len(ROLL_FIELDS)
BUMP_ROUND_SQL = "UPDATE parties_round SET version = version + 1 WHERE id = %s"
# PostgreSQL: both in one statement, the round bumped only if the roll went in.
INSERT_ROLL_AND_BUMP_SQL = (
    f"WITH new_roll AS ({INSERT_ROLL_SQL}), bump AS (UPDATE parties_round "  # noqa: S608
    "SET version = version + 1 WHERE id = %s AND EXISTS (SELECT 1 FROM new_roll)) "
    "SELECT id FROM new_roll"  # made of the constants above, no input
)
SESSION_SQL = (
    "SELECT session_data FROM django_session WHERE session_key = %s AND expire_date > %s"
)


@dataclass(frozen=True)
class PartyRow:
    status: str
    paused_at: object
    seq: int


@dataclass(frozen=True)
class RoundRow:
    id: int
    version: int
    started_at: object
    target: int
    ends_at: object


@dataclass(frozen=True)
class EarlierTap:
    round_id: int
    party_id: int
    table_number: int


@dataclass(frozen=True)
class TapReads:
    """What a tap's decision reads after the lock."""

    links: list  # (id, role, table number) of the live links that could score at the table
    round: RoundRow | None  # the round in play
    earlier: EarlierTap | None  # the roll already saved under this tap id
    session_data: str | None = None  # the session's stored text, when asked for and live


def aware(value):
    # PostgreSQL hands back aware datetimes; SQLite naive ones in UTC (USE_TZ is on).
    if value is not None and timezone.is_naive(value):
        return value.replace(tzinfo=UTC)
    return value


def _pipelined():
    """On PostgreSQL, statements sent together and answered in one round trip. The server
    still runs them one after the other, each with a snapshot of its own: a read sent behind
    the lock runs once the lock is held, and sees what the lock's holder before committed."""
    if connection.vendor != "postgresql":
        return contextlib.nullcontext()
    connection.ensure_connection()
    return connection.connection.pipeline()


@functools.cache
def _links_statement(vendor):
    """(SQL, parameters, where the party's id goes, where the table's number goes), compiled
    for the database in use (`vendor` keys the cache: the text is that database's SQL)."""
    sql, params = access.scoring_links(_PARTY_STAND_IN, _TABLE_STAND_IN).query.sql_with_params()
    params = list(params)
    party_at, table_at = (
        _only_place(params, stand_in) for stand_in in (_PARTY_STAND_IN, _TABLE_STAND_IN)
    )
    return sql, params, party_at, table_at


def _only_place(params, stand_in):
    places = [i for i, param in enumerate(params) if param == stand_in]
    if len(places) != 1:
        raise RuntimeError(f"the compiled links statement holds {stand_in} {len(places)} times")
    return places[0]


def links_statement(party_id, table_number):
    """The links statement and its parameters for a table of a party."""
    sql, params, party_at, table_at = _links_statement(connection.vendor)
    params = list(params)
    params[party_at], params[table_at] = party_id, table_number
    return sql, params


def _tap_id_value(tap_id):
    return Roll._meta.get_field("tap_id").get_db_prep_value(tap_id, connection)


def lock_and_read(party_id, table_number, tap_id, session_key=None):
    """Lock the party's row, then read what a tap's decision needs, each read a statement of
    its own after the lock: (the party, or None if there is none; TapReads). On PostgreSQL the
    lot is one round trip. `session_key`: also read that session's stored data."""
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    with (
        connection.cursor() as party,
        connection.cursor() as session,
        connection.cursor() as links,
        connection.cursor() as round_,
        connection.cursor() as tap,
    ):
        with _pipelined():
            party.execute(LOCK_PARTY_SQL + lock, [party_id])
            if session_key is not None:
                session.execute(SESSION_SQL, [session_key, now])
            links.execute(*links_statement(party_id, table_number))
            round_.execute(PLAYING_ROUND_SQL, [party_id])
            tap.execute(EARLIER_TAP_SQL, [_tap_id_value(tap_id)])
        party_row = party.fetchone()
        session_row = session.fetchone() if session_key is not None else None
        round_row, tap_row = round_.fetchone(), tap.fetchone()
        reads = TapReads(
            links=links.fetchall(),
            round=RoundRow(
                round_row[0], round_row[1], aware(round_row[2]), round_row[3], aware(round_row[4])
            )
            if round_row
            else None,
            earlier=EarlierTap(*tap_row) if tap_row else None,
            session_data=session_row[0] if session_row else None,
        )
    if party_row is None:
        return None, reads
    return PartyRow(party_row[0], aware(party_row[1]), party_row[2]), reads


def insert_roll(values):
    """Insert the roll and bump its round's version: the roll's id, or None if its tap id is
    taken (by another party's table: this party's own retries were found before; the caller
    then rolls back)."""
    fields = [Roll._meta.get_field(name) for name in ROLL_FIELDS]
    params = [field.get_db_prep_save(values[field.attname], connection) for field in fields]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":  # both in one statement
            cursor.execute(INSERT_ROLL_AND_BUMP_SQL, [*params, values["round_id"]])
            row = cursor.fetchone()
            return row[0] if row else None
        cursor.execute(INSERT_ROLL_SQL, params)
        row = cursor.fetchone()
        if row is None:
            return None
        cursor.execute(BUMP_ROUND_SQL, [values["round_id"]])
        return row[0]


def earlier_tap(tap_id):
    """The roll already saved under `tap_id`, for a tap sent behind another in one request
    (roll_record's `more`; the first tap's is read with the lock): EarlierTap or None."""
    with connection.cursor() as cursor:
        cursor.execute(EARLIER_TAP_SQL, [_tap_id_value(tap_id)])
        row = cursor.fetchone()
    return EarlierTap(*row) if row else None
