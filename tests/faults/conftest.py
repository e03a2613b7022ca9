"""Fault-test fixtures: real daphne processes on a PostgreSQL database made for this run, a
redis-server of our own, phones that speak HTTP and the websocket, and the database's truth.

Whatever the environment says, these tests run the production stack (PostgreSQL + Redis):
the database is created on the PostgreSQL server of DATABASE_URL (or 127.0.0.1:5432) and
dropped afterwards; Redis is a redis-server started here on a free port, never the shared one.
Every process started here is stopped here.
"""

import html
import http.client
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from http.cookiejar import CookieJar
from urllib.parse import urlparse, urlunparse

import pytest

from tests.e2e.conftest import ROOT, Server, free_port, stop_process
from tests.page_protocol import fetch_headers, form_headers

PG_ADMIN_URL = os.environ.get("DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/postgres"
TWELVE = ["Ann", "Bea", "Cleo", "Dot", "Edie", "Fran", "Gail", "Hope", "Iris", "June", "Kay", "Lou"]
SIXTEEN = TWELVE + ["Mae", "Nell", "Opal", "Pearl"]
SCORE, MISS, BUNCO = (1, 2, 3), (2, 3, 4), (1, 1, 1)  # in round 1 (target 1)


def wait_until(condition, timeout, what, interval=0.05):
    """Poll `condition` until it returns something truthy; fail with `what` after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


# --- the database ---------------------------------------------------------------------------


class Db:
    """Direct reads (and the round-row lock) on the app's database, for the assertions."""

    def __init__(self, url):
        self.url = url

    def connect(self, autocommit=True):
        import psycopg

        return psycopg.connect(self.url, autocommit=autocommit)

    def rows(self, sql, *params):
        with self.connect() as conn:
            return conn.execute(sql, params).fetchall()

    def value(self, sql, *params):
        return self.rows(sql, *params)[0][0]

    def current_round(self, party_id):
        """(id, number, status, version, target) of the round a phone shows (as the app picks)."""
        rows = self.rows(
            "SELECT r.id, r.number, r.status, r.version, r.target FROM parties_round r "
            "JOIN parties_buncoset s ON s.id = r.bunco_set_id WHERE r.party_id = %s "
            "ORDER BY s.number, r.number",
            party_id,
        )
        open_rounds = [r for r in rows if r[2] != "closed"]
        return (open_rounds or rows)[0] if open_rounds else rows[-1]

    def rolls(self, round_id, table=None):
        sql = (
            "SELECT ro.id, t.number, ro.tap_id::text, ro.die1, ro.die2, ro.die3, ro.die4, "
            "ro.called, ro.voided_by_id FROM parties_roll ro JOIN parties_table t "
            "ON t.id = ro.table_id WHERE ro.round_id = %s"
        )
        params = [round_id]
        if table is not None:
            sql += " AND t.number = %s"
            params.append(table)
        return self.rows(sql + " ORDER BY ro.id", *params)

    def snapshot(self, party_id):
        """Everything a refused tap must leave unchanged."""
        return {
            "rolls": self.rows(
                "SELECT ro.id, ro.voided_by_id FROM parties_roll ro JOIN parties_round r "
                "ON r.id = ro.round_id WHERE r.party_id = %s ORDER BY ro.id", party_id),
            "rounds": self.rows(
                "SELECT id, status, version, bell_at, closed_at FROM parties_round "
                "WHERE party_id = %s ORDER BY id", party_id),
            "party": self.rows("SELECT status, seq, paused_at FROM parties_party WHERE id = %s",
                               party_id),
            "lines": self.value(
                "SELECT count(*) FROM parties_scoresheetline l JOIN parties_round r "
                "ON r.id = l.round_id WHERE r.party_id = %s", party_id),
            "bells": self.value(
                "SELECT count(*) FROM parties_roundbell b JOIN parties_round r "
                "ON r.id = b.round_id WHERE r.party_id = %s", party_id),
        }

    def truth(self, party_id, table):
        """What table `table` of the current round must show, derived from the rows alone:
        its version (+1 per roll, +2 per voided roll) and each side's points (a replay of the
        live rolls through scoring/, not through the server's cache)."""
        round_id = self.current_round(party_id)[0]
        state, versions = self.replay(party_id, round_id)
        return {"round": round_id, "version": versions.get(table, 0),
                "points": list(state.tables[table - 1].points)}

    def replay(self, party_id, round_id):
        """The round replayed from its rows through scoring/ (raises if the rules refuse a
        roll it holds), and each table's version."""
        from scoring import Roll, Round, Rules
        from scoring.quick import quick_dice

        target = self.value("SELECT target FROM parties_round WHERE id = %s", round_id)
        options = self.value("SELECT options FROM parties_party WHERE id = %s", party_id)
        seats = self.rows(
            "SELECT t.number, s.player_id, s.keeps_score FROM parties_seat s JOIN parties_table "
            "t ON t.id = s.table_id WHERE s.round_id = %s ORDER BY t.number, s.position",
            round_id)
        seating, keepers = {}, {}
        for number, player, keeps in seats:
            seating.setdefault(number, []).append(str(player))
            if keeps:
                keepers[number] = len(seating[number])
        ghosts = {str(p) for (p,) in self.rows(
            "SELECT id FROM parties_player WHERE party_id = %s AND is_ghost", party_id)}
        bells = self.rows("SELECT after_roll_id FROM parties_roundbell WHERE round_id = %s "
                          "ORDER BY after_roll_id, id", round_id)
        rules = Rules.from_options(options)
        state = Round.start(
            [seating[n] for n in sorted(seating)], rules, target, ghosts=frozenset(ghosts),
            first_seats=[keepers.get(n, 1) for n in sorted(seating)],
        )
        versions = {}
        rows = self.rows(
            "SELECT ro.id, t.number, ro.die1, ro.die2, ro.die3, ro.die4, ro.outcome, ro.face, "
            "ro.called, ro.before_bell, ro.voided_by_id FROM parties_roll ro JOIN parties_table "
            "t ON t.id = ro.table_id WHERE ro.round_id = %s ORDER BY ro.id", round_id)
        for roll_id, number, d1, d2, d3, d4, outcome, face, called, early, voided in rows:
            versions[number] = versions.get(number, 0) + (2 if voided else 1)
            if voided:
                continue
            while bells and bells[0][0] < roll_id:
                bells.pop(0)
                state = state.ring_bell()
            if outcome:  # a quick button, kept as tapped: scored as dice that score the same
                dice = quick_dice(outcome, target, rules, face)
            else:
                dice = tuple(d for d in (d1, d2, d3, d4) if d is not None)
            state = state.roll(number, Roll(dice, called), before_bell=early)
        if bells:
            state = state.ring_bell()
        return state, versions


@pytest.fixture(scope="session")
def pg():
    """A PostgreSQL database of our own, migrated once, dropped at the end of the session."""
    import psycopg

    name = f"bunco_faults_{uuid.uuid4().hex[:12]}"
    try:
        with psycopg.connect(PG_ADMIN_URL, autocommit=True, connect_timeout=5) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
    except psycopg.OperationalError as error:
        pytest.fail(f"the fault tests need PostgreSQL at {PG_ADMIN_URL}: {error}")
    url = urlunparse(urlparse(PG_ADMIN_URL)._replace(path=f"/{name}"))
    try:
        env = base_env(url, "redis://127.0.0.1:1/0")  # migrate touches no channel layer
        subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env,
                       check=True, timeout=120)
        # Production serves the collected, hashed static files (whitenoise's manifest).
        subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
                       cwd=ROOT, env=env, check=True, timeout=120)
        yield Db(url)
    finally:
        for attempt in range(10):  # a PostgreSQL full of other clients refuses for a while
            try:
                with psycopg.connect(PG_ADMIN_URL, autocommit=True, connect_timeout=5) as conn:
                    conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
                break
            except psycopg.OperationalError:
                if attempt == 9:
                    raise
                time.sleep(1)


SECRET = secrets.token_urlsafe(40)


def base_env(database_url, redis_url):
    env = {k: v for k, v in os.environ.items()
           if k not in ("SQLITE_PATH", "DATABASE_URL", "REDIS_URL", "DJANGO_SECRET_KEY")}
    env.update({
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        # Production mode, as a party runs (plain HTTP on the loopback: no TLS proxy here).
        "DJANGO_DEBUG": "0",
        "DJANGO_INSECURE_HTTP": "1",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DJANGO_SECRET_KEY": SECRET,  # the same in every process: tokens and sessions hold
        # No proxy to mark a stopping process down (tests/faults/proxy.py sets its own linger).
        "BUNCO_DRAIN_LINGER": "0.2",
        "DJANGO_SETTINGS_MODULE": "bunco_site.settings",
        "PYTHONUNBUFFERED": "1",
    })
    return env


# --- Redis ----------------------------------------------------------------------------------


class Redis:
    """A redis-server of our own on a free port; `restart` keeps the port (and loses all data,
    as a real restart without persistence does)."""

    def __init__(self):
        if not shutil.which("redis-server"):
            pytest.fail("the fault tests need redis-server (apt-get install redis-server)")
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.dir = tempfile.TemporaryDirectory()
        self.process = None

    def start(self):
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--daemonize", "no", "--dir", self.dir.name],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        wait_until(self.ping, 10, f"redis-server on port {self.port}")
        return self

    def ping(self):
        result = subprocess.run(["redis-cli", "-p", str(self.port), "ping"],
                                capture_output=True, text=True)
        return result.stdout.strip() == "PONG"

    def cli(self, *args):
        result = subprocess.run(["redis-cli", "-p", str(self.port), *args],
                                capture_output=True, text=True, timeout=10)
        return result.stdout.split()

    def subscriptions(self):
        """{group channel: number of subscribers}: the groups the daphne processes listen to.
        (Each process's own "specific" channel is left out: its name may change when the layer
        reconnects, and nothing is ever sent to it; pushes go to groups.)"""
        channels = self.cli("PUBSUB", "CHANNELS", "asgi__group__*")
        counts = self.cli("PUBSUB", "NUMSUB", *channels) if channels else []
        return dict(zip(counts[::2], map(int, counts[1::2]), strict=True))

    def stop(self):
        stop_process(self.process)
        self.process = None

    def restart(self):
        self.stop()
        self.start()


@pytest.fixture
def redis():
    server = Redis().start()
    try:
        yield server
    finally:
        server.stop()
        server.dir.cleanup()


# --- daphne ---------------------------------------------------------------------------------


class Daphne(Server):
    """tests/e2e's Server, plus a hard kill (SIGKILL: no clean shutdown, as a crash)."""

    def kill(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)
        self.log.close()

    def restart(self):
        return self.start()


@pytest.fixture
def daphnes(pg, redis):
    """Start daphne processes on demand (same database, same Redis); all stopped at the end."""
    started = []

    def start(port=None):
        server = Daphne(base_env(pg.url, redis.url), port).start()
        started.append(server)
        return server

    try:
        yield start
    finally:
        for server in started:
            server.stop()


# --- a party --------------------------------------------------------------------------------

CREATE = """
import json, django
django.setup()
from parties import access
from parties.models import AccessLink
from parties.services import party_create
from dataclasses import replace
from scoring import PRESETS
rules = replace(PRESETS[PRESET], **CHANGES)
party = party_create(name="Fault night", player_names=NAMES, preset=PRESET, rules=rules)
links = {"host": None, "tables": {}}
for link in AccessLink.objects.filter(party=party).select_related("table"):
    if link.role == "host":
        links["host"] = access.token_for(link)
    elif link.role == "table":
        links["tables"][link.table.number] = access.token_for(link)
print(json.dumps({"party": party.id, "links": links}))
"""


class Party:
    def __init__(self, party_id, links):
        self.id = party_id
        self.host_token = links["host"]
        self.table_tokens = {int(n): t for n, t in links["tables"].items()}


@pytest.fixture
def make_party(pg, redis):
    def make(preset="standard", names=TWELVE, **changes):
        """A party of `names` on `preset`, with any rule `changes` (Rules fields)."""
        script = f"NAMES = {names!r}\nPRESET = {preset!r}\nCHANGES = {changes!r}\n" + CREATE
        result = subprocess.run([sys.executable, "-c", script], cwd=ROOT,
                                env=base_env(pg.url, redis.url), capture_output=True,
                                text=True, check=True, timeout=60)
        data = json.loads(result.stdout.strip().splitlines()[-1])
        return Party(data["party"], data["links"])

    return make


# --- phones ---------------------------------------------------------------------------------


class Answer:
    def __init__(self, status, body, headers=None):
        self.status = status
        self.body = body
        self.headers = headers or {}  # an http.client.HTTPMessage: any case of a name
        try:
            self.json = json.loads(body)
        except ValueError:
            self.json = None

    def __repr__(self):
        return f"<{self.status} {self.json if self.json is not None else self.body[:200]!r}>"


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Phone:
    """A phone's HTTP side: its own session (a redeemed link) and CSRF cookie."""

    def __init__(self, server, party, token=None):
        self.server = server
        self.party = party
        self.round_id = None  # the round of the table page it shows (sent with each roll)
        self.jar = CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.jar), NoRedirect)
        if token:
            answer = self.request("GET", f"/l/{token}/")
            assert answer.status == 302, answer
        self.request("GET", "/join/")
        assert self.cookie("csrftoken"), "no csrftoken cookie was set"

    def cookie(self, name):
        return next((c.value for c in self.jar if c.name == name), None)

    def request(self, method, path, data=None, headers=None, timeout=15):
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        req = urllib.request.Request(self.server.url + path, data=body, method=method,
                                     headers=dict(headers or {}))
        try:
            with self.opener.open(req, timeout=timeout) as response:
                return Answer(response.status, response.read().decode(), response.headers)
        except urllib.error.HTTPError as error:
            return Answer(error.code, error.read().decode(errors="replace"), error.headers)
        except http.client.HTTPException as error:
            # The server died mid-answer (IncompleteRead, a bad status line): to the page's
            # fetch() that is a network error, as a reset connection is, and it sends again.
            raise ConnectionError(f"{type(error).__name__}: {error}") from error

    def post(self, path, data, page="/"):
        """A page's fetch() POST, header for header (tests/page_protocol.py)."""
        return self.request("POST", path, data,
                            fetch_headers(self.server.url, self.cookie("csrftoken"), page))

    def press(self, path, page):
        """A host's (or the head table's) button on `page`: a plain form post, as the page's
        <form method=post> sends it (tests/page_protocol.py), answered with a redirect to a
        page showing what happened. The answer's `message` is that page's flash message
        ("ok" words or the refusal), and `ok` whether it was a success."""
        answer = self.request("POST", path, {"csrfmiddlewaretoken": self.cookie("csrftoken")},
                              form_headers(self.server.url, page))
        answer.ok, answer.message = False, ""
        if answer.status == 302:
            shown_page = self.request("GET", page)
            found = MESSAGE.search(shown_page.body)
            if found:
                answer.ok = "success" in found.group(1)
                answer.message = html.unescape(found.group(2))
        return answer

    def start_round(self):
        """The host's "Start round" button on the dashboard."""
        answer = self.press(f"/parties/{self.party.id}/start/",
                            f"/parties/{self.party.id}/host/")
        assert answer.ok, answer
        return answer

    def host_button(self, action):
        """A button of the host's dashboard: bell, pause, resume, or rolls/<id>/void."""
        return self.press(f"/parties/{self.party.id}/host/{action}/",
                          f"/parties/{self.party.id}/host/")

    def learn(self, table):
        """What the table's page shows (as the page loads or refetches it): remembers its
        round, which the page sends with every roll."""
        view = shown(self.live_region(table), table)
        self.round_id = view["round"] if view else None
        return view

    def tap_once(self, table, tap_id, seen, dice=None, outcome=None, called=None,
                 bell_seen="1"):
        """One tap as the page sends it. `bell_seen`: whether the page showed the bell when
        the roll was begun; "1" (the default) is a phone that has heard everything the server
        has, "0" one a moment behind the bell."""
        if self.round_id is None:
            self.learn(table)
        data = {"tap_id": str(tap_id), "seen": str(seen), "round": str(self.round_id),
                "bell_seen": bell_seen}
        if dice is not None:
            data["dice"] = ",".join(str(d) for d in dice)
        if outcome is not None:
            data["outcome"] = outcome
        if called is not None:
            data["called"] = called
        return self.post(f"/parties/{self.party.id}/table/{table}/rolls/", data,
                         page=f"/parties/{self.party.id}/table/{table}/")

    def tap(self, table, tap_id, seen, timeout=30, **fields):
        """The outbox's way: send the same tap (same id, same seen) until the server gives a
        JSON answer; a dead server, a reset connection or a 5xx page is tried again."""
        deadline = time.monotonic() + timeout
        tries, failures = 0, []
        while True:
            tries += 1
            try:
                answer = self.tap_once(table, tap_id, seen, **fields)
                if answer.status < 500 and answer.json is not None:
                    answer.tries, answer.failures = tries, failures
                    return answer
                failures.append(answer.status)
            except (OSError, urllib.error.URLError, ConnectionError) as error:
                failures.append(type(error).__name__)
            if time.monotonic() > deadline:
                raise AssertionError(f"tap {tap_id} got no answer within {timeout} s")
            time.sleep(0.1)

    def live_region(self, table):
        """The table page's live region, as htmx fetches it on a resync."""
        answer = self.request("GET", f"/parties/{self.party.id}/table/{table}/",
                              headers={"HX-Request": "true"})
        assert answer.status == 200, answer
        return answer.body


MESSAGE = re.compile(r'<li class="message ([^"]*)">(.*?)</li>', re.S)
SECTION = re.compile(r'<section id="table-(\d+)"[^>]*>.*?</section>', re.S)


def shown(html, table):
    """What the live region or pushed fragment `html` shows for `table`: version, round, points."""
    for match in SECTION.finditer(html):
        if int(match.group(1)) == table:
            section = match.group(0)
            head = section[: section.index(">")]
            return {
                "round": int(re.search(r'data-round="(\d+)"', head).group(1)),
                "version": int(re.search(r'data-version="(\d+)"', head).group(1)),
                "points": [int(p) for p in re.findall(r'class="side-points" data-points="(\d+)"',
                                                       section)],
                "phase": re.search(r'data-phase="(\w+)"', head).group(1),
                "bell": re.search(r'data-bell="(\d)"', head).group(1) == "1",
            }
    return None


class Watcher:
    """A phone's websocket side, doing what static/parties/live.js does: apply a pushed table
    fragment when its version is newer, resync (GET the live region) when the round differs,
    on a party-wide message with a newer seq, and after every reconnect (backing off)."""

    def __init__(self, phone, tables):
        self.phone = phone
        self.tables = list(tables)
        self.view = {}  # table -> shown(...)
        self.messages = []  # every JSON message received
        self.last_seq = 0
        self.live_round = None  # the round the page's live region is of
        self.opened = 0
        self.changed = threading.Condition()
        self.resyncing = threading.Lock()
        self.stopping = threading.Event()
        self.socket = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self.thread.start()
        self.wait(lambda: self.opened >= 1, 15, "the websocket to open")
        return self

    def stop(self):
        self.stopping.set()
        if self.socket is not None:
            try:
                self.socket.close()
            except Exception:  # noqa: BLE001, S110 - already closing
                pass
        self.thread.join(10)

    def wait(self, condition, timeout, what):
        deadline = time.monotonic() + timeout
        with self.changed:
            while not condition():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"timed out after {timeout} s waiting for {what}; "
                                         f"view={self.view} last messages={self.messages[-5:]}")
                self.changed.wait(min(left, 0.2))

    def _notify(self):
        with self.changed:
            self.changed.notify_all()

    def resync(self):
        # One at a time (the socket's thread and the bell's timer both resync), so a slower
        # fetch never lands after a fresher one, as the page's single thread never does.
        with self.resyncing:
            self._resync()

    def _resync(self):
        for table in self.tables:
            html = self.phone.live_region(table)
            live = re.search(r'<div id="live" data-seq="(\d+)" data-round="(\d+)"', html)
            with self.changed:
                if live:
                    self.last_seq = max(self.last_seq, int(live.group(1)))
                    self.live_round = int(live.group(2))
                self.view[table] = shown(html, table)
                self.changed.notify_all()

    def _run(self):
        from websockets.sync.client import connect

        server = self.phone.server
        url = (f"ws://127.0.0.1:{server.port}/ws/parties/{self.phone.party.id}/"
               f"?tables={','.join(map(str, self.tables))}")
        attempts = 0
        while not self.stopping.is_set():
            try:
                with connect(url, origin=server.url, open_timeout=5, additional_headers={
                        "Cookie": f"sessionid={self.phone.cookie('sessionid')}"}) as socket:
                    self.socket = socket
                    attempts = 0
                    self.resync()  # the first open, or anything missed while away
                    with self.changed:
                        self.opened += 1
                        self.changed.notify_all()
                    for text in socket:
                        self._receive(text)
            except Exception:  # noqa: BLE001, S110 - a dead server, a reset: reconnect, as phones do
                pass
            self.socket = None
            if self.stopping.is_set():
                return
            self.stopping.wait(min(2.0, 0.1 * 2 ** attempts))
            attempts += 1

    def _receive(self, text):
        """live.js receive(), rule for rule."""
        if text == "pong":
            return
        message = json.loads(text)
        with self.changed:
            self.messages.append(message)
            self.changed.notify_all()
        if message["type"] == "table":
            self._apply_table(message)
            return
        if message["type"] == "resync":
            self.resync()  # pushes were lost on the server's side; no reconnect
            return
        if message["seq"] <= self.last_seq:
            return  # already seen, or older than what we fetched
        self.last_seq = message["seq"]
        if message["type"] == "bell":
            # The tables' updates follow the bell; a table still shown from before the bell
            # 3 s later is fetched.
            timer = threading.Timer(BELL_UPDATES_WAIT, self._resync_if_before_bell)
            timer.daemon = True
            timer.start()
            return
        self.resync()

    def _apply_table(self, message):
        current = self.view.get(message["table"])
        if current is None:
            return
        if message["round"] != current["round"]:
            self.resync()
            return
        bell_news = message["bell"] and not current["bell"]
        if message["version"] < current["version"] or (
            message["version"] == current["version"] and not bell_news
        ):
            return
        with self.changed:
            self.view[message["table"]] = shown(message["html"], message["table"])
            self.changed.notify_all()

    def _resync_if_before_bell(self):
        if not self.stopping.is_set() and any(
            view and not view["bell"] for view in self.view.values()
        ):
            try:
                self.resync()
            except (OSError, AssertionError):
                pass  # the server is down (a fault test): the reconnect resyncs, as on the page


BELL_UPDATES_WAIT = 3.0  # live.js


@pytest.fixture
def watchers():
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


def assert_phone_shows_db(watcher, db, party_id, timeout=20):
    """Every table the watcher shows reaches exactly what the database's rows say (between
    rounds, when the next round waits to start, the page shows no table at all)."""
    for table in watcher.tables:
        def matches(table=table):
            view = watcher.view.get(table)
            if db.current_round(party_id)[2] != "playing":
                return view is None
            truth = db.truth(party_id, table)
            return view is not None and all(view[k] == truth[k] for k in truth)

        try:
            wait_until(matches, timeout, f"the phone to show table {table} as the database")
        except AssertionError:
            raise AssertionError(
                f"table {table}: phone shows {watcher.view.get(table)}, database says "
                f"{db.truth(party_id, table)}; the phone's last messages: "
                f"{[{k: v for k, v in m.items() if k != 'html'} for m in watcher.messages[-8:]]}"
            ) from None


class PartyLock:
    """Hold the party's row lock from outside the app, so that requests sent meanwhile all
    wait at the same point (every write of a party takes that lock first); releasing it lets
    them race for real. This turns "at the same moment" into something a test can make happen
    every time. A request can also wait inside its process (one tap of a party at a time
    there, in parties.taps): then it shows as sent and unanswered, not as a database wait."""

    QUEUED_AFTER = 1.0  # seconds unanswered, not waiting on the database: queued in daphne

    def __init__(self, db, party_id):
        self.db = db
        self.party_id = party_id

    def __enter__(self):
        self.conn = self.db.connect(autocommit=False)
        self.conn.execute("SELECT id FROM parties_party WHERE id = %s FOR UPDATE",
                          (self.party_id,))
        self.threads, self.results = [], {}
        return self

    def send(self, name, call):
        """Start `call` in a thread and wait until it is held up by the lock."""
        before = self.waiting()
        started = time.monotonic()

        def run():
            try:
                self.results[name] = call()
            except BaseException as error:  # noqa: BLE001 - reported by the test
                self.results[name] = error

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        self.threads.append(thread)
        wait_until(lambda: self.waiting() > before or name in self.results
                   or time.monotonic() - started > self.QUEUED_AFTER, 15,
                   f"{name} to wait on the party's lock")
        assert name not in self.results, f"{name} did not wait on the lock: {self.results[name]}"

    def waiting(self):
        return self.db.value(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
            "AND datname = current_database()")

    def release(self, timeout=30):
        self.conn.rollback()
        for thread in self.threads:
            thread.join(timeout)
            assert not thread.is_alive(), "a request did not finish"
        return self.results

    def __exit__(self, *exc):
        if not self.conn.closed:
            self.conn.rollback()
            self.conn.close()


def started_party(make_party, daphnes, names=TWELVE, **changes):
    """A party on two daphne processes, its round 1 started by the host (on the first)."""
    party = make_party(names=names, **changes)
    servers = [daphnes(), daphnes()]
    host = Phone(servers[0], party, party.host_token)
    host.start_round()
    return party, servers, host
