"""A redis-server of our own on a free port, never the shared one: the fault tests stop and
restart it. No persistence, so a restart loses everything, as a real one without it does."""

import subprocess
import tempfile

from bench.servers import free_port, stop_process
from bench.waiting import wait_until


class RedisServer:
    def __init__(self):
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.dir = tempfile.TemporaryDirectory()
        self.process = None

    def start(self):
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--daemonize", "no", "--dir", self.dir.name],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        wait_until(self.ping, 10, f"redis-server on port {self.port}")
        return self

    def ping(self):
        result = subprocess.run(["redis-cli", "-p", str(self.port), "ping"],
                                capture_output=True, text=True)
        return result.stdout.strip() == "PONG"

    def cli(self, *args):
        result = subprocess.run(["redis-cli", "-p", str(self.port), *args],
                                capture_output=True, text=True, timeout=10)
        return result.stdout.split()

    def subscriptions(self):
        """{group channel: number of subscribers}: the groups the daphne processes listen to.
        (Each process's own "specific" channel is left out: its name may change when the layer
        reconnects, and nothing is ever sent to it; pushes go to groups.)"""
        channels = self.cli("PUBSUB", "CHANNELS", "asgi__group__*")
        counts = self.cli("PUBSUB", "NUMSUB", *channels) if channels else []
        return dict(zip(counts[::2], map(int, counts[1::2]), strict=True))

    def stop(self):
        stop_process(self.process)
        self.process = None

    def restart(self):
        self.stop()
        self.start()

    def close(self):
        """Stop it and remove its folder."""
        self.stop()
        self.dir.cleanup()
