"""S6: one 400-player party's round close, from the last table's closing tap until every phone
shows its new seat (docs/performance.md). Run through bench.live:

    .venv/bin/python -m bench.live --scenario S6 --closes 5

The party has 100 tables; its 400 phones are what a room holds: each table's scorekeeper on the
table's page, the other players on their own player pages. Each phone here does what
static/parties/live.js does, by bench.phone's rules (pushes.py: what each push makes the page
do; fetch.py: what a resync and a tap send): it keeps one websocket, sends the heartbeat, and
on a push that asks for it refetches its page's live region (`GET <page>` with htmx's headers,
one fetch at a time, one more if asked meanwhile); when the page it fetched watches other
tables (a player who moved) it closes its socket and reconnects after the page's back-off
(~0.5 s), and refetches on reopening, as the page does. A round close's push that carries the
page's new seat (for its `data-view`) is shown at once, and the rest of the page refetched at a
random moment: after the push's `refetch_after`, within its `refetch_within` more (a player
who moved reconnects then instead, and refetches on reopening).

A close is played as the room plays it: the host starts the round (not in the first, started at
setup), rings the bell, every table scores a point and 99 of them tap their finishing miss,
and then the last table taps the miss that closes the round. The figure is, per close, the
time from that tap's *sending* to the moment the party's *last* phone has what it needs to show
its new seat (`p50_ms`... over the closes); `every_phone_*` is over all phones, and
`last_phone_from_answer` counts from the tap's answer instead. Both servers push before they
answer, so a phone can be told before the tapping phone hears its answer: counted from the
answer, the baseline's figure is below zero. The server's CPU time from the tap to the last
phone is read from /proc.

The baseline (bench/baseline.py) answers the same closing tap by sending each of the party's
phones a distinct small message (its seat), and its phones show that.

This module is also the scenario's generator, run in its own process on the generator's core:
    python -m bench.s6 PLAN.json
"""

import asyncio
import gc
import json
import random
import statistics
import subprocess
import sys
import time
import uuid

from bench.phone import (
    NEXT_SEAT,
    PING,
    PING_EVERY,
    PONG,
    PONG_WITHIN,
    RESYNC,
    LivePage,
    busy_wait,
    encode_form,
    fetch_headers,
    live_region,
    next_seat_delay,
    parse_answer,
    reconnect_delay,
    refetch_headers,
    socket_path,
    table_page,
    tap_answers,
    tap_form,
    tap_path,
)

now = time.monotonic
BUSY_MOST = 20  # busy answers one tap may meet before the bench gives it up
DROPPED_MOST = 5  # connections one tap may see dropped before the bench gives it up
TRIES_MOST = 3  # stale answers (and connections dropped past DROPPED_MOST) before it gives up


def pct(values, q):
    if not values:
        return None
    values = sorted(values)
    index = min(len(values) - 1, max(0, int(round(q / 100 * len(values) + 0.5)) - 1))
    return round(values[index], 2)


def summary(values_ms):
    return {
        "p50_ms": pct(values_ms, 50),
        "p95_ms": pct(values_ms, 95),
        "p99_ms": pct(values_ms, 99),
        "max_ms": round(max(values_ms), 2) if values_ms else None,
    }


# --- the orchestrator (in bench.live's process) ---------------------------------------------


def phones_of(party):
    """The room's phones: each table's page (its scorekeeper), then players' own pages."""
    pid = party["id"]
    phones = [
        {
            "path": table_page(pid, n),
            "cookie": party["table_cookies"][str(n)],
            "tables": [n],
            "view": f"table-{n}",
        }
        for n in range(1, party["tables"] + 1)
    ]
    players = len(party["phones"]) - len(phones)
    for phone in party["phones"][:players]:
        phones.append(
            {
                "path": f"/parties/{pid}/players/{phone['player']}/",
                "cookie": phone["cookie"],
                "tables": phone["tables"],
                "view": f"player-{phone['player']}",
            }
        )
    return phones


def s6(ctx, args):
    from bench import fixtures, live

    players = args.phones or 400
    closes = args.closes
    # A party plays 6 rounds a set: each app run gets a party of its own (warm-up close + closes).
    if closes + 1 > 6:
        raise SystemExit("S6: at most 5 measured closes a run (a set has 6 rounds)")
    parties = fixtures.make_parties(args.repeats, players, max_players=players)
    results = {"app": [], "baseline": []}
    for i in range(args.repeats):
        party = parties[i]
        for target in ("app", "baseline"):
            r = run(live, ctx, target, party, closes)
            log = {k: v for k, v in r.items() if k != "closes"}
            live.log(f"[S6 run {i + 1}/{args.repeats} {target}] " + json.dumps(log))
            for c in r["closes"]:
                live.log(f"    close {json.dumps(c)}")
            results[target].append(r)
    lines = {}
    for target, runs in results.items():
        measured = [c for r in runs for c in r["closes"] if c["measured"]]
        last = [c["last_phone_ms"] for c in measured if c["last_phone_ms"] is not None]
        line = {"scenario": "S6", "target": target, **summary(last)}
        line["last_phone_from_answer"] = summary(
            [c["last_phone_from_answer_ms"] for c in measured if c["last_phone_from_answer_ms"]]
        )
        for q in ("p50_ms", "p99_ms"):
            values = [c["every_phone"][q] for c in measured if c["every_phone"][q] is not None]
            line[f"every_phone_{q}"] = statistics.median(values) if values else None
        line["worst_closes_ms"] = sorted(last, reverse=True)[:5]
        line["closing_tap_ms"] = summary([c["tap_ms"] for c in measured])
        line["delivered"] = sum(c["shown"] for c in measured)
        line["expected"] = sum(c["phones"] for c in measured)
        line["delivered_pct"] = round(100 * line["delivered"] / max(1, line["expected"]), 4)
        line["stale_pages"] = sum(c["stale_pages"] for c in measured)
        line["refetches_per_close"] = statistics.median(c["refetches"] for c in measured)
        line["server_cpu_ms_per_close"] = summary([c["server_cpu_ms"] for c in measured])
        line["cpu_pct"] = statistics.median(r["cpu_pct"] for r in runs if r["cpu_pct"])
        line["rss_mb"] = max(r["rss_mb"] for r in runs)
        line["closes"] = len(measured)
        line["phones"] = players
        line["runs"] = len(runs)
        line["loadavg_1m"] = [r["loadavg_1m"] for r in runs]
        line["measures"] = (
            "closing tap sent -> the party's last phone has its new seat (ms), per close"
        )
        lines[target] = line
    live.add_ratio(lines)
    a = lines["app"]
    a["pass"] = (
        a["p99_ms"] is not None
        and a["p99_ms"] <= 300
        and (a["ratio_p99"] or 99) <= 4
        and a["delivered_pct"] == 100
    )
    for t in ("app", "baseline"):
        live.emit(lines[t])


def run(live, ctx, target, party, closes):
    import os

    server = live.Server(target, ctx["env"], 0)
    plan = {
        "target": target,
        "http": server.http,
        "ws": server.ws,
        "origin": f"http://{server.ws}",
        "party": party,
        "phones": phones_of(party),
        "closes": closes,
        "warm": 1,
        "server_pid": server.pid,
    }
    path = live.write_plan(plan)
    started = time.time()
    try:
        out = subprocess.run(  # noqa: S603 - our own fixed command line
            [live.TASKSET, "-c", live.GEN_CORE, live.PY, "-m", "bench.s6", path],
            cwd=live.ROOT,
            capture_output=True,
            text=True,
            timeout=60 + 30 * (closes + 1),
        )
    finally:
        ended = time.time()
        server.stop()
        os.unlink(path)
    if out.returncode != 0:
        raise RuntimeError(f"S6 generator failed:\n{out.stderr[-3000:]}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["cpu_pct"] = server.sampler.cpu_pct(started, ended)
    result["rss_mb"] = server.sampler.peak_rss_mb()
    result["loadavg_1m"] = round(os.getloadavg()[0], 2)
    errs = server.errors()
    if errs:
        live.log(f"  {target} server log ({server.log_path}):", *errs, sep="\n    ")
    return result


# --- the generator (its own process) --------------------------------------------------------


def server_cpu_s(pid):
    from bench.procstat import cpu_seconds

    try:
        return cpu_seconds(pid)
    except OSError:
        return 0.0


class Close:
    def __init__(self, index, measured, phones):
        self.index = index
        self.measured = measured
        self.sent = None
        self.answered = None
        self.shown = {}  # phone index -> when it had its new seat
        self.stale = 0
        self.everyone = asyncio.Event()
        self.phones = phones
        self.rounds = {}

    def show(self, phone, t, *, stale=False):
        if phone in self.shown:
            return
        if stale:
            self.stale += 1
            return
        self.shown[phone] = t
        if len(self.shown) == self.phones:
            self.everyone.set()


class Phone:
    """One phone as static/parties/live.js drives it: bench.phone's LivePage says what each push
    makes the page do; this is its asyncio shell (a `websockets` socket, a keep-alive HTTP
    connection, timers) and what S6 counts of it."""

    def __init__(self, gen, index, spec):
        from bench.rawhttp import Pool

        self.gen, self.index = gen, index
        self.path, self.cookie = spec["path"], spec["cookie"]
        self.page = LivePage(spec["view"])  # what live.js remembers between pushes
        self.tables = ",".join(str(t) for t in spec["tables"])
        self.round = None  # the round the page shows (its #live data-round)
        self.ws = None
        self.ever_opened = False
        self.pong_timer = None
        self.refetching = None
        self.wanted = False
        self.close = None  # the close this phone was told of and has not shown yet
        self.close_told = None
        host, port = gen.plan["http"].split(":")
        self.http = Pool(host, int(port))  # a browser keeps its own keep-alive connection

    async def open(self):
        from websockets.asyncio.client import connect

        # S6 opens every socket before it loads the pages (bench's setup, not the page's order):
        # the first socket names no round; a reopened one names the round its page shows.
        path = socket_path(self.gen.party["id"], self.tables, self.round, self.page.view)
        path += f"&phone={self.index}"  # the baseline's name for the phone; the app ignores it
        self.ws = await connect(
            f"ws://{self.gen.plan['ws']}{path}",
            additional_headers={"Cookie": self.cookie, "Origin": self.gen.origin},
            compression=None,
            max_size=None,
            ping_interval=None,  # the page's heartbeat is its own
            open_timeout=60,
            close_timeout=2,
        )
        if self.ever_opened:
            self.resync()  # the page refetches on every reopening
        self.ever_opened = True

    async def live(self):
        """Listen; reconnect as the page does when the socket closes (reconnect_delay)."""
        attempts = 0
        while not self.gen.stopping:
            if self.ws is not None:
                await self.listen()
            if self.gen.stopping:
                return
            await asyncio.sleep(reconnect_delay(attempts, random.random()))
            attempts += 1
            try:
                await self.open()
                attempts = 0
                self.gen.reconnects += 1
            except Exception as error:
                self.gen.errors[f"reconnect: {type(error).__name__}"[:80]] += 1

    async def listen(self):
        beat = asyncio.create_task(self.heartbeat(self.ws))
        try:
            async for message in self.ws:
                self.receive(message, now())
        except Exception as error:  # closed under us: the page reconnects
            self.gen.errors[f"socket: {type(error).__name__}"[:80]] += 1
        beat.cancel()
        self.pong_awaited(None)
        self.ws = None

    async def heartbeat(self, ws):
        """The page's PING every PING_EVERY seconds; no PONG within PONG_WITHIN, it closes the
        socket. The page's first ping is PING_EVERY after opening; S6's phones, all opened at
        once, start at random moments, as a room's phones (loaded one by one) do."""
        await asyncio.sleep(random.uniform(0, PING_EVERY))
        while True:
            try:
                await ws.send(PING)
            except Exception:
                return
            self.pong_awaited(ws)
            await asyncio.sleep(PING_EVERY)

    def pong_awaited(self, ws):
        """Wait PONG_WITHIN for `ws`'s pong (None: a pong came, or the socket closed)."""
        if self.pong_timer is not None:
            self.pong_timer.cancel()
            self.pong_timer = None
        if ws is not None:
            loop = asyncio.get_running_loop()
            self.pong_timer = loop.call_later(PONG_WITHIN, self.no_pong, ws)

    def no_pong(self, ws):
        self.pong_timer = None
        self.gen.errors["socket: no pong"] += 1
        asyncio.ensure_future(ws.close())  # the socket is dead: live() reconnects

    def receive(self, text, t):
        if text == PONG:
            return self.pong_awaited(None)
        message = json.loads(text)
        if message.get("type") == "seat":  # the baseline's own message: this phone's seat
            return self.shown_at(t)
        reaction = self.page.receive(message)
        if reaction.action == NEXT_SEAT:
            self.show_next_seat(message, reaction.piece, t)
        elif reaction.action == RESYNC:
            if message.get("type") == "round" and message.get("what") == "closed":
                self.close, self.close_told = self.gen.close, t  # shown once refetched
            self.resync()
        # TABLE: the page applies the table in place (resyncing if it is of another round):
        # S6's phones keep no tables, nothing of them is measured. BELL: the page refetches
        # 3 s later if a table still shows no bell; the tables' updates follow the bell, and
        # S6's phones leave that check out.

    def shown_at(self, t):
        close = self.gen.close
        if close is not None:
            close.show(self.index, t)

    def show_next_seat(self, message, piece, t):
        """The round's close carried this page's new seat: shown at once; the rest of the page
        is refetched at next_seat_delay (a player who moved reconnects instead, and the
        reopened socket refetches)."""
        self.shown_at(t)
        self.gen.seats_pushed += 1
        delay = next_seat_delay(message, random.random())
        asyncio.get_running_loop().call_later(delay, self.later, piece["tables"])

    def later(self, tables):
        if tables != self.tables:
            self.tables = tables
            if self.ws is not None:
                asyncio.ensure_future(self.ws.close())
        else:
            self.resync()

    def resync(self):
        self.wanted = True
        if self.refetching is None:
            self.refetching = asyncio.create_task(self.refetch_while_wanted())

    async def refetch_while_wanted(self):
        try:
            while self.wanted:
                self.wanted = False
                try:
                    await self.refetch()
                except Exception as error:
                    self.gen.errors[f"refetch: {type(error).__name__}"[:80]] += 1
        finally:
            self.refetching = None

    async def refetch(self):
        """htmx fetching the page's live region; a player who moved then watches its new table."""
        started = now()
        headers = {"Cookie": self.cookie, **refetch_headers(self.gen.http_origin, self.path)}
        status, body = await self.http.request("GET", self.path, headers)
        t = now()
        self.gen.refetches += 1
        if status != 200:
            self.gen.errors[f"refetch http {status}"] += 1
            return
        region = live_region(body.decode(errors="replace"))
        self.page.refetched(region)
        old_round, self.round = self.round, region.round if region else None
        self.refetched_close(started, t, old_round)
        tables = region.tables if region else self.tables
        if tables != self.tables:
            self.tables = tables
            if self.ws is not None:
                await self.ws.close()

    def refetched_close(self, started, t, old_round):
        """A refetch begun at `started` landed at `t`: the close it shows, if any."""
        close = self.close
        if close is not None and started >= self.close_told:
            self.close = None
            close.show(self.index, t, stale=self.round == old_round)
        current = self.gen.close
        if current is not None and started >= current.sent:
            # a phone that missed the close's push (its socket was reconnecting) shows its new
            # seat once a refetch (its reopened socket's) brings the next round
            if self.round != current.rounds.get(self.index):
                current.show(self.index, t)


class Generator:
    def __init__(self, plan):
        from collections import Counter

        from bench.rawhttp import Pool

        self.plan = plan
        self.party = plan["party"]
        self.origin = plan["origin"]
        self.http_origin = f"http://{plan['http']}"
        host, port = plan["http"].split(":")
        self.pool = Pool(host, int(port))
        self.errors = Counter()
        self.stopping = False
        self.close = None
        self.refetches = self.reconnects = self.seats_pushed = 0
        self.versions = {}

    def host_headers(self):
        # Not the page's: the host's buttons are plain form posts answered with a redirect
        # (bench.phone.form_headers). S6 posts them as a fetch wanting JSON, answered in JSON:
        # the host's page, which the redirect would fetch, is not what S6 measures.
        return {
            "Cookie": self.party["host_cookie"],
            "X-CSRFToken": self.party["csrf"],
            "Origin": self.origin,
            "Accept": "application/json",
        }

    async def host(self, what):
        for _attempt in range(3):
            try:
                status, _ = await self.pool.request(
                    "POST", f"/parties/{self.party['id']}/{what}/", self.host_headers()
                )
                break
            except (OSError, asyncio.IncompleteReadError) as error:
                self.errors[f"{what} resent: {type(error).__name__}"] += 1
        else:
            return
        if status != 200:
            self.errors[f"{what} http {status}"] += 1

    async def tap(self, table, outcome="miss", *, closing=False):
        """A quick-button roll at `table`; retried with the version a stale answer gives."""
        tap_id = uuid.uuid4()  # a tap sent again is the same tap: the server saves it once
        busy = dropped = tries = 0
        while tries < TRIES_MOST:
            try:
                answer = await self.send_tap(table, tap_id, outcome, closing)
            except (OSError, asyncio.IncompleteReadError) as error:
                # a keep-alive connection the server closed while idle: send it again, as the
                # page's outbox does
                self.errors[f"tap resent: {type(error).__name__}"] += 1
                dropped += 1
                if dropped > DROPPED_MOST:
                    tries += 1  # the first ones are no answer: the tries are for answers
                continue
            if answer.busy and busy < BUSY_MOST:
                # turned away unstarted (bunco_site/fast/gate.py): the page's outbox sends the
                # same tap again at its table's turn, after busy_wait
                self.errors["tap busy, sent again"] += 1
                busy += 1
                await asyncio.sleep(busy_wait(answer, random.random()))
                continue
            if not self.take_answer(table, answer):
                return
            tries += 1
        self.errors["tap stale thrice, or its connection dropped"] += 1

    async def send_tap(self, table, tap_id, outcome, closing):
        """Send the tap once, as the page's fetch() does: its Answer."""
        pid = self.party["id"]
        fields = tap_form(tap_id, self.versions.get(table, 0), outcome=outcome)
        if closing and self.plan["target"] == "baseline":
            fields["close"] = "1"  # not the page's: tells the baseline to send every phone its seat
        headers = {
            "Cookie": self.party["table_cookies"][str(table)],
            **fetch_headers(self.origin, self.party["csrf"], table_page(pid, table)),
        }
        status, data, answer_headers = await self.pool.request(
            "POST", tap_path(pid, table), headers, encode_form(fields).encode(), with_headers=True
        )
        return parse_answer(status, data, answer_headers)

    def take_answer(self, table, answer):
        """Take the tap's answer: whether it was stale (the scorekeeper enters it again, seen
        at the table's version the answer gives)."""
        one = tap_answers(answer, 1)[0]
        if one.version is not None:
            self.versions[table] = one.version
        if one.status == "stale":
            return True
        if one.status != "saved":
            self.errors[f"tap {answer.status} {one.status}"] += 1
        return False

    async def settle(self, idle_pct=25.0, window=0.5, longest=20.0):
        """Wait until the server is quiet (under `idle_pct` of a core over `window` seconds),
        as it is in a real party, where minutes pass between a round's start and its close:
        the round start's refetches (every phone at once) must not be counted in the close.
        Returns how long it took."""
        pid = self.plan["server_pid"]
        started = now()
        await asyncio.sleep(1.5)
        while now() - started < longest:
            cpu = server_cpu_s(pid)
            await asyncio.sleep(window)
            if (server_cpu_s(pid) - cpu) / window * 100 < idle_pct:
                break
        return round(now() - started, 2)

    async def finish(self, table, miss):
        await self.tap(table, "one")
        if miss:
            await self.tap(table, "miss")

    async def play_close(self, index, measured, first):
        tables = self.party["tables"]
        if not first:
            self.versions.clear()  # a new round: every table's version starts again
            await self.host("start")
            await asyncio.sleep(5.0)  # every phone fetches the started round, all at once
        await self.host("host/bell")
        await asyncio.sleep(1.0)
        # Each table scores a point and then misses: its turn ends after the bell, and the side
        # with the point wins (a 0-0 table would go to a roll-off). The last table only scores.
        taps = []
        for table in range(1, tables + 1):
            taps.append(asyncio.create_task(self.finish(table, table < tables)))
            await asyncio.sleep(0.02)
        await asyncio.gather(*taps)
        settled = await self.settle()
        close = self.close = Close(index, measured, len(self.phones))
        close.rounds = {p.index: p.round for p in self.phones}  # what each page shows now
        pid = self.plan["server_pid"]
        cpu0 = server_cpu_s(pid)
        refetches_before = self.refetches
        close.sent = now()
        await self.tap(tables, closing=True)
        close.answered = now()
        try:
            await asyncio.wait_for(close.everyone.wait(), 10)
        except TimeoutError:
            pass
        cpu1 = server_cpu_s(pid)
        last = max(close.shown.values()) if close.shown else None
        every = [(t - close.sent) * 1000 for t in close.shown.values()]
        refetches = self.refetches
        await asyncio.sleep(7.0)  # the pages refetch and moved players reconnect; all settles
        return {
            "close": index,
            "measured": measured,
            "settled_s": settled,
            "phones": len(self.phones),
            "shown": len(close.shown),
            "stale_pages": close.stale,
            "tap_ms": round((close.answered - close.sent) * 1000, 2),
            "last_phone_ms": round((last - close.sent) * 1000, 2) if last else None,
            "last_phone_from_answer_ms": round((last - close.answered) * 1000, 2) if last else None,
            "every_phone": summary(every),
            "server_cpu_ms": round((cpu1 - cpu0) * 1000, 1),
            "refetches": refetches - refetches_before,
            "refetches_after": self.refetches - refetches,
        }

    async def run(self):
        self.phones = [Phone(self, i, spec) for i, spec in enumerate(self.plan["phones"])]
        sem = asyncio.Semaphore(64)

        async def open_one(phone):
            async with sem:
                await phone.open()

        await asyncio.gather(*(open_one(p) for p in self.phones))
        gc.collect()
        gc.freeze()
        gc.disable()  # the generator's pauses would count as the server's (bench/README.md)
        lives = [asyncio.create_task(p.live()) for p in self.phones]
        if self.plan["target"] == "app":
            await asyncio.gather(*(p.refetch() for p in self.phones))  # each page as loaded
        await asyncio.sleep(1.0)
        closes = []
        total = self.plan["warm"] + self.plan["closes"]
        for index in range(total):
            measured = index >= self.plan["warm"]
            closes.append(await self.play_close(index, measured, first=index == 0))
        self.stopping = True
        await asyncio.gather(
            *(p.ws.close() for p in self.phones if p.ws is not None), return_exceptions=True
        )
        for task in lives:
            task.cancel()
        print(
            json.dumps(
                {
                    "closes": closes,
                    "reconnects": self.reconnects,
                    "seats_pushed": self.seats_pushed,
                    "errors": dict(self.errors),
                }
            ),
            flush=True,
        )


def main():
    plan = json.load(open(sys.argv[1]))
    asyncio.run(Generator(plan).run())


if __name__ == "__main__":
    main()
