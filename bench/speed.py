"""How fast a core of this machine runs the interpreter right now: a fixed piece of plain
Python work (dicts, strings, JSON, as a request's handling is made of), timed.

A shared or virtual machine's speed moves by tens of percent within minutes, with no time
counted as stolen (bench.tap_cpu gave 890 µs a tap and 1,388 µs twenty minutes later on
2026-12-04). A run at the edge of capacity then passes or fails with the machine, not the code.
bench.live probes the server's core before and after each run, so a run reads against the
speed it ran at.

    .venv/bin/python -m bench.speed          # this core: one JSON line, {"speed_ms": ...}

Lower is faster. The figure is the median of `REPEATS` timings of `work()`.
"""

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPEATS = 7
ROOT = Path(__file__).resolve().parent.parent  # where `-m bench.speed` is found


def work():
    table = {}
    for i in range(20_000):
        table[f"seat-{i}"] = {"player": i, "points": i % 21, "name": str(i) * 2}
    text = json.dumps(table)
    return len(sorted(json.loads(text)))


def measure(repeats=REPEATS):
    """The median ms of `repeats` runs of work() in this process."""
    timings = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        timings.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(timings), 1)


def probe(prefix=()):
    """The speed figure measured in a fresh process started with `prefix` (taskset and a core:
    the core the server runs on). None if it could not run: a probe never stops a bench run."""
    command = [*prefix, sys.executable, "-m", "bench.speed"]
    try:
        out = subprocess.run(  # noqa: S603
            command, cwd=ROOT, capture_output=True, text=True, timeout=60, check=True
        )
        return json.loads(out.stdout)["speed_ms"]
    except (OSError, subprocess.SubprocessError, ValueError, KeyError):
        return None


if __name__ == "__main__":
    print(json.dumps({"speed_ms": measure()}))
