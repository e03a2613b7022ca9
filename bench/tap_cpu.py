"""The server's CPU for one tap's database work, alone: what the lean tap path runs in a worker
thread (`parties.tap_path._record`: the checks, the transaction, the table's render), called
in a loop on PostgreSQL, no HTTP and no websockets. A quick A/B for the tap's statements
(bench.live measures the whole path).

    .venv/bin/python -m bench.tap_cpu [--taps 3000]

Prints one JSON line: CPU (user + system) of this process and of the PostgreSQL processes
serving its database, and wall time, per tap in µs, medians of 5 batches.
"""

import argparse
import json
import os
import statistics
import time
import uuid

from bench import fixtures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--taps", type=int, default=3000)
    args = parser.parse_args()
    database = fixtures.create_database()
    try:
        env = fixtures.server_env(database)
        fixtures.migrate(env)
        fixtures.setup_django(env)
        print(json.dumps(measure(args.taps)))
    finally:
        from django.db import connections

        connections.close_all()
        fixtures.drop_database(database)


def measure(taps):
    from parties import tap_path
    from parties.play_views import tap_fields

    party = fixtures.make_parties(1, 12)[0]
    session_key = party["host_cookie"].split(";")[0].removeprefix("sessionid=")
    versions = {n: 0 for n in range(1, party["tables"] + 1)}

    def tap(i):
        number = i % party["tables"] + 1
        form = {"tap_id": str(uuid.uuid4()), "seen": str(versions[number]), "outcome": "miss"}
        saved = tap_path._record(party["id"], number, session_key, tap_fields(form))
        assert saved is not None, "the tap took the full path: the bench's party is not in play"
        versions[number] = saved.version

    for i in range(200):  # warm: caches, the pool, the interpreter
        tap(i)
    cpu, wall, db = [], [], []
    batch = max(1, taps // 5)
    for _ in range(5):
        c0, w0, d0 = time.process_time(), time.perf_counter(), _database_cpu()
        for i in range(batch):
            tap(i)
        cpu.append((time.process_time() - c0) / batch * 1e6)
        wall.append((time.perf_counter() - w0) / batch * 1e6)
        db.append((_database_cpu() - d0) / batch * 1e6)
    return {
        "taps": 5 * batch,
        "cpu_us_per_tap": round(statistics.median(cpu), 1),
        "db_cpu_us_per_tap": round(statistics.median(db), 1),
        "wall_us_per_tap": round(statistics.median(wall), 1),
        "cpu_us_batches": [round(x, 1) for x in cpu],
    }


def _database_cpu():
    """CPU seconds used so far by PostgreSQL's processes serving this database (from /proc:
    the server runs on this machine). Its shared processes (WAL writer, checkpointer) are not
    counted."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database()")
        pids = [row[0] for row in cursor.fetchall()]
    ticks = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue  # not on this machine, or gone
        ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


if __name__ == "__main__":
    main()
