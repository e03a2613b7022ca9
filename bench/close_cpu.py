"""The server's cost of a 400-player party's closing tap, alone: the last table's finishing
miss, taken as the lean tap path takes it (`parties.taps._in_worker`: the session's read,
`roll_record` with the round's close, its writes and commit, the rendering of every
phone's new seat, and the publishes to Redis), in this process on PostgreSQL, no HTTP and no
websockets. A quick A/B for the close (bench.live's S6 measures the whole path).

    .venv/bin/python -m bench.close_cpu [--closes 8] [--profile FILE]

Each close is played as S6 plays it, in-process: the host starts the round, rings the bell,
every table scores a point and misses, and the last table's miss (the one timed) closes the
round. The first close warms the process and is not counted; a party that finishes is followed
by a fresh one. The collector runs as the server's (bunco_site.fast.server_tuning.gc_policy).

Prints one JSON line: per closing tap, CPU (user + system, every thread of this process: the
publishes run on the loop's thread), wall time, and CPU of the PostgreSQL processes serving
the database (in 10 ms ticks), in ms, worst and median, each close's figures, and the 1-minute
load average. With `--profile FILE`, the measured closing taps run under cProfile (which slows
them: its figures are not the ones to report) and its statistics are written to FILE, with the
top functions printed to stderr.
"""

import argparse
import asyncio
import cProfile
import json
import os
import pstats
import statistics
import sys
import threading
import time
import uuid

from bench import fixtures
from bench.servers import prepare
from bench.tap_cpu import _database_cpu

PLAYERS = 400


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--closes", type=int, default=8, help="measured closes (after 1 warm)")
    parser.add_argument("--profile", help="write cProfile statistics of the closing taps here")
    args = parser.parse_args()
    os.environ.setdefault("BENCH_REDIS_URL", "redis://127.0.0.1:6379/7")
    database = fixtures.create_database()
    try:
        env = fixtures.server_env(database)
        prepare(env, static=False)  # migrations
        fixtures.setup_django(env)
        from bunco_site.fast.server_tuning import gc_policy

        gc_policy.apply()  # as the server runs: no automatic full collections
        print(json.dumps(measure(args.closes, args.profile)), flush=True)
    finally:
        from django.db import connections

        connections.close_all()
        database.drop()


class Room:
    """One 400-player party played in-process through the tap's own entry."""

    def __init__(self, loop):
        self.loop = loop
        self.entry = fixtures.make_parties(1, PLAYERS)[0]
        self.keys = {
            int(n): cookie.split(";")[0].removeprefix("sessionid=")
            for n, cookie in self.entry["table_cookies"].items()
        }
        self.started = True  # make_parties starts round 1

    @property
    def party(self):
        from parties.models import Party

        return Party.objects.get(pk=self.entry["id"])

    def finished(self):
        return self.party.status == "finished"

    def tap(self, number, outcome):
        from parties.taps import _in_worker, tap_fields

        form = {"tap_id": str(uuid.uuid4()), "seen": str(self.versions[number]),
                "outcome": outcome}
        (_status, answer), _outbox = _in_worker(
            self.loop, self.entry["id"], number, tap_fields(form), None, self.keys[number], "en"
        )
        assert answer["status"] == "saved", answer
        self.versions[number] = answer["version"]

    def ready_to_close(self):
        """Everything of a round but its closing tap."""
        from parties.services.party import party_resume
        from parties.services.round import bell_ring, round_start

        party = self.party
        if party.status == "break":
            party_resume(party=party)
        if not self.started:
            round_start(party=self.party)
        self.started = False
        bell_ring(party=self.party, by="host")
        self.versions = self._versions()
        last = max(self.keys)
        for number in sorted(self.keys):
            self.tap(number, "one")
            if number != last:
                self.tap(number, "miss")
        return lambda: self.tap(last, "miss")

    def _versions(self):
        fixtures.refresh_versions([self.entry])
        return {int(n): v for n, v in self.entry["versions"].items()}


def measure(closes, profile_to=None):
    from django.db import connections

    loop = asyncio.new_event_loop()  # the server's loop, on which the pushes are sent
    threading.Thread(target=loop.run_forever, daemon=True).start()
    profiler = cProfile.Profile() if profile_to else None
    room = Room(loop)
    cpu, wall, db = [], [], []
    for i in range(closes + 1):
        if room.finished():
            room = Room(loop)
        close = room.ready_to_close()
        connections.close_all()
        c0, w0, d0 = time.process_time(), time.perf_counter(), _database_cpu()
        if profiler and i:
            profiler.runcall(close)
        else:
            close()
        c1, w1, d1 = time.process_time(), time.perf_counter(), _database_cpu()
        if i == 0:
            continue  # warm: template loading, the pool, the interpreter
        cpu.append((c1 - c0) * 1000)
        wall.append((w1 - w0) * 1000)
        db.append((d1 - d0) * 1000)
    if profiler:
        profiler.dump_stats(profile_to)
        stats = pstats.Stats(profile_to, stream=sys.stderr)
        stats.sort_stats("cumulative").print_stats(40)
        stats.sort_stats("tottime").print_stats(25)
    return {
        "figure": "closing tap, 400 players, in-process",
        "closes": closes,
        "profiled": bool(profiler),
        "cpu_ms": _spread(cpu),
        "wall_ms": _spread(wall),
        "db_cpu_ms": _spread(db),
        "loadavg_1m": os.getloadavg()[0],
    }


def _spread(values):
    return {
        "worst": round(max(values), 1),
        "median": round(statistics.median(values), 1),
        "each": [round(v, 1) for v in values],
    }


if __name__ == "__main__":
    main()
