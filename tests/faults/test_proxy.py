"""The production topology: deploy/haproxy.cfg in front of two daphne processes (PostgreSQL,
Redis), phones in Chromium running the page's own JS in production mode, every one of them
talking to the proxy only.

- Party-sticky routing: every page and socket of a party lands on one process, and the
  parties spread over both.
- The party's process is killed (SIGKILL) with taps in flight: the proxy sends the phones to
  the other process, they reconnect and resync, their outboxes resend, and every tap sent is
  stored once and shown on every phone; the bell, the round's close and the new seats happen
  once each.
- A rolling restart (SIGTERM, the graceful stop, then the next process) during a round does
  the same, and the sockets are closed with 1012, which the phones reconnect on.
- The proxy passes the client's own address to the rate limits, and no address a client
  forges.
"""

import http.client
import json
import re
import signal
import socket
import urllib.parse

import pytest
from playwright.sync_api import expect

from bench.haproxy import SERVER_NAMES, Proxy
from bench.waiting import wait_until
from tests.devices import LAPTOP, PHONE, Shots
from tests.faults.db import PartyLock
from tests.faults.phone import Phone
from tests.faults.proxy import proxied_daphne, proxied_env

pytestmark = [pytest.mark.e2e, pytest.mark.needs_haproxy, pytest.mark.slow]


@pytest.fixture
def topology(pg, redis):
    """Two daphne processes and the proxy in front of them; all stopped at the end."""
    servers = [proxied_daphne(proxied_env(pg, redis)) for _ in SERVER_NAMES]
    proxy = None
    try:
        for server in servers:
            server.start()
        proxy = Proxy(servers).start()
        yield proxy
    finally:
        if proxy is not None:
            proxy.stop()
        stop_started(servers)


def stop_started(servers):
    """Stop every server that was started, one that failed to answer included."""
    for server in servers:
        if server.process is not None:
            server.stop()


@pytest.fixture
def shots(request):
    return Shots(request.node.name)


class Scorekeeper:
    """A table's phone in Chromium, opened from its link through the proxy. Keeps every tap id
    the page sent (its outbox's POSTs, retries included) and every answer's status."""

    def __init__(self, context, proxy, party, number):
        self.number = number
        self.page = context.new_page()
        self.posted = []  # tap ids the page sent: each POST's, and those queued behind it
        self.statuses = []
        self.answered = []  # tap ids of the POSTs answered 200
        self.turned_away = 0  # the app's busy answers (503 with Retry-After: bunco_site.fast.gate)
        self.page.on("request", self._request)
        self.page.on("response", self._response)
        self.page.goto(f"{proxy.url}/l/{party.table_tokens[number]}/")
        expect(self.page).to_have_url(re.compile(rf"/parties/{party.id}/table/{number}/$"))
        self.live = self.page.locator(f"section#table-{number}")

    def _request(self, request):
        if request.method == "POST" and request.url.endswith(f"/table/{self.number}/rolls/"):
            self.posted.extend(tap_ids(request))

    def _response(self, response):
        if response.request.method == "POST" and "/rolls/" in response.url:
            self.statuses.append(response.status)
            if response.status == 200:
                self.answered.extend(tap_ids(response.request))
            if response.status == 503 and "retry-after" in response.headers:
                self.turned_away += 1

    def button(self, name):
        return self.page.get_by_role("button", name=name, exact=True)

    def tap(self, name):
        """Tap, and wait for the server's answer (the outbox empty)."""
        self.button(name).click()
        self.settled()

    def settled(self, timeout=30_000):
        outbox = self.page.locator(".outbox .tap:not(.saved)")  # saved ones stay listed
        try:
            expect(outbox).to_have_count(0, timeout=timeout)
        except AssertionError:
            raise AssertionError(f"table {self.number}'s outbox still holds "
                                 f"{outbox.all_inner_texts()}; answers {self.statuses}") from None

    def bunco(self):
        self.button("BUNCO!").click()
        self.page.locator("dialog.call-dialog").get_by_role(
            "button", name="Yes, they called it").click()
        self.settled()

    def shown(self):
        return self.page.evaluate(SHOWN, self.number)


def tap_ids(request):
    """The tap ids one POST of the outbox carries: its own, and those the outbox queued meanwhile
    that ride along in `more` (static/parties/table.js). After the kill, with the taps held, a
    slow machine sent two in one POST."""
    fields = urllib.parse.parse_qs(request.post_data or "")
    return [fields["tap_id"][0]] + [
        tap["tap_id"] for tap in json.loads(fields.get("more", ["[]"])[0])]


SHOWN = """(number) => {
    const t = document.getElementById('table-' + number);
    if (!t) return null;
    return {round: Number(t.dataset.round), version: Number(t.dataset.version),
            points: [...t.querySelectorAll('.side-points')].map(e => Number(e.textContent))};
}"""


def host_page(chromium, proxy, party):
    context = chromium.new_context(**LAPTOP)
    page = context.new_page()
    page.goto(f"{proxy.url}/l/{party.host_token}/")
    expect(page).to_have_url(re.compile(rf"/parties/{party.id}/host/$"))
    return context, page


def sockets_open(pages):
    for page in pages:
        expect(page.locator("body")).to_have_attribute("data-socket", "open", timeout=30_000)


def assert_every_tap_accounted_for(pg, party, keepers, host, taps):
    """sent = stored = shown: each table's tap ids the phone sent are the rows stored for it,
    once each and none voided, `taps` of them; every phone showing a table (its own phone and
    the host's, which shows them all) shows it as the rows say."""
    round_id = pg.current_round(party.id)[0]
    for keeper in keepers:
        rows = pg.rolls(round_id, keeper.number)
        stored = [r[2] for r in rows]
        assert len(stored) == len(set(stored)) == taps[keeper.number], (keeper.number, rows)
        assert set(stored) == set(keeper.posted), (keeper.number, stored, keeper.posted)
        assert all(r[8] is None for r in rows)
    for keeper in keepers:
        truth = pg.truth(party.id, keeper.number)
        assert truth["version"] == taps[keeper.number]
        for page in (host, keeper.page):
            wait_until(lambda p=page, k=keeper, t=truth: p.evaluate(SHOWN, k.number) == {
                "round": t["round"], "version": t["version"], "points": t["points"]},
                20, f"{page.url} to show table {keeper.number} as the database: {truth}")


def assert_round_closed_once(pg, party, pages, shots, label):
    """The bell rang once, the round closed once, the next round's seats were made once, and
    every phone heard both bells (the bell and "round over") exactly once."""
    for page in pages:
        expect(page.locator("body")).to_have_attribute("data-bells", "2", timeout=30_000)
        expect(page.locator(".banner.wait")).to_have_text(re.compile(  # the host: press Start
            r"(Waiting for the bell to start|Everyone seated\? Press Start round 2 to begin) "
            r"set 1, round 2\."))
    rounds = pg.rows("SELECT id, number, status, bell_at IS NOT NULL, closed_at IS NOT NULL "
                     "FROM parties_round WHERE party_id = %s ORDER BY id", party.id)
    first, second = rounds[0], rounds[1]
    assert first[1:] == (1, "closed", True, True), first
    assert second[1:3] == (2, "waiting"), second
    # The head table's Bunco rang it (no bell from outside the tables).
    assert pg.value("SELECT count(*) FROM parties_roundbell WHERE round_id = %s", first[0]) == 0
    assert pg.value("SELECT count(*) FROM parties_scoresheetline WHERE round_id = %s",
                    first[0]) == 12
    seats = pg.rows("SELECT player_id FROM parties_seat WHERE round_id = %s", second[0])
    assert len(seats) == len({s[0] for s in seats}) == 12
    for n, page in enumerate(pages):
        shots(page, f"{label}-{n}")
    for page in pages:
        assert page.evaluate("document.body.dataset.bells") == "2"  # and no third since


def test_every_page_and_socket_of_a_party_goes_to_one_process_and_parties_spread(
    topology, make_party
):
    proxy = topology
    seen = {}
    for _ in range(16):  # until both processes have a party (each party is 50:50)
        party = make_party()
        phone = Phone(proxy, party, party.host_token)
        for path in ("host/", "", "results/", "tally/", "table/1/"):
            assert phone.request("GET", f"/parties/{party.id}/{path}").status == 200
        phone.start_round()
        seen[party.id] = proxy.servers_of(party.id)
        if len(set().union(*seen.values())) == 2 and len(seen) >= 3:
            break
    for party_id, servers in seen.items():
        assert len(servers) == 1, f"party {party_id}'s pages were served by {servers}"
    assert set().union(*seen.values()) == set(SERVER_NAMES), seen


def test_killing_the_partys_process_mid_round_loses_no_tap_and_doubles_none(
    chromium, topology, make_party, pg, shots
):
    proxy = topology
    party = make_party()
    contexts = [chromium.new_context(**PHONE) for _ in (1, 2, 3)]
    host_context, host = host_page(chromium, proxy, party)
    contexts.append(host_context)
    try:
        keepers = [Scorekeeper(c, proxy, party, n) for n, c in zip((1, 2, 3), contexts,
                                                                   strict=False)]
        pages = [host] + [k.page for k in keepers]
        sockets_open(pages)
        host.get_by_role("button", name="Start round 1").click()
        expect(host.locator(".controls .set-round")).to_contain_text("Playing")
        for keeper in keepers:
            expect(keeper.button("1 point")).to_be_visible()
            keeper.tap("1 point")
            keeper.tap("1 point")

        (home,) = proxy.servers_of(party.id)  # sticky: one process so far
        other = next(n for n in SERVER_NAMES if n != home)
        shots(keepers[0].page, "before-the-kill")

        # Taps in flight when the process dies: the party's row is held, so the first waits
        # inside its transaction and the others queue behind it in the process.
        with PartyLock(pg, party.id) as lock:
            for keeper in keepers:
                keeper.button("1 point").click()
            wait_until(lock.waiting, 15, "a tap to wait on the party's lock")
            # The process holds the four pages' sockets and the three taps (and maybe a
            # page's refetch).
            wait_until(lambda: proxy.sessions()[home] >= 7, 10,
                       f"the taps to be in {home}: {proxy.sessions()}")
            # No tap can be answered while the lock is held: the POSTs from here on are the
            # six taps' (the three held, three more below).
            posts_mark = len(proxy.routes())
            answered_before = [set(k.answered) for k in keepers]
            proxy.servers[home].kill()
            log_mark = len(proxy.routes())  # all it had answered is logged; the rest is not
        proxy.wait_down(home)
        for keeper in keepers:  # while one process is down, more taps
            keeper.button("1 point").click()
        for keeper in keepers:
            keeper.settled()
        sockets_open(pages)

        taps = {1: 4, 2: 4, 3: 4}
        assert_every_tap_accounted_for(pg, party, keepers, host, taps)
        # Each tap held in the dead process was answered by the other: resent by the browser
        # (its kept-alive connection closed with no answer) or, after a 502, by the phone's
        # outbox; either way with its tap id, so it counts once (above). The six taps since the
        # kill were answered 200 by the other process, each phone's two in one POST or two (a
        # tap queued behind a resent one rides along with it). A tap may have taken one more
        # line: one that reached no process (the proxy's 503 while it found none to connect to:
        # flags SC), one the other process turned away busy while it took over the party (the
        # app's 503 with Retry-After, nothing written: CI's slow machine did), or a second
        # answer from the other process to a phone that sent it again.
        for keeper, before in zip(keepers, answered_before, strict=True):
            since = set(keeper.answered) - before
            assert since == set(keeper.posted) - before and len(since) == 2, (
                keeper.number, since, keeper.posted, keeper.statuses)
        after = proxy.routes()[log_mark:]  # (the killed sockets' lines too: logged as they end)
        never_reached = [r for r in after if r["flags"][:2] == "SC"]
        posts = [r for r in proxy.routes()[posts_mark:]
                 if r["method"] == "POST" and r["flags"][:2] != "SC"]
        saved = [r for r in posts if r["status"] == "200"]
        busy = [r for r in posts if r["status"] == "503"]
        assert len(saved) >= len(keepers) and len(saved) + len(busy) == len(posts), posts
        assert len(busy) <= sum(k.turned_away for k in keepers), (
            "a 503 from a process that was not the app's busy answer", posts,
            [k.statuses for k in keepers])
        assert {r["server"] for r in after if r["route"] == "page" and r not in never_reached} == (
            {other}), after
        shots(keepers[0].page, "after-the-kill")

        # The head table's Bunco rings the bell; every table finishes its turn; the round
        # closes and everyone gets a new seat, once.
        keepers[0].bunco()
        for page in pages:
            expect(page.locator("body")).to_have_attribute("data-bells", "1")
        for keeper in keepers:
            keeper.tap("Nothing")
        assert_round_closed_once(pg, party, pages, shots, "round-over")
    finally:
        for context in contexts:
            context.close()


def test_a_rolling_restart_during_a_round_loses_nothing_and_closes_sockets_with_1012(
    chromium, topology, make_party, pg, shots
):
    from websockets.sync.client import connect

    proxy = topology
    party = make_party()
    contexts = [chromium.new_context(**PHONE) for _ in (1, 2, 3)]
    host_context, host = host_page(chromium, proxy, party)
    contexts.append(host_context)
    try:
        keepers = [Scorekeeper(c, proxy, party, n) for n, c in zip((1, 2, 3), contexts,
                                                                   strict=False)]
        pages = [host] + [k.page for k in keepers]
        sockets_open(pages)
        host.get_by_role("button", name="Start round 1").click()
        expect(host.locator(".controls .set-round")).to_contain_text("Playing")
        for keeper in keepers:
            expect(keeper.button("1 point")).to_be_visible()
            keeper.tap("1 point")
        (home,) = proxy.servers_of(party.id)
        taps = {1: 1, 2: 1, 3: 1}
        watcher = Phone(proxy, party, party.table_tokens[2])

        # Deploy: each process in turn is asked to stop (the party's own first), replaced,
        # and back in the proxy's rotation before the next goes. Taps go on meanwhile.
        for name in (home, *(n for n in SERVER_NAMES if n != home)):
            server = proxy.servers[name]
            # A socket of the party's (sticky: on its process, the one stopping first).
            socket = connect(f"ws://127.0.0.1:{proxy.port}/ws/parties/{party.id}/?tables=2",
                             origin=proxy.url, open_timeout=10, additional_headers={
                                 "Cookie": f"sessionid={watcher.cookie('sessionid')}"})
            with socket, PartyLock(pg, party.id) as lock:
                keepers[1].button("1 point").click()  # in flight as the stop begins
                wait_until(lock.waiting, 15, "a tap to wait on the party's lock")
                mark = len(proxy.routes())
                server.process.send_signal(signal.SIGTERM)
                if name == home:
                    wait_until(lambda s=socket: _closed(s), 10,
                               "the socket to be closed by the stopping process")
                    assert socket.close_code == 1012, (socket.close_code, socket.close_reason)
            taps[2] += 1
            for keeper in keepers:
                keeper.button("1 point").click()
                taps[keeper.number] += 1
            assert server.exited(30) == 0, "the graceful stop did not exit cleanly"
            if name == home:  # the tap it held was answered by it, and nothing it got cut off
                # (Once stopping, it takes no new connection, but the proxy's kept-alive
                # connections to it still bring taps until its health check marks it down:
                # each of those is answered too.)
                posts = [r for r in proxy.routes()[mark:]
                         if r["method"] == "POST" and r["server"] == home]
                assert posts and all(r["status"] == "200" for r in posts), posts
            server.restart()
            proxy.wait_up(name)
            for keeper in keepers:
                keeper.settled()
            sockets_open(pages)

        assert_every_tap_accounted_for(pg, party, keepers, host, taps)
        # Every tap a process started, it answered: the phones saw 200s, and at most 503s for
        # taps nothing was written for: the proxy's own, for taps that never reached a process
        # (for a moment mid-restart, none it could connect to: flags "SC"), and the app's busy
        # answer (with Retry-After) to a tap it could not start in time. The phone sent those
        # again, and every tap is accounted for above. A process's own error, or a tap cut off
        # in flight, fails here.
        answers = [s for k in keepers for s in k.statuses]
        turned_away = sum(k.turned_away for k in keepers)
        errors = [r for r in proxy.routes() if r["method"] == "POST" and int(r["status"]) >= 500]
        never_reached = [r for r in errors if r["status"] == "503" and r["flags"][:2] == "SC"]
        busy = [r for r in errors if r["status"] == "503" and r not in never_reached]
        assert set(answers) <= {200, 503} and len(errors) == len(never_reached) + len(busy), (
            "the graceful stop answered every tap it had started",
            [k.statuses for k in keepers], errors)
        assert len(busy) <= turned_away, (answers, errors)
        assert answers.count(503) <= len(never_reached) + turned_away, (answers, errors)
        shots(keepers[1].page, "after-the-restarts")
        keepers[0].bunco()
        for page in pages:
            expect(page.locator("body")).to_have_attribute("data-bells", "1")
        for keeper in keepers:
            keeper.tap("Nothing")
        assert_round_closed_once(pg, party, pages, shots, "round-over")
    finally:
        for context in contexts:
            context.close()


def _closed(socket):
    """Whether the server has closed the socket (reading what it still sends meanwhile)."""
    from websockets.exceptions import ConnectionClosed

    try:
        socket.recv(timeout=0.1)
    except TimeoutError:
        return False
    except ConnectionClosed:
        return True
    return False


def test_the_rate_limits_count_the_clients_own_address_never_a_forged_one(topology, redis):
    """A host at 127.0.0.3 creates parties, each request forging another X-Forwarded-For: the
    proxy replaces the header, daphne (--proxy-headers) takes the client's address from it,
    and the creation limit (the one limit counted per address) counts 127.0.0.3, not the
    proxy's address nor anything forged."""
    from tests.parties.conftest import create_form

    proxy = topology
    for n in range(3):
        connection = http.client.HTTPConnection("127.0.0.1", proxy.port, timeout=10,
                                                source_address=("127.0.0.3", 0))
        connection.request("GET", "/parties/new/", headers={"Host": f"127.0.0.1:{proxy.port}"})
        answer = connection.getresponse()
        answer.read()
        cookies = "; ".join(c.split(";")[0] for c in answer.headers.get_all("Set-Cookie"))
        csrf = re.search(r"csrftoken=([^;]+)", cookies).group(1)
        form = {**create_form(names=["Ann", "Bea", "Cleo", "Dot"]), "csrfmiddlewaretoken": csrf}
        body = urllib.parse.urlencode(form, doseq=True)
        connection.request("POST", "/parties/new/", body=body, headers={
            "Host": f"127.0.0.1:{proxy.port}", "Cookie": cookies, "Origin": proxy.url,
            "Referer": proxy.url + "/parties/new/",
            "Content-Type": "application/x-www-form-urlencoded",
            "X-Forwarded-For": f"203.0.113.{n + 1}", "Forwarded": f"for=198.51.100.{n}",
        })
        answer = connection.getresponse()
        answer.read()
        assert answer.status == 302, answer.status  # created
        connection.close()
    keys = redis.cli("--scan", "--pattern", "*party-create:*")
    assert any(key.endswith("party-create:127.0.0.3") for key in keys), keys
    assert not any("203.0.113" in key or "198.51.100" in key or key.endswith(":127.0.0.1")
                   for key in keys), keys
    count = next(k for k in keys if k.endswith("party-create:127.0.0.3"))
    assert redis.cli("GET", count) == ["3"]


def test_the_proxy_refuses_a_body_larger_than_its_address_takes_before_receiving_it(topology):
    """A body declared over the app's cap (a 32 MB party file at the import page, 1 MB
    elsewhere) is answered 413 with none of it sent: the proxy refused it on its length. One
    within the cap goes on to the app, which waits for the body it was promised."""

    def answer_to(path, length):
        with socket.create_connection(("127.0.0.1", topology.port), timeout=5) as connection:
            connection.sendall(
                f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{topology.port}\r\n"
                f"Content-Type: application/octet-stream\r\nContent-Length: {length}\r\n"
                f"\r\n".encode()
            )
            connection.settimeout(2)
            try:
                return connection.recv(200).split(b"\r\n")[0]
            except TimeoutError:
                return b"(waiting for the body)"

    assert answer_to("/parties/import/", 33 * 1024 * 1024) == b"HTTP/1.1 413 Payload Too Large"
    assert answer_to("/join/", 2 * 1024 * 1024) == b"HTTP/1.1 413 Payload Too Large"
    assert answer_to("/parties/import/", 20 * 1024 * 1024) == b"(waiting for the body)"
    assert answer_to("/join/", 1000) == b"(waiting for the body)"


def test_with_a_certificate_the_proxy_serves_https_and_sends_plain_http_there(
    pg, redis, tmp_path
):
    """TLS ends at the proxy: HTTPS with the certificate given, plain HTTP answered with a
    redirect to it, and the app sees the request as secure (X-Forwarded-Proto), so it sets
    its cookies Secure."""
    import ssl
    import subprocess

    key, crt = tmp_path / "key.pem", tmp_path / "crt.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-keyout", str(key), "-out", str(crt)],
                   check=True, capture_output=True, timeout=60)
    bundle = tmp_path / "site.pem"
    bundle.write_text(crt.read_text() + key.read_text())
    # Production as it is behind TLS: no DJANGO_INSECURE_HTTP.
    env = {k: v for k, v in proxied_env(pg, redis).items() if k != "DJANGO_INSECURE_HTTP"}
    servers = [proxied_daphne(env) for _ in SERVER_NAMES]
    proxy = None
    try:
        for server in servers:
            server.start()
        proxy = Proxy(servers, tls_cert=bundle).start()
        plain = http.client.HTTPConnection("127.0.0.1", proxy.port, timeout=10)
        plain.request("GET", "/join/", headers={"Host": "127.0.0.1"})
        answer = plain.getresponse()
        assert answer.status == 301
        assert answer.getheader("Location") == "https://127.0.0.1/join/"
        context = ssl.create_default_context(cafile=str(crt))
        context.check_hostname = False  # the name is an address here; the chain is checked
        secure = http.client.HTTPSConnection("127.0.0.1", proxy.https_port, timeout=10,
                                             context=context)
        secure.request("GET", "/join/", headers={"Host": "127.0.0.1"})
        answer = secure.getresponse()
        body = answer.read().decode()
        assert answer.status == 200, body[:300]
        assert "Type the code the host gave you" in body
        cookies = answer.headers.get_all("Set-Cookie")
        assert cookies and all("Secure" in c for c in cookies), cookies
        assert answer.getheader("Strict-Transport-Security")
    finally:
        if proxy is not None:
            proxy.stop()
        stop_started(servers)
