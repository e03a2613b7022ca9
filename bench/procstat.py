"""A server's CPU time and memory, read from /proc (no psutil needed)."""

import os
import threading
import time

TICK = os.sysconf("SC_CLK_TCK")


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def cpu_seconds(pid):
    return cpu_ticks(pid) / TICK


def memory_kib(pid, key="VmRSS"):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def listen_overflows(path="/proc/net/netstat"):
    """Connections the kernel dropped because a listening socket's queue was full, so far, on
    this machine (TcpExt ListenOverflows): a dropped phone sends its first packet again only
    after a second or more, which shows as a stall the server's own figures do not explain."""
    with open(path) as f:
        lines = [line.split() for line in f]
    for names, values in zip(lines, lines[1:], strict=False):
        if names[0] == "TcpExt:" and values[0] == "TcpExt:":
            return int(values[names.index("ListenOverflows")])
    return 0


class Sampler(threading.Thread):
    """Samples (wall time, cpu seconds, rss KiB) of `pid` every `every` seconds."""

    def __init__(self, pid, every=0.5):
        super().__init__(daemon=True)
        self.pid, self.every = pid, every
        self.samples = []
        self.done = threading.Event()

    def run(self):
        while not self.done.is_set():
            try:
                self.samples.append((time.time(), cpu_seconds(self.pid), memory_kib(self.pid)))
            except (FileNotFoundError, ProcessLookupError):
                return
            self.done.wait(self.every)

    def stop(self):
        self.done.set()
        self.join()

    def growth_pct(self, start, end, part, whole):
        """100 x the growth of field `part` over that of field `whole` between the first and
        last samples inside [start, end] (wall times); None with fewer than two samples."""
        inside = [s for s in self.samples if start <= s[0] <= end]
        if len(inside) < 2:
            return None
        first, last = inside[0], inside[-1]
        span = last[whole] - first[whole]
        return round(100 * (last[part] - first[part]) / span, 1) if span > 0 else None

    def cpu_pct(self, start, end):
        """Server CPU over [start, end] (wall times), as % of one core."""
        return self.growth_pct(start, end, part=1, whole=0)

    def peak_rss_mb(self):
        return round(max((s[2] for s in self.samples), default=0) / 1024, 1)


def core_ticks(core, path="/proc/stat"):
    """(busy, all, stolen) clock ticks a CPU core has spent so far: busy is running anything
    (user, nice, system, interrupts, stolen by the host), all adds idle and I/O wait; stolen is
    the part of busy the host's hypervisor ran something else on this machine's core."""
    with open(path) as f:
        for line in f:
            fields = line.split()
            if fields[0] == f"cpu{core}":
                user, nice, system, idle, iowait, irq, softirq, steal = map(int, fields[1:9])
                busy = user + nice + system + irq + softirq + steal
                return busy, busy + idle + iowait, steal
    raise ValueError(f"no cpu{core} in {path}")


class CoreSampler(Sampler):
    """Samples (wall time, busy ticks, all ticks, stolen ticks, monotonic time, `pid`'s ticks)
    of CPU core `core` every `every` seconds: how busy the core was, whatever ran on it, how
    much of it the host took (stolen), and how much of it process `pid` (if given) used."""

    def __init__(self, core, every=0.5, pid=None):
        super().__init__(pid=pid, every=every)
        self.core = core

    def run(self):
        own = None
        while not self.done.is_set():
            if self.pid:
                try:
                    own = cpu_ticks(self.pid)
                except (FileNotFoundError, ProcessLookupError):
                    pass  # gone: its last count stands
            self.samples.append((time.time(), *core_ticks(self.core), time.monotonic(), own))
            self.done.wait(self.every)

    def busy_pct(self, start, end):
        """% of the core's time busy over [start, end] (wall times)."""
        return self.growth_pct(start, end, part=1, whole=2)

    def stolen_pct(self, start, end):
        """% of the core's time the host took over [start, end] (wall times)."""
        return self.growth_pct(start, end, part=3, whole=2)

    def second(self, start, end):
        """The core over [start, end] on the monotonic clock (a stalled second, as bench.gen
        stamps it), from the samples just outside it: [busy %, process `pid`'s % (None
        without a pid), stolen %] of the core's time, or None without two samples."""
        before = [s for s in self.samples if s[4] <= start]
        after = [s for s in self.samples if s[4] >= end]
        if not before or not after:
            return None
        first, last = before[-1], after[0]
        span = last[2] - first[2]
        if span <= 0:
            return None

        def pct(i):
            if first[i] is None or last[i] is None:
                return None
            return round(100 * (last[i] - first[i]) / span)

        return [pct(1), pct(5), pct(3)]
