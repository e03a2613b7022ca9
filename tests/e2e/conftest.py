"""Real-browser fixtures: a daphne process on a fresh database (Chromium is tests/conftest.py's).

The server runs the same ASGI app a party uses, as its own process (bench/servers.py), in
production mode, against a database made for this run (bench/databases.py): a new SQLite file,
or, when DATABASE_URL is set, a new database on that PostgreSQL server (dropped afterwards).
REDIS_URL, when set, is passed through.

`production` is the production topology whatever the environment says: PostgreSQL, Redis, and
two daphne processes on one database (DATABASE_URL and REDIS_URL, or the local services CI
starts). Every run gets its own Redis channel and cache prefix (tests/settings.py), so
two runs on one Redis, whose fresh databases both number their first party 1, hear nothing
of each other's parties.
"""

import os
import uuid

import pytest

from bench.databases import Database
from bench.servers import Daphne, prepare, production_env
from tests.devices import Shots

# The services CI starts (.ci/run); the production-topology test uses them when the
# environment names none.
LOCAL_POSTGRES = "postgres://postgres@127.0.0.1:5432/test"
LOCAL_REDIS = "redis://127.0.0.1:6379/0"


def e2e_env(database, redis_url):
    """Production mode with the browser tests' own settings, migrated and collected."""
    env = production_env(
        database.env, redis_url, settings="tests.settings",
        BUNCO_TEST_PREFIX=f"e2e{uuid.uuid4().hex[:10]}",
        # One test session creates more parties from 127.0.0.1 than a host would in an hour.
        PARTY_CREATE_MAX_PER_ADDRESS="1000",
    )
    prepare(env)
    return env


@pytest.fixture(scope="session")
def server_env():
    with Database(os.environ.get("DATABASE_URL"), "bunco_e2e") as database:
        yield e2e_env(database, os.environ.get("REDIS_URL"))


@pytest.fixture(scope="session")
def server(server_env):
    server = Daphne(server_env).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def production():
    """Two daphne processes on one PostgreSQL database, their pushes shared through Redis."""
    database_url = os.environ.get("DATABASE_URL") or LOCAL_POSTGRES
    redis_url = os.environ.get("REDIS_URL") or LOCAL_REDIS
    with Database(database_url, "bunco_e2e") as database:
        env = e2e_env(database, redis_url)
        servers = []
        try:
            for _ in range(2):
                servers.append(Daphne(env).start())
            yield tuple(servers)
        finally:
            for server in servers:
                server.stop()


@pytest.fixture
def shots(request):
    return Shots(request.node.name)
