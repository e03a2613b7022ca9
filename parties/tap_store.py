"""The common tap in a few hand-written statements: the party's hot path (bench/ measures it).

Nearly every tap is a plain roll: the round is in play, the phone saw the table's current
version, the rules take the roll, and it neither rings the bell nor ends the round.
`record_plain_roll` records exactly that case with hand-written SQL (Django's ORM compiles
each query anew, which was most of a tap's cost) and answers None for anything else; the
caller then hands the tap to the full path, `play.roll_record`, which has every rule and
every message. Both judge the roll with `play.judge_roll`, so the rules live in one place,
and this path takes the same party lock, so the two never interleave.

On PostgreSQL a tap takes three round trips: (1) the transaction's start, the party's scoring
links and its locked row, sent together; (2) the roll and the round's new version, in one
statement; (3) the commit. With the statements prepared (settings.py), PostgreSQL spends about
480 µs of CPU on a tap, against 900 µs for the six unprepared round trips before
(bench/tap_cpu.py).

Runs in a worker thread (it blocks on the database).
"""

import contextlib
import threading
from dataclasses import dataclass
from datetime import UTC, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from parties import access, announce, play, state
from parties.models import Party, Roll, Round
from parties.services import PartyError

DB_SESSIONS = "django.contrib.sessions.backends.db"


@dataclass(frozen=True)
class SavedTap:
    version: int  # the table's version after the roll
    seq: int
    group: str  # where the table's update goes, and its text
    text: str


class _NotPlain(Exception):
    """Roll back: this tap is for the full path."""


def _aware(value):
    # PostgreSQL hands back aware datetimes; SQLite naive ones in UTC (USE_TZ is on).
    if value is not None and timezone.is_naive(value):
        return value.replace(tzinfo=UTC)
    return value


# The statements, as the models' tables are named (tests run them on SQLite and PostgreSQL).
SESSION_SQL = (
    "SELECT session_data, expire_date FROM django_session "
    "WHERE session_key = %s AND expire_date > %s"
)
SCORING_LINKS_SQL = (
    "SELECT l.id, l.role, t.number FROM parties_accesslink l "
    "LEFT JOIN parties_table t ON t.id = l.table_id "
    "WHERE l.party_id = %s AND l.revoked_at IS NULL AND l.role IN ('host', 'table')"
)
PARTY_AND_ROUND_SQL = (
    "SELECT p.status, p.paused_at, p.seq, r.id, r.version, r.started_at, r.target, r.ends_at "
    "FROM parties_party p LEFT JOIN parties_round r ON r.party_id = p.id AND r.status = %s "
    "WHERE p.id = %s"
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
# PostgreSQL: both in one statement, the round bumped only if the roll went in.
INSERT_ROLL_AND_BUMP_SQL = (
    f"WITH new_roll AS ({INSERT_ROLL_SQL}), bump AS (UPDATE parties_round "  # noqa: S608
    "SET version = version + 1 WHERE id = %s AND EXISTS (SELECT 1 FROM new_roll)) "
    "SELECT id FROM new_roll"  # made of the constants above, no input
)


# A session only ever gains links, so what it held is remembered for a minute (the links
# themselves are read on every tap: a revoked one stops at once). Missing a right, the
# session is read again before the tap goes to Django.
SESSION_MEMORY = timedelta(seconds=60)
_session_links: dict = {}  # session key -> (link ids, remember until)


def _links_of(cursor, session_key, *, fresh):
    """The ids of the links a live session redeemed (what SessionMiddleware would load)."""
    if settings.SESSION_ENGINE != DB_SESSIONS or not session_key or len(session_key) > 64:
        return frozenset()
    now = timezone.now()
    known = None if fresh else _session_links.get(session_key)
    if known is not None and now < known[1]:
        return known[0]
    from django.contrib.sessions.backends.db import SessionStore

    cursor.execute(SESSION_SQL, [session_key, connection.ops.adapt_datetimefield_value(now)])
    row = cursor.fetchone()
    if row is None:
        _session_links.pop(session_key, None)
        return frozenset()
    links = frozenset(SessionStore().decode(row[0]).get(access.SESSION_LINKS, []))
    if len(_session_links) >= 20_000:
        _session_links.clear()
    _session_links[session_key] = (links, min(_aware(row[1]), now + SESSION_MEMORY))
    return links


def _scoring_grant(link_rows, link_ids):
    """What those links, where live, let the session score at the party (as access.require
    finds it; player links are left out, as they score nothing)."""
    rows = [(role, number, None) for id_, role, number in link_rows if id_ in link_ids]
    return access.grant_of(None, rows)


def _pipelined():
    """On PostgreSQL, statements sent together and answered in one round trip (psycopg's
    pipeline mode; leaving it waits for every answer)."""
    if connection.vendor != "postgresql":
        return contextlib.nullcontext()
    connection.ensure_connection()
    return connection.connection.pipeline()


def _read_links_and_lock(party_id):
    """The party's live scoring links, then its row locked (as services.lock_party does) and
    read with its round in play: with the transaction's start, one round trip."""
    lock = " FOR UPDATE OF p" if connection.features.has_select_for_update_of else ""
    with connection.cursor() as links, connection.cursor() as party:
        with _pipelined():
            links.execute(SCORING_LINKS_SQL, [party_id])
            party.execute(PARTY_AND_ROUND_SQL + lock, [Round.Status.PLAYING, party_id])
        return links.fetchall(), party.fetchone()


def _insert_roll(cursor, values):
    """Insert the roll unless its tap id is taken, and bump the round's version if it went in:
    the roll's new id, or None for a retried tap (nothing changed)."""
    fields = [Roll._meta.get_field(name) for name in ROLL_FIELDS]
    params = [field.get_db_prep_save(values[field.attname], connection) for field in fields]
    if connection.vendor == "postgresql":
        cursor.execute(INSERT_ROLL_AND_BUMP_SQL, [*params, values["round_id"]])
        row = cursor.fetchone()
        return row[0] if row else None
    cursor.execute(INSERT_ROLL_SQL, params)
    row = cursor.fetchone()
    if row is None:
        return None
    cursor.execute(BUMP_ROUND_SQL, [values["round_id"]])
    return row[0]


def _record(cursor, party_id, table_number, session_key, tap):
    """The tap recorded in the transaction: (party seq, the round's state after it)."""
    link_rows, row = _read_links_and_lock(party_id)
    grant = _scoring_grant(link_rows, _links_of(cursor, session_key, fresh=False))
    if not grant.can_score(table_number):  # perhaps a link redeemed since: read it again
        grant = _scoring_grant(link_rows, _links_of(cursor, session_key, fresh=True))
    if row is None or not grant.can_score(table_number):
        raise _NotPlain
    status, paused_at, seq, round_id, version, started_at, target, ends_at = row
    if status != Party.Status.PLAYING or paused_at is not None or round_id is None:
        raise _NotPlain
    if tap["round_id"] is not None and tap["round_id"] != round_id:
        raise _NotPlain
    live = state.cached(round_id, version, _aware(started_at))
    if live is None:  # a restarted server, or another process wrote last: replay the round
        rules = Party.objects.only("options").get(pk=party_id).rules
        live = state.load(Round.objects.select_related("bunco_set").get(pk=round_id), rules)
    now = timezone.now()
    if play.clock_ran_out(live, _aware(ends_at), now):
        raise _NotPlain  # the clock rings the bell first: the full path
    try:
        judged = play.judge_roll(
            live,
            target,
            table_number,
            seen=tap["seen"],
            dice=tap.get("dice"),
            outcome=tap.get("outcome", ""),
            face=tap.get("face"),
            called=tap["called"],
        )
    except PartyError:
        raise _NotPlain from None
    if judged.ask:
        raise _NotPlain
    roll_id = _insert_roll(
        cursor,
        {
            "round_id": round_id,
            "table_id": live.table_ids[table_number - 1],
            "tap_id": tap["tap_id"],
            "entered_by": grant.role_label,
            "created_at": now,
            **judged.columns(),
        },
    )
    if roll_id is None:
        raise _NotPlain  # a retried tap: the full path answers "duplicate"
    after = live.apply_roll(table_number, roll_id, judged.fact, version + 1)
    if after.state.bell != live.state.bell or after.state.over:
        raise _NotPlain  # the bell, or the round's end: the full path (this write rolls back)
    return seq, after


# Taps of one party wait for each other in this process as well as on the party's row, until
# the state after the tap is remembered: otherwise the next tap takes the row lock between the
# commit and the remember, finds the state stale and replays the round (in a 100-table party,
# a third of the taps did, 60% of the CPU).
_party_locks: dict = {}
_party_locks_guard = threading.Lock()


def _party_lock(party_id):
    with _party_locks_guard:
        if len(_party_locks) >= 10_000:
            _party_locks.clear()  # parties end; a cleared lock only costs a replay or two
        return _party_locks.setdefault(party_id, threading.Lock())


def record_plain_roll(*, party_id, table_number, session_key, tap):
    """Record `tap` (play_views.tap_fields) at the table if the session may score there and it
    is a plain roll; otherwise change nothing and answer None."""
    try:
        with _party_lock(party_id):
            with transaction.atomic(), connection.cursor() as cursor:
                seq, after = _record(cursor, party_id, table_number, session_key, tap)
            state.remember(after)
    except _NotPlain:
        return None
    group, text = announce.table_push(party_id, seq, after, table_number)
    return SavedTap(after.extras[table_number - 1].version, seq, group, text)
