"""`manage.py party_server` started as the README starts it, in a process of its own: no
environment of the test run's (no DEBUG, database or Redis settings), its data in a folder of
the test's, its terminal output read line by line."""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

from bench import servers
from bench.servers import stop_process

ROOT = Path(__file__).resolve().parent.parent
READY = "Stop with Ctrl-C."
LINK = re.compile(r"^\s+(?P<label>.+?)\s+(?P<url>https?://\S+/l/\S+/)$")

# What a host's shell would not have: everything that points the app at the test run's stack.
_TEST_ONLY = ("DJANGO_", "DATABASE_URL", "REDIS_URL", "SQLITE_PATH", "BUNCO_", "PARTY_")


def free_port():
    """A port free on every address, as the party server listens on all of them."""
    return servers.free_port("0.0.0.0")  # noqa: S104 - probing, not serving


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(_TEST_ONLY)}
    env.update(extra)
    return env


class PartyServer:
    def __init__(self, port, data_dir=None, args=(), env=None, wrap=()):
        self.port = port
        self.wrap = list(wrap)  # a command to run it under (another network namespace)
        self.args = [str(a) for a in args]
        self.env = env or clean_env(BUNCO_DATA_DIR=str(data_dir))
        self.lines: list[str] = []
        self.process = None

    def start(self, timeout=60):
        self.process = subprocess.Popen(
            [*self.wrap, sys.executable, "manage.py", "party_server", "--port", str(self.port), *self.args],
            cwd=ROOT, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        lines = queue.Queue()
        threading.Thread(target=self._read, args=(lines,), daemon=True).start()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=0.5)
            except queue.Empty:
                if self.process.poll() is not None:
                    break
                continue
            if line is None:
                break
            if READY in line:
                return self
        self.stop()
        raise RuntimeError("party_server did not start:\n" + self.output)

    def _read(self, lines):
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))
            lines.put(line)
        lines.put(None)

    @property
    def output(self):
        return "\n".join(self.lines)

    def links(self):
        """label -> URL of every link the terminal printed (the demo party's and host links)."""
        found = {}
        for line in self.lines:
            match = LINK.match(line)
            if match:
                found.setdefault(match["label"], match["url"])
        return found

    def stop(self):
        return stop_process(self.process, timeout=15)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
