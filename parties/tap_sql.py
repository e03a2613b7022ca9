"""The tap's statements, hand-written: what `play.roll_record` reads and writes on every tap.

Django's ORM compiles each query anew, which was most of a tap's cost (bench/ measures it), so
the few statements every tap runs are written out here; everything rarer (a replay, the bell,
the round's close) stays in the ORM. These functions decide nothing: they read and write rows.

The order is the point (the lesson of the first version): the party's row is locked in a
statement of its own, and everything the decision needs is read in new statements after it.
Under PostgreSQL's READ COMMITTED a statement that waited for a lock sees the newest version of
the locked row but the joined rows as they were before the wait; the first lean path joined
the round into its locking statement and judged taps on a round that had since changed.
On SQLite the transaction starts IMMEDIATE (settings.py), which serialises writers the same way.

On PostgreSQL the reads after the lock go out together in one round trip (psycopg's pipeline).
"""

import contextlib
from dataclasses import dataclass
from datetime import UTC

from django.db import connection
from django.utils import timezone

from parties.models import Roll

LOCK_PARTY_SQL = "SELECT status, paused_at, seq FROM parties_party WHERE id = %s"
LINKS_SQL = (
    "SELECT l.role, t.number FROM parties_accesslink l "
    "LEFT JOIN parties_table t ON t.id = l.table_id "
    "WHERE l.party_id = %s AND l.revoked_at IS NULL AND l.id IN ({})"
)
PLAYING_ROUND_SQL = (
    "SELECT id, version, started_at, target, ends_at FROM parties_round "
    "WHERE party_id = %s AND status = 'playing'"
)
EARLIER_TAP_SQL = (
    "SELECT ro.round_id, t.party_id, t.number FROM parties_roll ro "
    "JOIN parties_table t ON t.id = ro.table_id WHERE ro.tap_id = %s"
)
INSERT_ROLL_SQL = (
    "INSERT INTO parties_roll (round_id, table_id, roller_id, phase, die1, die2, die3, die4, "
    "called, tap_id, entered_by, created_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, "
    "%s, %s) ON CONFLICT (tap_id) DO NOTHING RETURNING id"
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
    "called",
    "tap_id",
    "entered_by",
    "created_at",
)
BUMP_ROUND_SQL = "UPDATE parties_round SET version = version + 1 WHERE id = %s"
SESSION_SQL = (
    "SELECT session_data FROM django_session WHERE session_key = %s AND expire_date > %s"
)
MAX_LINKS = 50  # a session holds a link or two; more is not a phone's


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

    links: list  # (role, table number) of the session's live links at the party
    round: RoundRow | None  # the round in play
    earlier: EarlierTap | None  # the roll already saved under this tap id


def aware(value):
    # PostgreSQL hands back aware datetimes; SQLite naive ones in UTC (USE_TZ is on).
    if value is not None and timezone.is_naive(value):
        return value.replace(tzinfo=UTC)
    return value


def lock_party(party_id):
    """The party's row, locked for the rest of the transaction (None: no such party)."""
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    with connection.cursor() as cursor:
        cursor.execute(LOCK_PARTY_SQL + lock, [party_id])
        row = cursor.fetchone()
    return PartyRow(row[0], aware(row[1]), row[2]) if row else None


def _pipelined():
    """On PostgreSQL, statements sent together and answered in one round trip."""
    if connection.vendor != "postgresql":
        return contextlib.nullcontext()
    return connection.connection.pipeline()


def _tap_id_value(tap_id):
    return Roll._meta.get_field("tap_id").get_db_prep_value(tap_id, connection)


def read_after_lock(party_id, link_ids, tap_id):
    """The session's live links at the party, the round in play and any roll of this tap id,
    read fresh (call with the party locked)."""
    link_ids = [int(i) for i in link_ids][:MAX_LINKS] or [0]
    links_sql = LINKS_SQL.format(", ".join(["%s"] * len(link_ids)))
    with connection.cursor() as links, connection.cursor() as round_, connection.cursor() as tap:
        with _pipelined():
            links.execute(links_sql, [party_id, *link_ids])
            round_.execute(PLAYING_ROUND_SQL, [party_id])
            tap.execute(EARLIER_TAP_SQL, [_tap_id_value(tap_id)])
        round_row, tap_row = round_.fetchone(), tap.fetchone()
        return TapReads(
            links=links.fetchall(),
            round=RoundRow(
                round_row[0], round_row[1], aware(round_row[2]), round_row[3], aware(round_row[4])
            )
            if round_row
            else None,
            earlier=EarlierTap(*tap_row) if tap_row else None,
        )


def insert_roll(values):
    """Insert the roll and bump its round's version: the roll's id, or None if its tap id is
    taken (by another party's table: this party's own retries were found before; the caller
    then rolls back, the bump with it)."""
    fields = [Roll._meta.get_field(name) for name in ROLL_FIELDS]
    params = [field.get_db_prep_save(values[field.attname], connection) for field in fields]
    with connection.cursor() as insert, connection.cursor() as bump:
        with _pipelined():
            insert.execute(INSERT_ROLL_SQL, params)
            bump.execute(BUMP_ROUND_SQL, [values["round_id"]])
        row = insert.fetchone()
    return row[0] if row else None


def session_data(session_key):
    """The stored data of a live database session (as SessionStore.load reads it), or None."""
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    with connection.cursor() as cursor:
        cursor.execute(SESSION_SQL, [session_key, now])
        row = cursor.fetchone()
    return row[0] if row else None
