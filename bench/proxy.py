"""S7: S1's load (N parties x 12 phones, a tap a second per party) in three topologies,
interleaved, with what each costs per tap:

    .venv/bin/python -m bench.live --scenario S7 --parties 100 [--duration 30 --repeats 3]

- `single`: one daphne process, no proxy (S1's topology);
- `sticky`: deploy/haproxy.cfg in front of two daphne processes, as production runs it (every
  request and socket of a party on one process, by a consistent hash of its id);
- `spread`: the same config with the party's hash replaced by round-robin for every request and
  socket (`spread_config`), so a party's phones and taps land on both processes.

Every daphne process is pinned to the server core (two processes share it, so the figures
compare CPU cost, not parallelism: this machine has two cores); the generator and haproxy share
the other. The figures per run (bench/README.md): tap -> phone latency, delivery, the CPU of
the daphne processes (summed), of haproxy, of the PostgreSQL backends serving the bench's
database, and Redis's, per tap and per delivered message; the database's commits and rows
written and Redis's publishes per tap. One JSON line per topology on stdout: medians over the
runs, every run's worst second, and for the proxied ones the p50 and the CPU per tap they add
to `single` (paired run by run).
"""

import json
import os
import statistics
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from bench import fixtures, live
from bench.haproxy import CONFIG, Proxy, log_routes
from bench.procstat import cpu_seconds, memory_kib
from bench.redis_server import RedisServer
from bench.servers import Daphne

TOPOLOGIES = ("single", "sticky", "spread")

# The two lines of deploy/haproxy.cfg's backend that make it party-sticky.
STICKY_LINES = ("    balance hash var(txn.party)\n", "    hash-type consistent\n")
ROUND_ROBIN = "    balance roundrobin\n"

# Targets (docs/performance.md, scale-out): what sticky routing may cost against one process.
MAX_CPU_PER_TAP_ADDED_PCT = 15
MAX_P50_ADDED_MS = 0.5


def spread_config(text):
    """deploy/haproxy.cfg without party stickiness: the backend balances every request and
    every socket round-robin (HAProxy balances each request anew, also over kept-alive
    connections). Everything else, the headers, timeouts, health checks and log, stays as
    production has it. Fails if the config no longer has the lines it replaces, rather than
    measuring a sticky config as `spread`."""
    for line in STICKY_LINES:
        if text.count(line) != 1:
            raise ValueError(f"deploy/haproxy.cfg does not have {line.strip()!r} once; "
                             "bench/proxy.py spread_config replaces it")
    balance, hash_type = STICKY_LINES
    return text.replace(balance, ROUND_ROBIN).replace(hash_type, "")


def write_configs():
    """{topology: the haproxy config file it runs}: production's (the benchmarked commit's with
    --app-ref, if it has one), and the spread variant in a temporary file (removed by the
    caller)."""
    config = fixtures.APP / "deploy" / "haproxy.cfg"
    if not config.exists():
        config = CONFIG
    spread = tempfile.NamedTemporaryFile(  # noqa: SIM115 - removed after the scenario
        "w", prefix="bench-haproxy-spread-", suffix=".cfg", delete=False
    )
    spread.write(spread_config(config.read_text()))
    spread.close()
    return {"sticky": str(config), "spread": spread.name}


# --- what a run uses, sampled -----------------------------------------------------------------


class Counters(threading.Thread):
    """Every `every` s, (wall time, {counter: value}) of cumulative counters: CPU seconds of
    each daphne process and of haproxy (/proc), and of the PostgreSQL backends serving the
    bench's database (/proc: PostgreSQL runs on this machine); that database's commits and rows
    inserted, updated or deleted (`pg_stat_database`, which backends report within about a
    second); Redis's PUBLISH calls, commands and CPU (`INFO`: the whole server, S7's own). Its
    own INFO call, one a sample, is taken off.
    Memory (RSS) of each daphne process, for the peak."""

    def __init__(self, daphnes, proxy, env, every=0.5):
        super().__init__(daemon=True)
        import psycopg
        import redis

        self.daphnes, self.proxy, self.every = daphnes, proxy, every
        self.database = env["DATABASE_URL"].rsplit("/", 1)[1]
        # As the superuser, from another database: the bench role's connection limit and its
        # database's commit count stay the servers' own.
        self.pg = psycopg.connect(f"{fixtures.PG}/postgres", autocommit=True)
        self.redis = redis.Redis.from_url(env["REDIS_URL"])
        self.backends = {}  # pid -> its CPU seconds when last seen (one that exits keeps it)
        self.samples = []
        self.peak_rss_kib = [0] * len(daphnes)
        self.done = threading.Event()

    def read(self):
        values = {}
        for i, pid in enumerate(self.daphnes):
            values[f"daphne{i}"] = cpu_seconds(pid)
            self.peak_rss_kib[i] = max(self.peak_rss_kib[i], memory_kib(pid))
        if self.proxy:
            values["proxy"] = cpu_seconds(self.proxy)
        row = self.pg.execute(
            "SELECT (SELECT array_agg(pid) FROM pg_stat_activity WHERE datname = %s), "
            "xact_commit, tup_inserted + tup_updated + tup_deleted "
            "FROM pg_stat_database WHERE datname = %s",
            (self.database, self.database),
        ).fetchone()
        for pid in row[0] or ():
            try:
                self.backends[pid] = cpu_seconds(pid)
            except OSError:
                pass  # exited since the query; its last reading stays
        values["pg_cpu"] = sum(self.backends.values())
        values["pg_commits"], values["pg_rows_written"] = row[1], row[2]
        info = self.redis.info("all")
        values["redis_publishes"] = info.get("cmdstat_publish", {}).get("calls", 0)
        values["redis_commands"] = info["total_commands_processed"] - len(self.samples)
        values["redis_cpu"] = info["used_cpu_sys"] + info["used_cpu_user"]
        return values

    def run(self):
        while not self.done.is_set():
            try:
                self.samples.append((time.time(), self.read()))
            except (FileNotFoundError, ProcessLookupError):
                return  # a server is gone: the run is over
            self.done.wait(self.every)

    def stop(self):
        self.done.set()
        self.join()
        self.pg.close()
        self.redis.close()

    def rates(self, start, end):
        """Each counter's growth per second over [start, end] (wall times), from the first
        and the last sample inside it."""
        inside = [s for s in self.samples if start <= s[0] <= end]
        if len(inside) < 2:
            return None
        (t0, first), (t1, last) = inside[0], inside[-1]
        return {key: (last[key] - first[key]) / (t1 - t0) for key in first}


# --- the topologies ---------------------------------------------------------------------------


class Topology:
    """What the generator talks to in one run of S7: one or two daphne processes on the server
    core, and for `sticky` and `spread` haproxy in front of them on the generator's core, the
    counters sampled. Answers as bench.live's Server does (`http`, `ws`, `figures`, `stop`,
    `errors`)."""

    def __init__(self, name, ctx, config, maxconn):
        self.name = name
        self.daphnes, self.proxy, self.counters = [], None, None
        self.log_paths = []
        proxied = name != "single"
        try:
            for _ in range(2 if proxied else 1):
                self.daphnes.append(self._daphne(ctx["env"], proxied).start())
            if proxied:
                proxy_log = self._log_path("haproxy")
                self.proxy = Proxy(self.daphnes, config=config, maxconn=maxconn,
                                   prefix=[live.TASKSET, "-c", live.GEN_CORE],
                                   log_path=proxy_log).start()
                self.http = f"127.0.0.1:{self.proxy.port}"
            else:
                self.http = f"127.0.0.1:{self.daphnes[0].port}"
            self.ws = self.http
            self.counters = Counters([d.pid for d in self.daphnes],
                                     self.proxy.pid if self.proxy else None, ctx["env"])
            self.counters.start()
        except BaseException:
            self.stop()
            raise

    def _log_path(self, what):
        with tempfile.NamedTemporaryFile(prefix=f"bench-{self.name}-{what}-", suffix=".log",
                                         delete=False) as f:
            self.log_paths.append(f.name)
            return f.name

    def _daphne(self, env, proxied):
        """A daphne process as production starts it: behind the proxy it trusts the proxy's
        headers (docker-compose.yml), alone it is S1's."""
        return Daphne(env, cwd=fixtures.APP, launcher=live.launcher(fixtures.APP),
                      options=["--proxy-headers"] if proxied else [],
                      prefix=[live.TASKSET, "-c", live.SERVER_CORE],
                      log_path=self._log_path("daphne"), own_group=True, ready_within=60,
                      name=f"{self.name} daphne")

    @property
    def log_path(self):
        return " ".join(self.log_paths)

    def stop(self):
        if self.counters:
            self.counters.stop()
        if self.proxy and self.proxy.process:
            self.proxy.stop()
        # Each process's graceful stop lingers (production's 3 s): stopped together.
        started = [d for d in self.daphnes if d.process is not None]
        with ThreadPoolExecutor(max(1, len(started))) as pool:
            list(pool.map(lambda d: d.stop(), started))

    def figures(self, start, end):
        """What the topology used over a measured phase (wall times), per second: `cpu_pct`
        is the daphne processes' together (% of one core), as S1's is the one process's."""
        rates = self.counters.rates(start, end) or {}
        daphnes = [rates.get(f"daphne{i}") for i in range(len(self.daphnes))]
        known = None not in daphnes
        return {
            "cpu_pct": round(100 * sum(daphnes), 1) if known else None,
            "cpu_pct_by_process": [round(100 * c, 1) for c in daphnes] if known else None,
            "rss_mb": round(sum(self.counters.peak_rss_kib) / 1024, 1),
            "per_s": rates,
        }

    def routing(self):
        """From the proxy's log (after the run): the parties whose requests or sockets went to
        more than one process, and the requests and sockets each process served."""
        if not self.proxy:
            return {}
        with open(self.proxy.log_path, errors="replace") as f:
            routes = log_routes(f.read())
        by_party, by_process = {}, {}
        for r in routes:
            by_process[r["server"]] = by_process.get(r["server"], 0) + 1
            if r["party"] != "-" and r["party"]:
                by_party.setdefault(r["party"], set()).add(r["server"])
        return {
            "parties_on_both": sum(len(s) > 1 for s in by_party.values()),
            "routed_by_process": by_process,
        }

    def errors(self):
        lines = []
        for daphne in self.daphnes:
            text = daphne.log_text()
            lines += [x for x in text.splitlines() if "Traceback" in x or "Error" in x][:5]
        return lines


# --- the scenario -----------------------------------------------------------------------------


def per_tap(line, duration):
    """A run's costs per tap and per delivered message, from its rates per second."""
    rates = line.pop("per_s")
    taps_per_s = line["taps"] / duration
    delivered_per_s = line["delivered"] / duration
    out = {}

    def each(key, rate, scale=1000, digits=3):
        known = rate is not None and taps_per_s > 0  # no tap sent: a failed run, no figure
        out[key] = round(scale * rate / taps_per_s, digits) if known else None

    daphne = [v for k, v in rates.items() if k.startswith("daphne")]
    server = sum(daphne) if daphne else None
    each("server_cpu_ms_per_tap", server)
    out["server_cpu_ms_per_message"] = (
        round(1000 * server / delivered_per_s, 4) if server is not None and delivered_per_s
        else None
    )
    each("proxy_cpu_ms_per_tap", rates.get("proxy"))
    each("pg_cpu_ms_per_tap", rates.get("pg_cpu"))
    each("pg_commits_per_tap", rates.get("pg_commits"), scale=1, digits=2)
    each("pg_rows_written_per_tap", rates.get("pg_rows_written"), scale=1, digits=2)
    each("redis_publishes_per_tap", rates.get("redis_publishes"), scale=1, digits=2)
    each("redis_commands_per_tap", rates.get("redis_commands"), scale=1, digits=2)
    each("redis_cpu_ms_per_tap", rates.get("redis_cpu"))
    return out


RUN_KEYS = (
    "p50_ms", "p95_ms", "p99_ms", "max_ms", "delivered", "expected", "taps", "taps_per_s",
    "cpu_pct", "cpu_pct_by_process", "rss_mb", "gen_lag_p99_ms", "served_http_p99_ms",
    "busy_answers", "tap_status", "seconds_over_100ms",
)
MEDIAN_KEYS = (
    "server_cpu_ms_per_tap", "server_cpu_ms_per_message", "proxy_cpu_ms_per_tap",
    "pg_cpu_ms_per_tap", "pg_commits_per_tap", "pg_rows_written_per_tap",
    "redis_publishes_per_tap", "redis_commands_per_tap", "redis_cpu_ms_per_tap",
    "gen_lag_p99_ms", "served_http_p99_ms",
)


def one_run(topology, ctx, parties, phases, configs, rewind_to, timeout):
    """One run of one topology from the round as it was set up (no rolls): in `spread` a tap
    that lands on the other process than its party's last one replays the round from its rows,
    so a round grown by earlier runs would cost later runs more."""
    rewind(rewind_to)
    maxconn = 12 * len(parties) + 2000  # every phone's socket, and the taps' connections
    started = {}

    def start():
        from django.db import connections

        # A backend reports its counts to pg_stat_database up to 10 s after going idle, and at
        # once as it exits: this process's connections closed now (its pool's too, which
        # close_all only gives them back to), its setup and rewind are counted before the run,
        # not inside it.
        connections.close_all()
        for connection in connections.all():
            if hasattr(connection, "close_pool"):
                connection.close_pool()
        started["topology"] = Topology(topology, ctx, configs.get(topology), maxconn)
        return started["topology"]

    line = live.run_load(topology, ctx, parties, phases, timeout=timeout, start_server=start)[0]
    run = {key: line.get(key) for key in RUN_KEYS}
    worst = line.get("worst_seconds_ms") or []
    run["worst_second_ms"] = worst[0] if worst else None
    run.update(per_tap(line, phases[-1]["duration"]))
    run.update(started["topology"].routing())
    run["generator"] = line["run"]
    run["loadavg_1m"] = line["loadavg_1m"]
    return run


def round_versions(parties):
    """{round id: its version} of the parties' playing rounds, as set up."""
    from parties.models import Round

    ids = [p["id"] for p in parties]
    return dict(Round.objects.filter(party_id__in=ids, status="playing")
                .values_list("id", "version"))


def rewind(versions):
    """Bench-only: take the rounds back to how they were set up (their rolls deleted, their
    versions restored), straight in the database, between runs with no server running."""
    from parties.models import Roll, Round

    Roll.objects.filter(round_id__in=list(versions)).delete()
    for round_id, version in versions.items():
        Round.objects.filter(pk=round_id).update(version=version)


def paired(runs, base, key, how):
    """`how(run's key, the same repeat's single run's key)` per repeat, where both exist."""
    return [
        how(r[key], b[key]) for r, b in zip(runs, base, strict=True)
        if r.get(key) is not None and b.get(key) is not None
    ]


def median(values, digits=3):
    values = [v for v in values if v is not None]
    return round(statistics.median(values), digits) if values else None


def summary(topology, runs, base, parties):
    line = {"scenario": "S7", "target": topology, "parties": parties, "phones": 12 * parties}
    for key in ("p50_ms", "p95_ms", "p99_ms", "max_ms", "taps_per_s", "cpu_pct", "rss_mb"):
        line[key] = median([r[key] for r in runs], 2)
    line["delivered"] = sum(r["delivered"] for r in runs)
    line["expected"] = sum(r["expected"] for r in runs)
    line["delivered_pct"] = round(100 * line["delivered"] / max(1, line["expected"]), 4)
    for key in MEDIAN_KEYS:
        line[key] = median([r.get(key) for r in runs], 4)
    # The project reports the worst, not the best: every run's worst second.
    line["worst_second_ms_by_run"] = [r["worst_second_ms"] for r in runs]
    line["seconds_over_100ms_by_run"] = [r["seconds_over_100ms"] for r in runs]
    line["server_cpu_ms_per_tap_by_run"] = [r["server_cpu_ms_per_tap"] for r in runs]
    line["cpu_pct_by_process_by_run"] = [r["cpu_pct_by_process"] for r in runs]
    if topology != "single":
        added = paired(runs, base, "p50_ms", lambda a, b: round(a - b, 2))
        line["p50_added_ms"] = median(added, 2)
        line["p50_added_ms_by_run"] = added
        cpu = paired(runs, base, "server_cpu_ms_per_tap",
                     lambda a, b: round(100 * (a / b - 1), 1) if b else None)
        line["server_cpu_per_tap_vs_single_pct"] = median(cpu, 1)
        line["server_cpu_per_tap_vs_single_pct_by_run"] = cpu
        line["parties_on_both_by_run"] = [r.get("parties_on_both") for r in runs]
    if topology == "sticky":
        line["pass"] = (
            line["p50_added_ms"] is not None
            and line["p50_added_ms"] <= MAX_P50_ADDED_MS
            and line["server_cpu_per_tap_vs_single_pct"] is not None
            and line["server_cpu_per_tap_vs_single_pct"] <= MAX_CPU_PER_TAP_ADDED_PCT
            and line["delivered_pct"] >= 99.99
        )
    line["runs"] = len(runs)
    line["loadavg_1m"] = [r["loadavg_1m"] for r in runs]
    return line


def s7(ctx, args):
    # A redis-server of the scenario's own (bench/redis_server.py, on a free port): Redis's
    # counters are then this scenario's alone, where the shared one counts everyone's traffic.
    redis = RedisServer().start()
    try:
        _s7({**ctx, "env": {**ctx["env"], "REDIS_URL": redis.url}}, args)
    finally:
        redis.close()


def _s7(ctx, args):
    n = args.parties or 100
    parties = fixtures.make_parties(n, 12)
    rewind_to = round_versions(parties)
    phases = [
        {"name": "warmup", "duration": args.warmup, "parties": n, "period": 1.0,
         "measure": False},
        {"name": "steady", "duration": args.duration, "parties": n, "period": 1.0},
    ]
    timeout = args.duration + args.warmup + 180
    configs = write_configs()
    results = {t: [] for t in TOPOLOGIES}
    try:
        for i in range(args.repeats):
            # Each repeat starts one topology later, so none always runs first (or after the
            # same neighbour) while the machine drifts.
            order = TOPOLOGIES[i % 3:] + TOPOLOGIES[:i % 3]
            for topology in order:
                run = one_run(topology, ctx, parties, phases, configs, rewind_to, timeout)
                live.log(f"[S7 run {i + 1}/{args.repeats} {topology}] " + json.dumps(run))
                results[topology].append(run)
    finally:
        os.unlink(configs["spread"])
    for topology in TOPOLOGIES:
        live.emit(summary(topology, results[topology], results["single"], n))
