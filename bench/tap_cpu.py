"""The server's CPU for one tap's work in its worker thread, alone: what `parties.taps` runs
there for the lean entry (the session's read, `roll_record`: the lock, the reads, the
insert, the commit; and the table's render), called in a loop on PostgreSQL, no HTTP and no
websockets; the render's push is not sent. A quick A/B for the tap's statements (bench.live
measures the whole path).

    .venv/bin/python -m bench.tap_cpu [--taps 3000] [--language es]

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
from bench.servers import prepare


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--taps", type=int, default=3000)
    parser.add_argument("--language", default="en", help="the tapping phone's language")
    args = parser.parse_args()
    database = fixtures.create_database()
    try:
        env = fixtures.server_env(database)
        prepare(env, static=False)
        fixtures.setup_django(env)
        print(json.dumps(measure(args.taps, args.language)))
    finally:
        from django.db import connections

        connections.close_all()
        database.drop()


def measure(taps, language="en"):
    import asyncio
    import threading

    from parties.live import announce
    from parties.taps import _in_worker, tap_fields

    async def not_sent(party_id, pushes):  # rendered, as every tap's update is; not sent
        return True

    announce._send_all = not_sent
    loop = asyncio.new_event_loop()  # the server's loop, for the tap's pushes
    threading.Thread(target=loop.run_forever, daemon=True).start()
    party = fixtures.make_parties(1, 12)[0]
    session_key = party["host_cookie"].split(";")[0].removeprefix("sessionid=")
    versions = {n: 0 for n in range(1, party["tables"] + 1)}

    def tap(i):
        number = i % party["tables"] + 1
        form = {"tap_id": str(uuid.uuid4()), "seen": str(versions[number]), "outcome": "miss"}
        (_status, answer), _outbox = _in_worker(
            loop, party["id"], number, tap_fields(form), None, session_key, language
        )
        assert answer["status"] == "saved", answer
        versions[number] = answer["version"]

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
