"""bench.live's verdicts, which are logic, not timing: a run with a stalled second (one whose
worst delivery passed 100 ms) does not pass S1 and does not hold an S2 step, even when its p99
passes (docs/performance.md, "Tails are results"). And the party server as bench.live's target
(`--topology party-server`): its environment, its process, and S3's bell rewind on SQLite."""

import sqlite3
import time
import urllib.request
from contextlib import closing
from pathlib import Path

import pytest

from bench import fixtures, live, procstat, servers, speed
from bench.live import main, median_line, s1_pass, s2_step_ok
from bench.servers import PartyServer


def run(p99_ms=20.0, stalls=0, delivered=1000, p50_ms=4.0):
    return {
        "p50_ms": p50_ms, "p95_ms": p99_ms, "p99_ms": p99_ms, "max_ms": p99_ms,
        "delivered": delivered, "expected": 1000, "taps_per_s": 100.0, "cpu_pct": 50.0,
        "rss_mb": 100.0, "seconds_over_100ms": stalls,
    }


def test_the_line_counts_the_stalled_seconds_of_every_run():
    line = median_line("S1", "app", [run(stalls=0), run(stalls=2), run(stalls=1)])
    assert line["seconds_over_100ms"] == 3


def test_a_run_that_does_not_count_its_seconds_says_so():
    bare = {key: value for key, value in run().items() if key != "seconds_over_100ms"}
    assert median_line("S3", "app", [bare])["seconds_over_100ms"] is None


def test_s1_passes_only_without_a_stalled_second():
    assert s1_pass(median_line("S1", "app", [run(), run()]))
    # The same latencies with one stalled second in one run of five: not met.
    assert not s1_pass(median_line("S1", "app", [run()] * 4 + [run(stalls=1)]))


def test_s1_still_asks_for_its_latencies_and_delivery():
    assert not s1_pass(median_line("S1", "app", [run(p50_ms=11.0)]))
    assert not s1_pass(median_line("S1", "app", [run(p99_ms=51.0)]))
    assert not s1_pass(median_line("S1", "app", [run(delivered=999)]))
    # A run that delivered nothing has no latency: not met, rather than an error.
    assert not s1_pass(median_line("S1", "app", [run(p50_ms=None, p99_ms=None, delivered=0)]))


def test_an_s2_step_with_a_stalled_second_does_not_hold():
    assert s2_step_ok(median_line("S2", "app", [run(p99_ms=36.0)]))
    assert not s2_step_ok(median_line("S2", "app", [run(p99_ms=36.0, stalls=1)]))
    assert not s2_step_ok(median_line("S2", "app", [run(p99_ms=101.0)]))
    assert not s2_step_ok(median_line("S2", "app", [run(delivered=999)]))


def test_app_only_is_refused_where_the_verdict_needs_the_baseline(capsys):
    # S1, S3 and S6 judge the app by its ratio to the baseline: leaving it out is an error,
    # said before anything is set up.
    with pytest.raises(SystemExit) as exit_:
        main(["--scenario", "S1", "--app-only"])
    assert exit_.value.code == 2
    assert "--app-only is for S2 and S4" in capsys.readouterr().err


def test_the_listen_overflow_count_is_read_from_the_kernels_table(tmp_path):
    # /proc/net/netstat: a line of names, then a line of values, per protocol.
    netstat = tmp_path / "netstat"
    netstat.write_text(
        "TcpExt: SyncookiesSent ListenOverflows ListenDrops\n"
        "TcpExt: 0 27 27\n"
        "IpExt: InNoRoutes\n"
        "IpExt: 3\n"
    )
    assert procstat.listen_overflows(netstat) == 27
    assert procstat.listen_overflows() >= 0  # this machine's own table reads too


def test_a_cores_time_is_read_from_the_kernels_table(tmp_path):
    stat = tmp_path / "stat"
    stat.write_text(
        "cpu  10 0 10 100 0 0 0 0 0 0\n"
        "cpu0 4 0 4 50 0 0 0 0 0 0\n"
        "cpu1 6 1 2 30 5 1 1 3 0 0\n"  # busy: user, nice, system, irq, softirq, steal
    )
    # idle and I/O wait count only in all; stolen counts in busy too
    assert procstat.core_ticks(1, stat) == (14, 49, 3)
    with pytest.raises(ValueError):
        procstat.core_ticks(2, stat)
    sampler = procstat.CoreSampler(1)
    # (wall, busy, all, stolen, monotonic, a process's ticks)
    sampler.samples = [
        (0.0, 100, 1000, 0, 50.0, 0),
        (1.0, 150, 1100, 10, 51.0, 20),
        (2.0, 225, 1200, 30, 52.0, 80),
        (3.0, 230, 1300, 30, 53.0, 85),
    ]
    assert sampler.busy_pct(0.5, 2.5) == 75.0  # between the samples inside the window only
    assert sampler.busy_pct(0.5, 1.5) is None  # one sample: no figure, rather than a wrong one
    assert sampler.stolen_pct(0.5, 2.5) == 20.0
    # A second on the monotonic clock, from the samples just outside it: [busy, pid, stolen]
    assert sampler.second(51.0, 52.0) == [75, 60, 20]
    assert sampler.second(51.5, 52.2) == [40, 32, 10]  # 51.0 to 53.0
    assert sampler.second(52.5, 53.5) is None  # no sample after it yet
    sampler.samples = [(*s[:5], None) for s in sampler.samples]  # no process to follow
    assert sampler.second(51.0, 52.0) == [75, None, 20]


def test_a_runs_worst_seconds_are_set_beside_the_server_core():
    sampler = procstat.CoreSampler(0)
    sampler.samples = [(10.0 + t, 100 * t, 100 * t, 5 * t, 60.0 + t, 80 * t) for t in range(6)]
    line = {"worst_seconds_at": [61, 63], "worst_seconds_ms": [150, 40]}
    figures = live.server_core_figures(sampler, (10.0, 15.0), line)
    assert figures == {
        "server_core_busy_pct": 100.0,
        "server_core_stolen_pct": 5.0,
        "worst_seconds_core": [[100, 80, 5], [100, 80, 5]],
    }
    assert live.server_core_figures(sampler, (10.0, 15.0), {})["worst_seconds_core"] == []


def test_the_servers_cpu_is_its_growth_between_the_samples_inside_the_window():
    sampler = procstat.Sampler(pid=None)
    sampler.samples = [(0.0, 1.0, 10), (1.0, 1.5, 20), (3.0, 2.5, 30), (4.0, 4.0, 40)]
    assert sampler.cpu_pct(0.5, 3.5) == 50.0  # 1 s of CPU over the 2 s between 1.0 and 3.0
    assert sampler.cpu_pct(3.5, 4.5) is None
    assert sampler.peak_rss_mb() == round(40 / 1024, 1)


def test_the_speed_probe_times_its_work_in_a_process_of_its_own():
    assert speed.work() == 20_000
    assert speed.measure(repeats=1) > 0
    assert speed.probe() > 0  # a fresh interpreter (the bench starts it on the server's core)
    assert speed.probe(["/nonexistent/taskset"]) is None  # a probe never stops a run


# --- the party server as a target (--topology party-server) -----------------------------------


def test_s7_and_an_app_without_a_party_server_are_refused_on_the_party_server(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--scenario", "S7", "--topology", "party-server"])
    assert exit_.value.code == 2
    assert "S7 compares production's topologies" in capsys.readouterr().err
    # A commit from before `manage.py party_server` (--app-ref), before anything is set up
    with pytest.raises(SystemExit, match="has no manage.py party_server"):
        with_topology("party-server", live.check_topology, tmp_path)
    with_topology("production", live.check_topology, tmp_path)  # daphne alone: no question


def with_topology(topology, call, *args):
    saved, fixtures.TOPOLOGY = fixtures.TOPOLOGY, topology
    try:
        return call(*args)
    finally:
        fixtures.TOPOLOGY = saved


def test_the_party_server_gets_a_hosts_environment_and_its_data_folder(monkeypatch):
    for key, value in {"DATABASE_URL": "postgres://elsewhere/x", "REDIS_URL": "redis://x",
                       "SQLITE_PATH": "/x.sqlite3", "DJANGO_DEBUG": "1",
                       "BUNCO_TAP_WAIT": "9", "BUNCO_STALL_LOG": "0.15"}.items():
        monkeypatch.setenv(key, value)
    folder = fixtures.create_database("party-server")
    try:
        env = fixtures.server_env(folder)
    finally:
        folder.drop()
    for key in ("DATABASE_URL", "REDIS_URL", "SQLITE_PATH", "DJANGO_DEBUG", "BUNCO_TAP_WAIT"):
        assert key not in env
    assert env["BUNCO_STALL_LOG"] == "0.15"  # the diagnostic the servers inherit
    assert env["BUNCO_DATA_DIR"] == folder.name
    assert env["BUNCO_PARTY_SERVER"] == "1"  # the setup's Django reads the server's settings


def test_the_bell_is_taken_back_on_sqlite_as_the_generator_takes_it_on_postgresql(tmp_path):
    path = tmp_path / "db.sqlite3"
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("CREATE TABLE parties_round "
                   "(id INTEGER PRIMARY KEY, party_id INT, status TEXT, bell_at TEXT, version INT)")
        db.execute("CREATE TABLE parties_roundbell (id INTEGER PRIMARY KEY, round_id INT)")
        db.executemany("INSERT INTO parties_round VALUES (?, ?, ?, ?, ?)",
                       [(1, 7, "closed", "t", 3), (2, 7, "playing", None, 5),
                        (3, 8, "playing", "t", 4)])
        db.execute("INSERT INTO parties_roundbell VALUES (1, 1)")  # a closed round's: kept
        db.execute("INSERT INTO parties_roundbell VALUES (2, 3)")  # another party's: kept
    with fixtures.BellRewinder([7], path, every=0.01, after=0.01) as rewinder:
        time.sleep(0.2)
        assert rewinder.rewound == 0  # no bell rung: nothing to take back
        with closing(sqlite3.connect(path)) as db, db:
            db.execute("UPDATE parties_round SET bell_at = 't' WHERE id = 2")
            db.execute("INSERT INTO parties_roundbell VALUES (3, 2)")  # the host rings
        deadline = time.monotonic() + 5
        while rewinder.rewound == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
    assert rewinder.rewound == 1
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("SELECT id, bell_at, version FROM parties_round").fetchall() == [
            (1, "t", 3), (2, None, 6), (3, "t", 4)]
        assert db.execute("SELECT id FROM parties_roundbell").fetchall() == [(1,), (2,)]


@pytest.mark.slow
def test_the_party_server_target_is_the_daphne_its_command_runs(tmp_path):
    folder = fixtures.create_database("party-server")
    server = PartyServer(fixtures.server_env(folder), log_path=tmp_path / "party.log",
                         own_group=True, ready_within=60)
    try:
        server.start()
        assert server.pid != server.launcher_pid
        assert servers.children(server.launcher_pid) == [server.pid]
        command = Path(f"/proc/{server.pid}/cmdline").read_bytes().split(b"\0")
        assert b"bunco_site.serve" in command and b"0.0.0.0" in command
        with urllib.request.urlopen(f"{server.url}/healthz", timeout=5) as answer:
            assert answer.status == 200
        assert (Path(folder.name) / "db.sqlite3").exists()  # the folder's own database
    finally:
        server.stop()
        folder.drop()
    assert not Path(f"/proc/{server.pid}").exists()  # the group stopped, daphne with it
