"""Setup outside the timed path: a fresh PostgreSQL database (or, for the party server, a fresh
data folder with its SQLite file), migrations, parties made by the app's own services, round 1
started, and one session per phone and per scorekeeper (the same session a visit to the link's
URL creates), so that thousands of phones cost seconds to set up."""

import json
import os
import secrets
import sqlite3
import sys
import tempfile
import threading
from contextlib import closing
from datetime import timedelta
from pathlib import Path

from bench.databases import Database
from bench.servers import production_env

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT  # the app's source tree; bench.live --app-ref exports a commit elsewhere
# The app's topology for the session (bench.live --topology): "production" or "party-server".
# Here, not in bench.live, whose module run as __main__ is not the one bench.s6 imports.
TOPOLOGY = "production"
PG = "postgres://postgres@127.0.0.1:5432"


CONNECTION_LIMIT = int(os.environ.get("BENCH_DB_CONNECTION_LIMIT", "40"))


def create_database(topology="production"):
    """A fresh database owned by a fresh role of the same name (bench/databases.py). The role
    is not a superuser, so its connection limit holds: a server that leaks connections fails
    its own requests instead of exhausting the PostgreSQL server that others share. For the
    party server, a fresh data folder instead (its SQLite file and secret key)."""
    if topology == "party-server":
        return DataFolder().create()
    database = Database(f"{PG}/postgres", "bunco_bench", owner_connection_limit=CONNECTION_LIMIT)
    return database.create()


class DataFolder:
    """The party server's data folder (BUNCO_DATA_DIR): its SQLite database, `db.sqlite3`, and
    its secret key, as on a host's laptop; a temporary one, removed by drop()."""

    def create(self):
        self.folder = tempfile.TemporaryDirectory(prefix="bench-party-")
        self.name = self.folder.name
        return self

    def drop(self):
        self.folder.cleanup()


# What points the app at a stack of its own, which a host's shell does not have.
STACK_SETTINGS = ("DJANGO_", "DATABASE_URL", "REDIS_URL", "SQLITE_PATH", "BUNCO_", "PARTY_")


def party_server_env(folder):
    """The environment a host's shell gives `manage.py party_server`: none of the stack's
    settings (BUNCO_STALL_LOG excepted: bench/README.md), the data folder. The command sets
    BUNCO_PARTY_SERVER itself; it is set here too, for the bench's own Django (the parties'
    setup) and its migrate, which then read what the server reads: the folder's SQLite file and
    secret key (the sessions the setup writes are signed with it)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(STACK_SETTINGS) or k == "BUNCO_STALL_LOG"}
    env.update({
        "BUNCO_DATA_DIR": folder.name,
        "BUNCO_PARTY_SERVER": "1",
        "DJANGO_SETTINGS_MODULE": "bunco_site.settings",  # manage.py's default
        "PYTHONUNBUFFERED": "1",
    })
    return env


def server_env(database):
    """The production topology (bench/servers.py): PostgreSQL, Redis channel layer and cache,
    DEBUG off, errors only in the server's log. For a data folder, the party server's."""
    if isinstance(database, DataFolder):
        return party_server_env(database)
    return production_env(
        database.env,
        os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/0"),
        secret=os.environ.get("BENCH_SECRET_KEY") or secrets.token_urlsafe(50),
        # Production's: with the tests' 0.2 s, the stop after each run cut channels_redis's
        # unsubscribes short, and their tracebacks showed among the run's server errors.
        drain_linger="3",
        # Redis pub/sub ignores database numbers: two runs at once on one Redis (two
        # benches, whose fresh databases both number their first party 1) heard each other's
        # pushes, counted as unmatched or as this run's versions. Each run names its own.
        BUNCO_DEPLOYMENT_PREFIX=database.name,
        DJANGO_LOG_LEVEL="ERROR",
    )


def setup_django(env):
    """Django in this process, with the servers' settings (`env`): the stack's settings of the
    shell that `env` leaves out are dropped, so they do not point it elsewhere."""
    for key in [k for k in os.environ if k.startswith(STACK_SETTINGS) and k not in env]:
        del os.environ[key]
    os.environ.update(env)
    sys.path.insert(0, str(APP))
    import django

    django.setup()


def make_parties(count, players, *, max_players=None):
    """`count` parties of `players` each, round 1 started; returns the plan's party entries."""
    from django.contrib.sessions.backends.db import SessionStore
    from django.contrib.sessions.models import Session
    from django.middleware.csrf import CSRF_ALLOWED_CHARS
    from django.utils import timezone
    from django.utils.crypto import get_random_string

    from parties import access
    from parties.models import AccessLink, Seat
    from parties.services import party as party_service
    from parties.services.party import party_create
    from parties.services.round import round_start
    from scoring import PRESETS

    if max_players:
        # The app caps a party at MAX_PLAYERS (400, as S3 and S6 use); a figure above it is
        # for trying beyond the cap.
        try:
            from parties import party_limits as limits
        except ImportError:  # an app from before the limits moved (bench.live --app-ref)
            limits = party_service
        limits.MAX_PLAYERS = max_players
    expire = timezone.now() + timedelta(days=2)
    sessions = []

    def session(link_id):
        key = get_random_string(32, "abcdefghijklmnopqrstuvwxyz0123456789")
        data = SessionStore().encode({access.SESSION_LINKS: [link_id]})
        sessions.append(Session(session_key=key, session_data=data, expire_date=expire))
        return key

    out = []
    for i in range(count):
        party = party_create(
            name=f"Bench {i}",
            player_names=[f"P{i}-{n}" for n in range(players)],
            preset="standard",
            rules=PRESETS["standard"],
        )
        round_start(party=party)
        csrf = get_random_string(32, CSRF_ALLOWED_CHARS)
        links = list(AccessLink.objects.filter(party=party).select_related("table", "player"))
        round_ = party.rounds.get(status="playing")
        table_of = {
            s.player_id: s.table.number
            for s in Seat.objects.filter(round=round_).select_related("table")
        }
        entry = {"id": party.id, "csrf": csrf, "table_cookies": {}, "phones": []}
        tables = 0
        for link in links:
            cookie = f"sessionid={session(link.id)}; csrftoken={csrf}"
            if link.role == "host":
                entry["host_cookie"] = cookie
            elif link.role == "table":
                entry["table_cookies"][str(link.table.number)] = cookie
                tables = max(tables, link.table.number)
            else:
                entry["phones"].append(
                    {
                        "cookie": cookie,
                        "tables": [table_of[link.player_id]],
                        "player": link.player_id,
                    }
                )
        entry["tables"] = tables
        entry["versions"] = {str(n): 0 for n in range(1, tables + 1)}
        out.append(entry)
    Session.objects.bulk_create(sessions, batch_size=2000)
    return out


def refresh_versions(parties):
    """Each table's version now (a version counts the table's rolls in the round)."""
    from django.db.models import Count

    from parties.models import Roll

    for entry in parties:
        entry["versions"] = {str(n): 0 for n in range(1, entry["tables"] + 1)}
        rows = (
            Roll.objects.filter(round__party_id=entry["id"], round__status="playing")
            .values("table__number")
            .annotate(n=Count("id"))
        )
        for row in rows:
            entry["versions"][str(row["table__number"])] = row["n"]


def table_html_bytes(party_id):
    """The size of a real `table-N` fragment, so the baseline sends messages of the same size
    (a first guess: bench.live corrects it from the app's measured messages)."""
    try:
        return _table_html_bytes(party_id)
    except Exception:  # the app's internals moved; the app run's real size takes over
        return 1000


def _table_html_bytes(party_id):
    from parties import state
    from parties.models import Party
    from parties.pages import fragments

    party = Party.objects.get(pk=party_id)
    round_ = party.rounds.get(status="playing")
    live_round = state.load(round_, party.rules)
    html = fragments.render_table(party_id=party.id, live=live_round, number=1, seq=party.seq)
    return len(json.dumps(html)) - 2  # as it travels, escaped inside the JSON message


class BellRewinder(threading.Thread):
    """S3 on the party server: the generator's rewind of a rung bell (bench/gen.py,
    `rewind_bell`) speaks PostgreSQL; on the SQLite file this takes its place, from the bench's
    process. It looks for a party's rung bell every `every` s and, `after` s later (the
    generator's wait after the bell's answer), deletes it and bumps the round's version in one
    transaction, as `rewind_bell` does. Used as a context manager around the run."""

    def __init__(self, party_ids, path=None, every=0.1, after=0.3):
        from django.conf import settings

        super().__init__(daemon=True)
        self.path = path or settings.DATABASES["default"]["NAME"]  # the server's file
        self.party_ids, self.every, self.after = list(party_ids), every, after
        self.done = threading.Event()
        self.rewound = 0

    def run(self):
        with closing(sqlite3.connect(self.path, timeout=20, isolation_level=None)) as db:
            while not self.done.wait(self.every):
                for party_id in self.party_ids:
                    if db.execute(RUNG, (party_id,)).fetchone():
                        self.rewind(db, party_id)

    def rewind(self, db, party_id):
        if not self.done.wait(self.after):  # not when the run is over
            rewind_bell_sqlite(db, party_id)
            self.rewound += 1

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.done.set()
        self.join()


RUNG = (
    "SELECT 1 FROM parties_roundbell WHERE round_id IN "
    "(SELECT id FROM parties_round WHERE party_id = ? AND status = 'playing')"
)


def rewind_bell_sqlite(db, party_id):
    """bench/gen.py's `rewind_bell`, on SQLite."""
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute(
            "DELETE FROM parties_roundbell WHERE round_id IN "
            "(SELECT id FROM parties_round WHERE party_id = ? AND status = 'playing')",
            (party_id,),
        )
        db.execute(
            "UPDATE parties_round SET bell_at = NULL, version = version + 1 "
            "WHERE party_id = ? AND status = 'playing'",
            (party_id,),
        )
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
