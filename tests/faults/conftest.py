"""Fault-test fixtures: real daphne processes on a PostgreSQL database made for this run, a
redis-server of our own, and phones' websocket sides that follow them.

Whatever the environment says, these tests run the production stack (PostgreSQL + Redis):
the database is created on the PostgreSQL server of DATABASE_URL (or 127.0.0.1:5432) and
dropped afterwards; Redis is a redis-server started here on a free port, never the shared one.
Every process started here is stopped here. The pieces are modules of their own: db.py (the
database's truth), phone.py (a phone's HTTP side), watcher.py (its websocket side), party.py.
"""

import os
import shutil

import pytest

from bench.databases import Database
from bench.redis_server import RedisServer
from bench.servers import Daphne, prepare, production_env
from tests.faults.db import Db
from tests.faults.party import TWELVE, create_party
from tests.faults.watcher import Watcher

POSTGRES = os.environ.get("DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/postgres"


@pytest.fixture(scope="session")
def pg():
    """A PostgreSQL database of our own, migrated once, dropped at the end of the session."""
    import psycopg

    database = Database(POSTGRES, "bunco_faults")
    try:
        database.create()
    except psycopg.OperationalError as error:
        pytest.fail(f"the fault tests need PostgreSQL at {POSTGRES}: {error}")
    try:
        prepare(production_env(database.env))  # migrate touches no channel layer
        yield Db(database.url)
    finally:
        database.drop()


@pytest.fixture
def redis():
    if not shutil.which("redis-server"):
        pytest.fail("the fault tests need redis-server (apt-get install redis-server)")
    server = RedisServer().start()
    try:
        yield server
    finally:
        server.close()


def servers_env(pg, redis, **extra):
    """The environment of every process of a fault test: the same database, the same Redis.
    The gate's wait for a tap (bunco_site/fast/gate.py) is long: these tests hold a party's row
    lock from outside the app, and the taps of that party queue behind it on purpose
    (tests/faults/test_overload.py sets its own short wait)."""
    return production_env({"DATABASE_URL": pg.url}, redis.url, **{"BUNCO_TAP_WAIT": "60", **extra})


@pytest.fixture
def daphnes(pg, redis):
    """Start daphne processes on demand (same database, same Redis); all stopped at the end."""
    started = []

    def start(port=None, **settings):
        """A process on `port` (a free one if None), with any of the app's `settings` (env)."""
        server = Daphne(servers_env(pg, redis, **settings), port).start()
        started.append(server)
        return server

    try:
        yield start
    finally:
        for server in started:
            server.stop()


@pytest.fixture
def make_party(pg, redis):
    def make(preset="standard", names=TWELVE, **changes):
        """A party of `names` on `preset`, with any rule `changes` (Rules fields)."""
        return create_party(servers_env(pg, redis), preset, names, **changes)

    return make


@pytest.fixture
def watchers():
    """Start phones' websocket sides on demand (tests/faults/watcher.py); all stopped at the
    end."""
    started = []

    def watch(phone, tables):
        watcher = Watcher(phone, tables).start()
        started.append(watcher)
        return watcher

    try:
        yield watch
    finally:
        for watcher in started:
            watcher.stop()
