"""Real-browser fixtures: a daphne process on a fresh database, and Debian's Chromium.

The server runs the same ASGI app a party uses, as its own process, against a database made
for this run: a new SQLite file, or, when DATABASE_URL is set, a new database on that
PostgreSQL server (dropped afterwards). REDIS_URL, when set, is passed through.

`production` is the production topology whatever the environment says: PostgreSQL, Redis, and
two daphne processes on one database (DATABASE_URL and REDIS_URL, or the local services CI
starts). Every run gets its own Redis channel and cache prefix (tests/e2e/settings.py), so
two runs on one Redis, whose fresh databases both number their first party 1, hear nothing
of each other's parties.
"""

import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path
from urllib.parse import urlparse, urlunparse

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2}
LAPTOP = {"viewport": {"width": 1280, "height": 800}}
# The services CI starts (.ci/run); the production-topology test uses them when the
# environment names none.
LOCAL_POSTGRES = "postgres://postgres@127.0.0.1:5432/test"
LOCAL_REDIS = "redis://127.0.0.1:6379/0"
SECRET = secrets.token_urlsafe(40)


def stop_process(process):
    """Ask a process we started to stop, and make sure it has (a kill after 10 s)."""
    if process and process.poll() is None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Database:
    """A database of our own for one test session."""

    def __init__(self, url=None):
        self.url = url or os.environ.get("DATABASE_URL")
        self.name = None

    def __enter__(self):
        if not self.url:
            self.tmp = tempfile.TemporaryDirectory()
            return {"SQLITE_PATH": str(Path(self.tmp.name) / "e2e.sqlite3")}
        import psycopg

        self.name = f"bunco_e2e_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{self.name}"')
        return {"DATABASE_URL": urlunparse(urlparse(self.url)._replace(path=f"/{self.name}"))}

    def __exit__(self, *exc):
        if not self.name:
            self.tmp.cleanup()
            return
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


class Server:
    """One daphne process serving the app, started as production starts it (bunco_site.serve:
    with the server patches)."""

    def __init__(self, env, port=None):
        self.env = env
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = None

    def command(self):
        return [sys.executable, "-m", "bunco_site.serve", "-b", "127.0.0.1", "-p", str(self.port),
                "bunco_site.asgi:application"]

    def start(self):
        (ROOT / "test-artifacts").mkdir(exist_ok=True)
        self.log = open(ROOT / "test-artifacts" / f"daphne-{self.port}.log", "ab")  # noqa: SIM115
        self.process = subprocess.Popen(
            self.command(), cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"daphne exited with {self.process.returncode}; see {self.log.name}")
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=1) as response:
                    if response.status == 200:
                        return self
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"daphne did not answer within 30 s; see {self.log.name}")

    def stop(self):
        stop_process(self.process)
        self.log.close()


def _server_env(db_env, **extra):
    env = {k: v for k, v in os.environ.items() if k not in ("SQLITE_PATH", "DATABASE_URL")}
    env.update(db_env)
    env.update(extra)
    env.update({
        # Production mode, as a party runs: the collected, hashed static files, DEBUG off, the
        # security settings on (plain HTTP on the loopback, with no TLS proxy in front).
        "DJANGO_DEBUG": "0",
        "DJANGO_INSECURE_HTTP": "1",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DJANGO_SECRET_KEY": SECRET,  # one for every process: tokens and sessions hold
        # The graceful stop lingers 3 s for a proxy to mark the process down; none is in front
        # of these servers, and a test's stop should not wait for one.
        "BUNCO_DRAIN_LINGER": "0.2",
        # One test session creates more parties from 127.0.0.1 than a host would in an hour.
        "PARTY_CREATE_MAX_PER_ADDRESS": "1000",
        "DJANGO_SETTINGS_MODULE": "tests.e2e.settings",
        "BUNCO_E2E_PREFIX": f"e2e{uuid.uuid4().hex[:10]}",
    })
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
                   cwd=ROOT, env=env, check=True)
    return env


@pytest.fixture(scope="session")
def server_env():
    (ROOT / "test-artifacts").mkdir(exist_ok=True)
    with Database() as db_env:
        yield _server_env(db_env)


@pytest.fixture(scope="session")
def server(server_env):
    server = Server(server_env).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def production():
    """Two daphne processes on one PostgreSQL database, their pushes shared through Redis."""
    (ROOT / "test-artifacts").mkdir(exist_ok=True)
    database_url = os.environ.get("DATABASE_URL") or LOCAL_POSTGRES
    redis_url = os.environ.get("REDIS_URL") or LOCAL_REDIS
    with Database(database_url) as db_env:
        env = _server_env(db_env, REDIS_URL=redis_url)
        servers = []
        try:
            for _ in range(2):
                servers.append(Server(env).start())
            yield tuple(servers)
        finally:
            for server in servers:
                server.stop()


class Shots:
    """Saves a named screenshot of a page into test-artifacts/screenshots/<test>/."""

    def __init__(self, name):
        self.folder = SCREENSHOTS / name
        self.folder.mkdir(parents=True, exist_ok=True)
        self.count = 0

    def __call__(self, page, label):
        self.count += 1
        path = self.folder / f"{self.count:02d}-{label}.png"
        page.screenshot(path=str(path), full_page=True)
        return path


@pytest.fixture
def shots(request):
    return Shots(request.node.name)
