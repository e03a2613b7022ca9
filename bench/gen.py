"""The open-loop load generator, run as its own process (pinned to its own core by bench.live).

It reads a plan (JSON file: the target's addresses, the parties with their cookies and phones,
and the phases), connects every phone as a plain `websockets` client, then fires taps on a fixed
schedule without waiting for answers. Latency is a phone's receipt time minus the tap's
*scheduled* time, so any queueing anywhere (generator included) counts against the target.
Prints one JSON object per measured phase on stdout.

    python -m bench.gen PLAN.json         (taps and bells)
    python -m bench.gen PLAN.json --idle  (S5: connect phones, report, wait for a line on stdin)
"""

import asyncio
import gc
import json
import random
import sys
import time
import uuid
from collections import Counter, defaultdict, deque

from websockets.asyncio.client import connect

from bench.phone import (
    BUSY,
    MAX_AT_ONCE,
    OFFLINE,
    PENDING,
    PING,
    PING_EVERY,
    PONG,
    STALE,
    Queued,
    batch,
    busy_wait,
    fetch_headers,
    offline_wait,
    outcome,
    parse_answer,
    request_body,
    socket_path,
    table_page,
    tap_answers,
    tap_form,
    tap_path,
)
from bench.rawhttp import Pool

now = time.monotonic
WINDOW_S = 5  # the phase's latency is also reported per slice of this many seconds (recovery)


def pct(values, q):
    if not values:
        return None
    values = sorted(values)
    index = min(len(values) - 1, max(0, int(round(q / 100 * len(values) + 0.5)) - 1))
    return round(values[index] * 1000, 2)


def summary(values):
    return {
        "p50_ms": pct(values, 50),
        "p95_ms": pct(values, 95),
        "p99_ms": pct(values, 99),
        "max_ms": round(max(values) * 1000, 2) if values else None,
    }


class Phase:
    def __init__(self, spec):
        self.name = spec["name"]
        self.measure = spec.get("measure", True)
        self.latencies = []  # tap -> phone
        self.worst_by_second = defaultdict(float)  # the second a tap was due -> its worst
        self.by_window = defaultdict(list)  # the WINDOW_S slice a tap was due in -> latencies
        self.http = []  # tap's scheduled time -> HTTP answer
        self.served = []  # the sending that was answered (not busy) -> its answer
        self.lag = []  # scheduled -> actually written
        self.delivered = 0
        self.expected = 0
        self.taps = 0
        self.statuses = Counter()
        self.bells = []  # per bell: latency to each phone
        self.bell_expected = 0
        self.duration = spec["duration"]
        self.busy = 0  # busy answers (503), each attempt
        self.sent_together = 0  # taps answered in a request that carried more than one
        self.retried = 0  # taps that had one or more


class Generator:
    def __init__(self, plan):
        self.plan = plan
        self.parties = plan["parties"]
        self.origin = plan["origin"]
        host, port = plan["http"].split(":")
        self.pool = Pool(host, int(port))
        self.sent = {}  # (party, table, version) -> (scheduled time, phase)
        self.watchers = Counter()  # (party, table) -> phones that show it
        self.bell_log = defaultdict(list)  # party -> [(scheduled time, phase, latencies)]
        self.versions = {}
        self.held = {}  # (party, table) -> its unanswered taps, in order (the page's outbox)
        self.closed_early = 0
        self.unmatched = 0
        self.extra = 0
        self.pings = self.pongs = 0
        self.errors = Counter()
        self.stopping = False
        self.msg_bytes = self.msg_count = 0
        self.table_bytes = self.table_count = 0

    # --- phones -------------------------------------------------------------------------------
    async def open_phone(self, party, phone):
        tables = ",".join(str(t) for t in phone["tables"])
        uri = f"ws://{self.plan['ws']}" + socket_path(party["id"], tables)
        return await connect(
            uri,
            additional_headers={"Cookie": phone["cookie"], "Origin": self.origin},
            compression=None,
            max_size=None,
            ping_interval=None,
            open_timeout=60,
            close_timeout=2,
        )

    async def connect_all(self, items, concurrency=64):
        sem = asyncio.Semaphore(concurrency)
        sockets = []

        async def one(party, phone):
            async with sem:
                try:
                    ws = await self.open_phone(party, phone)
                except Exception as error:  # counted: a phone that never connects gets nothing
                    self.errors[f"connect: {type(error).__name__}: {error}"[:120]] += 1
                    return
                sockets.append((party, phone, ws))

        await asyncio.gather(*(one(p, ph) for p, ph in items))
        return sockets

    async def listen(self, party, phone, ws):
        pid = party["id"]
        seen = defaultdict(int)  # table -> highest version this phone has shown
        bells = 0
        try:
            async for message in ws:
                t = now()
                if message == PONG:
                    self.pongs += 1
                    continue
                self.msg_bytes += len(message)
                self.msg_count += 1
                data = json.loads(message)
                kind = data.get("type")
                if kind == "table":
                    self.table_bytes += len(message)
                    self.table_count += 1
                    table, version = data["table"], data["version"]
                    if version <= seen[table]:
                        self.extra += 1  # the same version again (the bell re-sends tables)
                        continue
                    # A table's update shows every tap up to its version: the taps an outbox
                    # sent together (one request, one update) are each delivered by it.
                    shown = range(max(seen[table] + 1, version - MAX_AT_ONCE + 1), version + 1)
                    seen[table] = version
                    hits = [self.sent.get((pid, table, v)) for v in shown]
                    if hits[-1] is None:
                        self.unmatched += 1
                        continue
                    for hit in hits:
                        if hit is not None:
                            self.delivered(hit, t)
                elif kind == "bell":
                    log = self.bell_log[pid]
                    if bells < len(log):
                        sched, phase, lat = log[bells]
                        lat.append(t - sched)
                    else:
                        self.unmatched += 1
                    bells += 1
        except Exception as error:  # a socket that dies mid-run is counted, not hidden
            if not self.stopping:
                self.errors[f"phone: {type(error).__name__}"] += 1
        if not self.stopping:
            self.closed_early += 1

    def delivered(self, hit, t):
        sched, phase = hit
        if not phase.measure:
            return
        phase.delivered += 1
        phase.latencies.append(t - sched)
        second = int(sched)
        phase.worst_by_second[second] = max(phase.worst_by_second[second], t - sched)
        phase.by_window[int((sched - phase.start) // WINDOW_S)].append(t - sched)

    async def heartbeat(self, ws):
        """The page's heartbeat (static/parties/live.js): "ping" every 15 s, the server says
        "pong". Phones start at random moments, as a room's phones do."""
        await asyncio.sleep(random.uniform(0, PING_EVERY))
        while not self.stopping:
            try:
                await ws.send(PING)
            except Exception:  # a closed socket is counted by its listener
                return
            self.pings += 1
            await asyncio.sleep(PING_EVERY)

    # --- taps and bells ----------------------------------------------------------------------
    async def tap(self, party, table, sched, phase):
        """A tap as the page's outbox sends it (bench.phone, from static/parties/table.js): a
        table's taps in order, one request at a time. Sent at its scheduled time unless an
        earlier tap of its table is still unanswered; then it waits behind that one, and the
        taps waiting go together in the next request (bench.phone.batch). A request the server
        turns away busy (503) is sent again, same tap ids, after the wait the answer asks (its
        table's turn in the server's line), stretched at random; one that fails on the network
        (or whose answer is lost), after the page's offline back-off. Until the server takes
        it."""
        pid = party["id"]
        key = (pid, table)
        seen = self.versions[key]
        self.versions[key] = seen + 1
        if phase.measure:
            phase.taps += 1
            phase.expected += self.watchers[key]
        self.sent[(pid, table, seen + 1)] = (sched, phase)
        fields = tap_form(uuid.uuid4(), seen, outcome="miss")
        item = Queued(fields, tap_path(pid, table), context=(sched, phase))
        queue = self.held.get(key)
        if queue is not None:
            queue.append(item)
            return
        queue = self.held[key] = deque([item])
        offline_in_a_row = 0
        while queue:
            carried = batch(queue)
            answer, taken = await self.send_tap(party, table, carried)
            if answer is None or answer.lost:  # the page's outbox goes "offline"
                await asyncio.sleep(offline_wait(offline_in_a_row))
                offline_in_a_row += 1
                continue
            offline_in_a_row = 0
            if answer.busy:  # the table's turn
                await asyncio.sleep(busy_wait(answer, random.random()))
            for _ in range(taken):
                queue.popleft()
        del self.held[key]

    async def send_tap(self, party, table, carried):
        """Send a table's waiting taps once, in one request as the page does: (the server's
        Answer, or None if the network failed; how many of the taps it answered). Taps sent
        back (busy, or offline) are marked so, as the page's outbox marks them."""
        pid = party["id"]
        sched, phase = carried[0].context
        headers = {
            "Cookie": party["table_cookies"][str(table)],
            **fetch_headers(self.origin, party["csrf"], table_page(pid, table)),
        }
        sent = now()
        first = carried[0].state == PENDING  # its first sending
        try:
            status, data, answer_headers = await self.pool.request(
                "POST", carried[0].url, headers, request_body(carried), with_headers=True
            )
        except Exception as error:  # the page's outbox goes "offline" and sends it again
            phase.statuses[f"error {type(error).__name__} (sent again)"] += 1
            _sent_back(carried, OFFLINE)
            return None, 0
        done = now()
        if first and phase.measure:  # how late the generator fired it (not a resend's wait)
            phase.lag.append(sent - sched)
        answer = parse_answer(status, data, answer_headers)
        if answer.lost:  # a 5xx without JSON: the page's outbox goes "offline" too
            phase.statuses[f"http {status} (sent again)"] += 1
            _sent_back(carried, OFFLINE)
            return answer, 0
        if answer.busy:
            phase.busy += 1
            phase.retried += first
            _sent_back(carried, BUSY)
            return answer, 0
        return answer, self.answered(pid, table, carried, answer, done - sent, done)

    def answered(self, pid, table, carried, answer, served, done):
        """Count the taps `answer` answered (taken, or refused and resynced), and how many:
        the answers stop at the first tap the server did not simply take. `served`: the
        request's time to its answer; `done`: when it came."""
        answers = tap_answers(answer, len(carried))
        for one, item in zip(answers, carried, strict=False):
            one_sched, one_phase = item.context
            if one_phase.measure:
                one_phase.statuses[one.status or f"http {one.http}"] += 1
                one_phase.http.append(done - one_sched)
                one_phase.served.append(served)
            if outcome(one) == STALE:  # resync as a phone does: the next tap uses the true version
                self.versions[(pid, table)] = one.version
        _sched, phase = carried[0].context
        if len(carried) > 1 and phase.measure:
            phase.sent_together += len(answers)
        return len(answers)

    async def ring(self, party, sched, phase):
        pid = party["id"]
        latencies = []
        self.bell_log[pid].append((sched, phase, latencies))
        if phase.measure:
            phase.bells.append(latencies)
            phase.bell_expected += self.phones_of[pid]
        headers = {
            "Cookie": party["host_cookie"],
            "X-CSRFToken": party["csrf"],
            "Accept": "application/json",
        }
        try:
            status, data = await self.pool.request("POST", f"/parties/{pid}/host/bell/", headers)
            phase.statuses[f"bell {status}"] += 1
        except Exception as error:
            phase.statuses[f"bell error {type(error).__name__}"] += 1
        rewind = self.plan.get("rewind_dsn")
        if rewind:
            await asyncio.sleep(self.plan.get("rewind_after", 0.3))
            await asyncio.to_thread(rewind_bell, rewind, pid)

    async def party_loop(self, index, party, start, phases):
        tables = party["tables"]
        tasks = set()
        k = index
        t0 = start
        for phase, spec in phases:
            end = t0 + spec["duration"]
            if index < spec["parties"]:
                period = spec["period"]
                t = t0 + (index / max(1, spec["parties"])) * period
                while t < end:
                    delay = t - now()
                    if delay > 0:
                        await asyncio.sleep(delay)
                    table = k % tables + 1
                    k += 1
                    task = asyncio.create_task(self.tap(party, table, t, phase))
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)
                    t += period
            t0 = end
        if tasks:
            await asyncio.wait(tasks, timeout=30)

    async def bell_loop(self, party, start, phases):
        bell = self.plan["bell"]
        t0 = start
        tasks = []
        for phase, spec in phases:
            end = t0 + spec["duration"]
            t = t0 + bell["first"]
            while t < end:
                delay = t - now()
                if delay > 0:
                    await asyncio.sleep(delay)
                tasks.append(asyncio.create_task(self.ring(party, t, phase)))
                t += bell["period"]
            t0 = end
        if tasks:
            await asyncio.wait(tasks, timeout=30)

    # --- runs ---------------------------------------------------------------------------------
    def phones(self):
        items = []
        self.phones_of = Counter()
        for party in self.parties:
            for phone in party["phones"]:
                items.append((party, phone))
                self.phones_of[party["id"]] += 1
                for table in phone["tables"]:
                    self.watchers[(party["id"], table)] += 1
        return items

    async def run(self):
        for party in self.parties:
            for table, version in party["versions"].items():
                self.versions[(party["id"], int(table))] = version
        started = now()
        sockets = await self.connect_all(self.phones())
        connect_s = now() - started
        # The generator's own pauses would count as the server's latency (a phone's receipt is
        # stamped late): collections over thousands of sockets were seen as this core busy
        # while the server sat idle. What is set up stays; the run's garbage is freed by
        # reference counting.
        gc.collect()
        gc.freeze()
        gc.disable()
        listeners = [asyncio.create_task(self.listen(p, ph, ws)) for p, ph, ws in sockets]
        listeners += [asyncio.create_task(self.heartbeat(ws)) for _p, _ph, ws in sockets]
        phases = [(Phase(spec), spec) for spec in self.plan["phases"]]
        start = now() + 1.0
        wall = time.time() + (start - now())
        t0 = start
        for phase, spec in phases:
            phase.wall = (wall, wall + spec["duration"])
            wall += spec["duration"]
            phase.start = t0
            t0 += spec["duration"]
        loops = [self.party_loop(i, party, start, phases) for i, party in enumerate(self.parties)]
        if self.plan.get("bell"):
            loops += [self.bell_loop(party, start, phases) for party in self.parties]
        await asyncio.gather(*loops)
        await asyncio.sleep(self.plan.get("drain", 3.0))  # late deliveries still count
        self.stopping = True
        await asyncio.gather(*(ws.close() for _p, _ph, ws in sockets), return_exceptions=True)
        for task in listeners:
            task.cancel()
        self.pool.close()
        for phase, spec in phases:
            if not phase.measure:
                continue
            bell_last = [max(lat) for lat in phase.bells if lat]
            bell_all = [x for lat in phase.bells for x in lat]
            out = {
                "phase": phase.name,
                "parties": spec["parties"],
                "wall": phase.wall,
                "msg_bytes": round(self.msg_bytes / max(1, self.msg_count)),
                "table_msg_bytes": round(self.table_bytes / max(1, self.table_count)),
                **summary(phase.latencies),
                "delivered": phase.delivered,
                "expected": phase.expected,
                "taps": phase.taps,
                "taps_per_s": round(phase.taps / phase.duration, 1),
                "tap_status": dict(phase.statuses),
                "busy_answers": phase.busy,
                "taps_sent_again": phase.retried,
                "taps_sent_together": phase.sent_together,
                "http_p99_ms": pct(phase.http, 99),
                # the server's own answer time for the taps it took (a busy answer excluded)
                "served_http_p99_ms": pct(phase.served, 99),
                "gen_lag_p99_ms": pct(phase.lag, 99),
                # where a tail comes from: a few bad seconds (a stall) or all of them (load)
                "worst_seconds_ms": sorted(
                    (round(v * 1000) for v in phase.worst_by_second.values()), reverse=True
                )[:5],
                # when, on the machine's monotonic clock (to line up with other processes)
                "worst_seconds_at": sorted(
                    phase.worst_by_second, key=phase.worst_by_second.get, reverse=True
                )[:5],
                "seconds_over_100ms": sum(v > 0.1 for v in phase.worst_by_second.values()),
                # by when the taps were due: [seconds into the phase, p50, p99, delivered]
                "by_window": [
                    [k * WINDOW_S, pct(v, 50), pct(v, 99), len(v)]
                    for k, v in sorted(phase.by_window.items())
                ],
            }
            if phase.bells:
                out["bell"] = {
                    "bells": len(phase.bells),
                    "last_phone": summary(bell_last),
                    "every_phone": summary(bell_all),
                    "delivered": len(bell_all),
                    "expected": phase.bell_expected,
                }
            print(json.dumps(out), flush=True)
        print(
            json.dumps(
                {
                    "phase": "_run",
                    "phones": len(sockets),
                    "connect_s": round(connect_s, 2),
                    "closed_early": self.closed_early,
                    "unmatched": self.unmatched,
                    "extra": self.extra,
                    "pings": self.pings,
                    "pongs": self.pongs,
                    "errors": dict(self.errors),
                    "http_conns": self.pool.open,
                    # sent again on a new connection: the server had closed the idle one
                    "resent_on_closed": self.pool.resent_on_closed,
                }
            ),
            flush=True,
        )

    async def idle(self):
        """S5: connect `warm` phones, report, then the rest, report; hold them until told."""
        items = self.phones()
        warm = self.plan.get("warm", 20)
        first = await self.connect_all(items[:warm])
        print(json.dumps({"phase": "warm", "phones": len(first)}), flush=True)
        await asyncio.to_thread(sys.stdin.readline)
        rest = await self.connect_all(items[warm:])
        print(
            json.dumps(
                {"phase": "ready", "phones": len(first) + len(rest), "errors": dict(self.errors)}
            ),
            flush=True,
        )
        await asyncio.to_thread(sys.stdin.readline)
        self.stopping = True
        await asyncio.gather(*(ws.close() for _p, _ph, ws in first + rest), return_exceptions=True)


def _sent_back(carried, state):
    for item in carried:
        item.state = state


def rewind_bell(dsn, party_id):
    """S3 only: take the bell back out of the round (a bench-only rewind straight in the
    database), so the same 400-phone party can ring again; the version bump makes the server
    replay the round from its rows."""
    import psycopg

    with psycopg.connect(dsn, autocommit=False) as conn:
        conn.execute(
            "DELETE FROM parties_roundbell WHERE round_id IN "
            "(SELECT id FROM parties_round WHERE party_id = %s AND status = 'playing')",
            (party_id,),
        )
        conn.execute(
            "UPDATE parties_round SET bell_at = NULL, version = version + 1 "
            "WHERE party_id = %s AND status = 'playing'",
            (party_id,),
        )


def main():
    plan = json.load(open(sys.argv[1]))
    generator = Generator(plan)
    if "--idle" in sys.argv:
        asyncio.run(generator.idle())
    else:
        asyncio.run(generator.run())


if __name__ == "__main__":
    main()
