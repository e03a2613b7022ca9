"""Run a live-path scenario of docs/performance.md against the app and the raw `websockets`
baseline, interleaved in one session, and print one JSON line per target.

    .venv/bin/python -m bench.live --scenario S1 --duration 60

Each run starts its server afresh on core 0 (`taskset`), and the load generator (bench.gen)
in its own process on core 1. The app runs in the production topology (DEBUG off, PostgreSQL,
Redis channel layer) against a database this command creates and drops; or, with
`--topology party-server`, as `manage.py party_server` runs it (one process, SQLite, the
in-memory channel layer) in a data folder this command creates and removes. Per-run lines go to
stderr; the final lines (medians over the repeats) go to stdout. See bench/README.md.
"""

import argparse
import contextlib
import json
import math
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import fixtures, procstat, speed
from bench.procstat import Sampler, memory_kib
from bench.servers import Daphne, PartyServer, ServerProcess, free_port, prepare

ROOT = fixtures.ROOT
PY = sys.executable
SERVER_CORE, GEN_CORE = "0", "1"
TASKSET = shutil.which("taskset") or "/usr/bin/taskset"
TOPOLOGIES = ("production", "party-server")  # the app's (--topology): fixtures.TOPOLOGY


def log(*parts, sep=" "):
    print(*parts, sep=sep, file=sys.stderr, flush=True)


def launcher(app):
    """The module that starts the app's server: its launcher (daphne with the server patches,
    as production runs it), or daphne itself for a commit from before the launcher (--app-ref),
    whose ASGI module installed the patches on import."""
    return "bunco_site.serve" if (Path(app) / "bunco_site" / "serve.py").exists() else "daphne"


def app_server(env, started_as):
    """The app in the session's topology (bench/servers.py): daphne as production runs it, or
    the party server (`manage.py party_server`, which runs daphne in a child process)."""
    if fixtures.TOPOLOGY == "party-server":
        return PartyServer(env, cwd=fixtures.APP, **started_as)
    return Daphne(env, cwd=fixtures.APP, launcher=launcher(fixtures.APP), **started_as)


class Server:
    """One server process on the server core (`taskset`, in a process group of its own), its
    CPU time and memory sampled: the app under daphne (bench/servers.py, as the tests start
    it) in the session's topology, or the baseline. For the party server, the process sampled
    is its daphne child; the command's own process, which only waits, is on the same core, and
    its memory is reported beside (`launcher_rss_mb`)."""

    def __init__(self, target, env, html_bytes):
        self.target = target
        with tempfile.NamedTemporaryFile(prefix=f"bench-{target}-", suffix=".log",
                                         delete=False) as log:
            self.log_path = log.name
        started_as = {"prefix": [TASKSET, "-c", SERVER_CORE], "log_path": self.log_path,
                      "own_group": True, "ready_within": 60, "name": f"{target} server"}
        self.launcher_rss_mb = None
        if target == "app":
            self.process = app_server(env, started_as)
            self.http = self.ws = f"127.0.0.1:{self.process.port}"
        else:
            port = free_port()
            while True:  # the baseline's websockets listen on port + 1
                with socket.socket() as s:
                    try:
                        s.bind(("127.0.0.1", port + 1))
                        break
                    except OSError:
                        port = free_port()
            self.http, self.ws = f"127.0.0.1:{port}", f"127.0.0.1:{port + 1}"
            command = [PY, "-m", "bench.baseline", "--port", port, "--html-bytes", html_bytes]
            self.process = ServerProcess(command, env, port, cwd=ROOT, **started_as)
        self.process.start()
        self.sampler = Sampler(self.pid)
        self.sampler.start()

    @property
    def pid(self):
        """The server's own process (taskset execs it: the same pid)."""
        return self.process.pid

    def stop(self):
        self.sampler.stop()
        launcher = getattr(self.process, "launcher_pid", None)
        if launcher:  # idle since the start: its memory now is its memory throughout
            self.launcher_rss_mb = round(memory_kib(launcher) / 1024, 1)
        self.process.stop()

    def figures(self, start, end):
        """What the server used over a measured phase (wall times): CPU, % of one core, and
        the run's peak memory (and the party server's launcher's, beside)."""
        figures = {"cpu_pct": self.sampler.cpu_pct(start, end),
                   "rss_mb": self.sampler.peak_rss_mb()}
        if self.launcher_rss_mb is not None:
            figures["launcher_rss_mb"] = self.launcher_rss_mb
        return figures

    def errors(self):
        text = self.process.log_text()
        lines = [line for line in text.splitlines() if "Traceback" in line or "Error" in line]
        return lines[:5]


def gen_cmd(plan_path, *extra):
    return [TASKSET, "-c", GEN_CORE, PY, "-m", "bench.gen", plan_path, *extra]


def write_plan(plan):
    f = tempfile.NamedTemporaryFile("w", prefix="bench-plan-", suffix=".json", delete=False)
    json.dump(plan, f)
    f.close()
    return f.name


def run_load(target, ctx, parties, phases, *, bell=None, timeout, start_server=None):
    """One run: a fresh server, the generator to the end; the measured phases' results.

    `start_server`: starts what the generator talks to instead of `Server(target)` (S7's
    topologies, bench/proxy.py: the app behind the proxy); it answers as a Server does
    (`http`, `ws`, `figures`, `stop`, `errors`, `log_path`)."""
    app = target != "baseline"
    speed_before = speed.probe([TASKSET, "-c", SERVER_CORE])
    if app:
        fixtures.refresh_versions(parties)
        versions = [p["versions"] for p in parties]
    else:
        versions = [{k: 0 for k in p["versions"]} for p in parties]
    if start_server:
        server = start_server()
    else:
        server = Server(target, ctx["env"], ctx["html_bytes"])
    plan = {
        "http": server.http,
        "ws": server.ws,
        "origin": f"http://{server.ws}",
        "parties": [{**p, "versions": v} for p, v in zip(parties, versions, strict=True)],
        "phases": phases,
        "drain": 3.0,
    }
    rewinder = contextlib.nullcontext()
    if bell:
        plan["bell"] = bell
        if app:
            rewinder = bell_rewinder(ctx, plan, parties)
    path = write_plan(plan)
    overflows = procstat.listen_overflows()
    gen_core = procstat.CoreSampler(GEN_CORE)
    # Finer: a stalled second is set beside what its core did in it.
    server_core = procstat.CoreSampler(SERVER_CORE, every=0.1, pid=getattr(server, "pid", None))
    gen_core.start()
    server_core.start()
    try:
        with rewinder:
            out = subprocess.run(  # noqa: S603
                gen_cmd(path), cwd=ROOT, capture_output=True, text=True, timeout=timeout
            )
    finally:
        gen_core.stop()
        server_core.stop()
        server.stop()
        os.unlink(path)
    if out.returncode != 0:
        raise RuntimeError(f"generator failed:\n{out.stderr[-3000:]}")
    lines = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    run_info = next(line for line in lines if line["phase"] == "_run")
    # The machine's count over the whole run, the phones' connecting included.
    run_info["listen_overflows"] = procstat.listen_overflows() - overflows
    # How fast the server's core ran plain Python just before and after (bench/speed.py)
    run_info["speed_ms"] = [speed_before, speed.probe([TASKSET, "-c", SERVER_CORE])]
    if hasattr(rewinder, "rewound"):
        run_info["bells_rewound"] = rewinder.rewound
    results = []
    for line in lines:
        if line["phase"] == "_run":
            continue
        if app and line.get("table_msg_bytes"):
            # The baseline sends table messages as large as the app's real ones.
            ctx["html_bytes"] = line["table_msg_bytes"] - ENVELOPE
        wall = line.pop("wall")
        line.update(server.figures(*wall))
        line["server_cpu_ms_per_tap"] = cpu_ms_per_tap(line)
        # The generator's core, shared with PostgreSQL and Redis: near 100%, the bench was the
        # limit and its stamps came late (bench/README.md).
        line["gen_core_busy_pct"] = gen_core.busy_pct(*wall)
        line.update(server_core_figures(server_core, wall, line))
        line["run"] = run_info
        line["loadavg_1m"] = round(os.getloadavg()[0], 2)  # others' load on this shared box
        results.append(line)
    errs = server.errors()
    if errs:
        log(f"  {target} server log ({server.log_path}):", *errs, sep="\n    ")
    return results


def bell_rewinder(ctx, plan, parties):
    """S3's rewind of each rung bell (bench/README.md): the generator's, on PostgreSQL (the
    plan names the database); on the party server's SQLite file, the bench's own, beside the
    run (fixtures.BellRewinder)."""
    dsn = ctx["env"].get("DATABASE_URL")
    if dsn:
        plan["rewind_dsn"] = dsn
        return contextlib.nullcontext()
    return fixtures.BellRewinder(p["id"] for p in parties)


def cpu_ms_per_tap(line):
    """The server's CPU time per tap of a measured phase (ms): its share of a core over the
    taps a second. In the production topology, PostgreSQL's and Redis's work is not in it
    (processes of their own: S7 measures them); in the party server's, SQLite's is."""
    cpu, rate = line.get("cpu_pct"), line.get("taps_per_s")
    return round(10 * cpu / rate, 3) if cpu is not None and rate else None


def server_core_figures(core, wall, line):
    """The server's core over a measured phase (wall times): how busy, and how much of it the
    host took (stolen); and for each of the phase's worst seconds, [busy, server, stolen] in %
    of the core from the second its taps were due to its worst delivery. A stalled second with
    the core far from full was not the CPU; one with the core full and the server's share
    small was something else on that core."""
    worst = zip(line.get("worst_seconds_at") or [], line.get("worst_seconds_ms") or [],
                strict=True)
    return {
        "server_core_busy_pct": core.busy_pct(*wall),
        "server_core_stolen_pct": core.stolen_pct(*wall),
        "worst_seconds_core": [core.second(at, at + 1 + ms / 1000) for at, ms in worst],
    }


# The length of a table message without its html (the JSON envelope around it).
ENVELOPE = 75

KEYS = (
    "p50_ms",
    "p95_ms",
    "p99_ms",
    "max_ms",
    "delivered",
    "expected",
    "taps_per_s",
    "cpu_pct",
    "server_cpu_ms_per_tap",
    "rss_mb",
)


def median_line(scenario, target, runs, extra=None):
    line = {"scenario": scenario, "target": target}
    for key in KEYS:
        if key.endswith("_ms"):
            # A run that delivered nothing has no latency: it counts as infinitely late, so a
            # median over the runs never hides it (null when the median lands on one).
            values = [r[key] if r.get(key) is not None else math.inf for r in runs]
        else:
            values = [r[key] for r in runs if r.get(key) is not None]
        value = statistics.median(values) if values else None
        line[key] = None if value == math.inf else value
    line["delivered"] = sum(r["delivered"] for r in runs)
    line["expected"] = sum(r["expected"] for r in runs)
    line["delivered_pct"] = round(100 * line["delivered"] / max(1, line["expected"]), 4)
    line["runs"] = len(runs)
    # Seconds whose worst delivery passed 100 ms, in all the runs: a stall counts against a
    # scenario even when its p99 passes (docs/performance.md, "Tails are results").
    stalls = [r["seconds_over_100ms"] for r in runs if r.get("seconds_over_100ms") is not None]
    line["seconds_over_100ms"] = sum(stalls) if stalls else None
    line["loadavg_1m"] = [r.get("loadavg_1m") for r in runs]
    if extra:
        line.update(extra)
    return line


def emit(line):
    if line.get("target") == "app":
        line = {**line, "topology": fixtures.TOPOLOGY}
    print(json.dumps(line), flush=True)


def interleaved(ctx, repeats, run):
    """app, baseline, app, baseline... `repeats` times each; {target: [results of run]}."""
    results = {"app": [], "baseline": []}
    for i in range(repeats):
        for target in ("app", "baseline"):
            r = run(target)
            log(f"[{ctx['scenario']} run {i + 1}/{repeats} {target}] " + json.dumps(r))
            results[target].append(r)
    return results


# --- scenarios -------------------------------------------------------------------------------


def s1(ctx, args):
    """100 parties x 12 phones, a tap a second per party (tables in turn), database on."""
    parties = fixtures.make_parties(args.parties or 100, 12)
    ctx["html_bytes"] = fixtures.table_html_bytes(parties[0]["id"])
    phases = [
        {
            "name": "warmup",
            "duration": args.warmup,
            "parties": len(parties),
            "period": 1.0,
            "measure": False,
        },
        {"name": "steady", "duration": args.duration, "parties": len(parties), "period": 1.0},
    ]
    timeout = args.duration + args.warmup + 180
    res = interleaved(
        ctx, args.repeats, lambda t: run_load(t, ctx, parties, phases, timeout=timeout)[0]
    )
    lines = {
        t: median_line("S1", t, res[t], {"parties": len(parties), "phones": 12 * len(parties)})
        for t in res
    }
    add_ratio(lines)
    lines["app"]["pass"] = s1_pass(lines["app"])
    for t in ("app", "baseline"):
        emit(lines[t])


def _held(line, p99_ms):
    """p99 within `p99_ms`, >= 99.99% delivered, and no stalled second (a line with no
    latency, nothing delivered, does not hold)."""
    return (
        line["p99_ms"] is not None
        and line["p99_ms"] <= p99_ms
        and line["delivered_pct"] >= 99.99
        and not line.get("seconds_over_100ms")
    )


def s1_pass(line):
    """S1's target: p50 <= 10 ms, p99 <= 50 ms, >= 99.99% delivered, no stalled second."""
    return _held(line, 50) and line["p50_ms"] is not None and line["p50_ms"] <= 10


def s2_step_ok(line):
    """An S2 step holds: p99 <= 100 ms, >= 99.99% delivered, no stalled second."""
    return _held(line, 100)


def add_ratio(lines, key="p99_ms"):
    a, b = lines["app"].get(key), lines["baseline"].get(key)
    for k in ("p50_ms", "p99_ms"):
        a, b = lines["app"].get(k), lines["baseline"].get(k)
        lines["app"][f"ratio_{k[:3]}"] = round(a / b, 2) if a and b else None


def s2(ctx, args):
    """Capacity: grow the number of 12-phone parties (one run per step and target, interleaved)
    until p99 passes 100 ms or delivery falls below 99.99%."""
    steps = [int(n) for n in args.steps.split(",")]
    parties = fixtures.make_parties(max(steps), 12)
    ctx["html_bytes"] = fixtures.table_html_bytes(parties[0]["id"])
    targets = _targets(args)
    capacity = {t: 0 for t in targets}
    failed = {t: False for t in targets}
    all_lines = {t: [] for t in targets}
    for n in steps:
        for target in targets:
            if failed[target]:
                continue
            phases = [
                {
                    "name": "warmup",
                    "duration": args.warmup,
                    "parties": n,
                    "period": 1.0,
                    "measure": False,
                },
                {"name": "steady", "duration": args.duration, "parties": n, "period": 1.0},
            ]
            r = run_load(
                target, ctx, parties[:n], phases, timeout=args.duration + args.warmup + 300
            )[0]
            line = median_line("S2", target, [r], {"parties": n, "phones": 12 * n})
            ok = line["step_ok"] = s2_step_ok(line)
            detail = {
                "run": r["run"],
                "tap_status": r["tap_status"],
                "gen_lag_p99_ms": r["gen_lag_p99_ms"],
                "gen_core_busy_pct": r.get("gen_core_busy_pct"),
                "server_core_busy_pct": r.get("server_core_busy_pct"),
                "server_core_stolen_pct": r.get("server_core_stolen_pct"),
                "worst_seconds_core": r.get("worst_seconds_core"),
                "worst_seconds_ms": r.get("worst_seconds_ms"),
                "worst_seconds_at": r.get("worst_seconds_at"),
                "seconds_over_100ms": r.get("seconds_over_100ms"),
            }
            log(f"[S2 {n} parties {target}] " + json.dumps({**line, **detail}))
            emit(line)
            all_lines[target].append(line)
            if ok:
                capacity[target] = n
            else:
                failed[target] = True
        if all(failed.values()):
            break
    for target in targets:
        emit(
            {
                "scenario": "S2",
                "target": target,
                "summary": True,
                "capacity_parties": capacity[target],
                "capacity_is_lower_bound": not failed[target],
                "steps": steps,
                "pass": capacity[target] >= 250 if target == "app" else None,
            }
        )


def _targets(args):
    """The targets an S2 or S4 session runs: both, or the app alone (`--app-only`)."""
    return ("app",) if args.app_only else ("app", "baseline")


def s3(ctx, args):
    """One 400-phone party (100 tables), a tap at each table every 3 s, the host's bell every
    10 s; the figure is the bell's latency to the party's last phone."""
    players = args.phones or 400
    parties = fixtures.make_parties(1, players, max_players=players)
    ctx["html_bytes"] = fixtures.table_html_bytes(parties[0]["id"])
    tables = parties[0]["tables"]
    period = 3.0 / tables
    phases = [
        {
            "name": "warmup",
            "duration": args.warmup,
            "parties": 1,
            "period": period,
            "measure": False,
        },
        {"name": "steady", "duration": args.duration, "parties": 1, "period": period},
    ]
    bell = {"first": 5.0, "period": 10.0}
    timeout = args.duration + args.warmup + 180
    res = interleaved(
        ctx,
        args.repeats,
        lambda t: run_load(t, ctx, parties, phases, bell=bell, timeout=timeout)[0],
    )
    lines = {}
    for target, runs in res.items():
        bells = [r["bell"] for r in runs if "bell" in r]
        line = {"scenario": "S3", "target": target}
        for key in ("p50_ms", "p95_ms", "p99_ms", "max_ms"):
            line[key] = statistics.median(b["last_phone"][key] for b in bells)
        line["delivered"] = sum(b["delivered"] for b in bells)
        line["expected"] = sum(b["expected"] for b in bells)
        line["delivered_pct"] = round(100 * line["delivered"] / max(1, line["expected"]), 4)
        line["taps_per_s"] = statistics.median(r["taps_per_s"] for r in runs)
        line["cpu_pct"] = statistics.median(r["cpu_pct"] for r in runs)
        per_tap = [r["server_cpu_ms_per_tap"] for r in runs if r["server_cpu_ms_per_tap"]]
        line["server_cpu_ms_per_tap"] = statistics.median(per_tap) if per_tap else None
        line["rss_mb"] = statistics.median(r["rss_mb"] for r in runs)
        line["measures"] = "bell: scheduled ring -> its last phone (ms); delivered = bell messages"
        line["bells"] = sum(b["bells"] for b in bells)
        line["bell_every_phone_p99_ms"] = statistics.median(
            b["every_phone"]["p99_ms"] for b in bells
        )
        line["tap_p50_ms"] = statistics.median(r["p50_ms"] for r in runs)
        line["tap_p99_ms"] = statistics.median(r["p99_ms"] for r in runs)
        line["tap_delivered"] = sum(r["delivered"] for r in runs)
        line["tap_expected"] = sum(r["expected"] for r in runs)
        line["phones"] = players
        line["tables"] = tables
        line["runs"] = len(runs)
        lines[target] = line
    add_ratio(lines)
    a = lines["app"]
    a["pass"] = a["p99_ms"] <= 100 and (a["ratio_p99"] or 99) <= 4
    for t in ("app", "baseline"):
        emit(lines[t])


def s4(ctx, args):
    """Twice the capacity load for 60 s, then back: no collapse (the 'after' phase recovers)."""
    n = args.parties or 200
    parties = fixtures.make_parties(2 * n, 12)
    ctx["html_bytes"] = fixtures.table_html_bytes(parties[0]["id"])
    phases = [
        {"name": "warmup", "duration": args.warmup, "parties": n, "period": 1.0, "measure": False},
        {"name": "before", "duration": 20, "parties": n, "period": 1.0},
        {"name": "surge", "duration": args.duration, "parties": 2 * n, "period": 1.0},
        {"name": "after", "duration": 30, "parties": n, "period": 1.0},
    ]
    for target in _targets(args):
        for r in run_load(target, ctx, parties, phases, timeout=args.duration + args.warmup + 400):
            line = median_line(
                "S4",
                target,
                [r],
                {"phase": r["phase"], "parties": r["parties"], "tap_status": r["tap_status"]},
            )
            log(f"[S4 {target} {r['phase']}] " + json.dumps(r))
            emit(line)


def s5(ctx, args):
    """Memory per connected idle phone: the server's RSS growth from a few phones to N."""
    n = args.phones or 1000
    parties = fixtures.make_parties(-(-n // 12), 12)
    ctx["html_bytes"] = 0
    per = {"app": [], "baseline": []}
    peaks = {"app": [], "baseline": []}
    warm = 24
    for i in range(args.repeats):
        for target in ("app", "baseline"):
            server = Server(target, ctx["env"], 0)
            plan = {
                "http": server.http,
                "ws": server.ws,
                "origin": f"http://{server.ws}",
                "parties": parties,
                "phases": [],
                "warm": warm,
            }
            path = write_plan(plan)
            gen = subprocess.Popen(  # noqa: S603
                gen_cmd(path, "--idle"),
                cwd=ROOT,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            try:
                first = json.loads(gen.stdout.readline())
                time.sleep(2)
                before = memory_kib(server.pid)
                gen.stdin.write("go\n")
                gen.stdin.flush()
                ready = json.loads(gen.stdout.readline())
                time.sleep(3)  # let the server settle (buffers, the layer's subscriptions)
                after = memory_kib(server.pid)
                gen.stdin.write("stop\n")
                gen.stdin.flush()
                gen.wait(60)
            finally:
                if gen.poll() is None:
                    gen.kill()
                server.stop()
                os.unlink(path)
            added = ready["phones"] - first["phones"]
            kib = (after - before) / max(1, added)
            log(
                f"[S5 run {i + 1} {target}] phones {ready['phones']} rss {before}->{after} KiB "
                f"= {kib:.1f} KiB/phone errors {ready['errors']}"
            )
            per[target].append(kib)
            peaks[target].append(after / 1024)
            ctx.setdefault("connected", {})[target] = ready["phones"]
    for target in ("app", "baseline"):
        line = {
            "scenario": "S5",
            "target": target,
            "p50_ms": None,
            "p95_ms": None,
            "p99_ms": None,
            "max_ms": None,
            "delivered": ctx["connected"][target],
            "expected": len(parties) * 12,
            "taps_per_s": 0,
            "cpu_pct": None,
            "rss_mb": round(statistics.median(peaks[target]), 1),
            "kib_per_phone": round(statistics.median(per[target]), 1),
            "runs": args.repeats,
        }
        if target == "app":
            line["pass"] = line["kib_per_phone"] <= 48
        emit(line)


def s6(ctx, args):
    """One 400-player party's round close (bench/s6.py)."""
    from bench import s6 as round_close

    round_close.s6(ctx, args)


def s7(ctx, args):
    """S1's load through the proxy to two processes, sticky and not, against one process
    alone (bench/proxy.py)."""
    from bench import proxy

    proxy.s7(ctx, args)


SCENARIOS = {"S1": s1, "S2": s2, "S3": s3, "S4": s4, "S5": s5, "S6": s6, "S7": s7}


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scenario", required=True, choices=sorted(SCENARIOS))
    parser.add_argument(
        "--duration",
        type=float,
        default=None,
        help="measured seconds per run (S1 60, S2 20 per step, S3 60, S4 60, S7 30)",
    )
    parser.add_argument("--warmup", type=float, help="unmeasured seconds first (S2 30, others 5)")
    parser.add_argument(
        "--repeats", type=int, default=3, help="runs per target (S1, S3, S5, S6, S7)"
    )
    parser.add_argument(
        "--parties", type=int, help="S1, S7: parties (100); S4: the 1x load (200)"
    )
    parser.add_argument("--phones", type=int, help="S3, S6: phones in the party (400); S5 (1000)")
    parser.add_argument("--closes", type=int, default=5, help="S6: measured closes per run (5)")
    parser.add_argument(
        "--app-ref",
        help="benchmark this commit (exported with git archive) instead of the working tree",
    )
    parser.add_argument(
        "--topology",
        choices=TOPOLOGIES,
        default="production",
        help="the app's: production (daphne, PostgreSQL, Redis; the default) or party-server "
        "(`manage.py party_server`: one process, SQLite, the in-memory channel layer)",
    )
    parser.add_argument(
        "--steps",
        default="100,150,200,250,300,350,400",
        help="S2: the party counts to try, in order",
    )
    parser.add_argument(
        "--app-only",
        action="store_true",
        help="S2, S4: leave out the baseline's runs (for an A/B of the app against itself)",
    )
    args = parser.parse_args(argv)
    if args.app_only and args.scenario not in ("S2", "S4"):
        parser.error("--app-only is for S2 and S4: the other scenarios compare with the baseline")
    if args.topology == "party-server" and args.scenario == "S7":
        parser.error("S7 compares production's topologies: it has no --topology party-server")
    if args.duration is None:
        args.duration = {"S2": 20.0, "S7": 30.0}.get(args.scenario, 60.0)
    if args.warmup is None:
        # S2's first taps replay every party's round (a fresh server knows none), and the
        # table's later taps wait behind them in the phone's outbox: at 300 parties that took
        # ~5 s to drain at 80% CPU (2026-11-29), but at 250 parties near a slower machine's
        # capacity 10 s was not enough, and the backlog showed as 4-21 s "stalls" in the
        # measured window's first seconds (bench/results/2026-12-04.md).
        args.warmup = 30.0 if args.scenario == "S2" else 5.0
    os.sched_setaffinity(0, {int(GEN_CORE)})
    fixtures.TOPOLOGY = args.topology
    export = export_app(args.app_ref) if args.app_ref else None
    try:
        if export:
            fixtures.APP = Path(export)
            log(f"[{args.scenario}] app from {args.app_ref} in {export}")
        check_topology(fixtures.APP)
        session(args)
    finally:
        if export:
            shutil.rmtree(export, ignore_errors=True)


def session(args):
    """A fresh database (the party server's: a data folder), migrated; the scenario; then the
    database dropped."""
    database = fixtures.create_database(fixtures.TOPOLOGY)
    ctx = {"scenario": args.scenario, "env": fixtures.server_env(database)}
    started = time.time()
    try:
        # The app's own migrations (--app-ref: the commit's, not the working tree's)
        prepare(ctx["env"], cwd=fixtures.APP, static=False)
        fixtures.setup_django(ctx["env"])
        SCENARIOS[args.scenario](ctx, args)
    finally:
        from django.db import connections

        connections.close_all()
        database.drop()
        log(f"[{args.scenario}] done in {time.time() - started:.0f} s; dropped {database.name}")


def export_app(ref):
    """Commit `ref`'s tree, exported with `git archive` to a fresh temporary folder; its path."""
    export = tempfile.mkdtemp(prefix="bench-app-")
    archive = subprocess.run(  # noqa: S603
        [shutil.which("git") or "git", "archive", ref],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    tar = shutil.which("tar") or "tar"
    subprocess.run([tar, "-x", "-C", export], input=archive, check=True)  # noqa: S603
    return export


def check_topology(app):
    """Refuse, before anything is set up, an app that has no party server to measure (a
    commit from before `manage.py party_server`, --app-ref)."""
    command = Path(app) / "parties" / "management" / "commands" / "party_server.py"
    if fixtures.TOPOLOGY == "party-server" and not command.exists():
        raise SystemExit(f"--topology party-server: {app} has no manage.py party_server")


if __name__ == "__main__":
    main()
