"""deploy/haproxy.cfg (or a variant of it) run by Debian's haproxy in front of daphne
processes: for the fault tests (tests/faults/test_proxy.py) and the proxy benchmark
(bench/proxy.py). Free of pytest, as bench/servers.py is, so bench/ imports it without the
test tools."""

import os
import re
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

from bench.servers import ROOT, free_port, stop_process
from bench.waiting import wait_until

CONFIG = ROOT / "deploy" / "haproxy.cfg"
SERVER_NAMES = ("web1", "web2")  # the config's server lines, in order


def haproxy_path():
    return shutil.which("haproxy") or "/usr/sbin/haproxy"


class Proxy:
    """haproxy on a free port with `config` (deploy/haproxy.cfg), its log (one line a request
    or socket) kept in `log_path` (test-artifacts), its runtime API on a socket of its own.

    `maxconn`: connections at most (each websocket is one); the tests' 2000 is within a test
    machine's file-descriptor limit. `prefix`: a command to run it under (bench's
    `taskset -c N`; taskset execs haproxy, so the process is haproxy's own)."""

    def __init__(self, servers, tls_cert=None, *, config=CONFIG, maxconn=2000, prefix=(),
                 log_path=None):
        self.servers = dict(zip(SERVER_NAMES, servers, strict=True))
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.tls_cert = tls_cert
        self.https_port = free_port() if tls_cert else None
        self.config = Path(config)
        self.maxconn = maxconn
        self.prefix = [str(p) for p in prefix]
        self.dir = tempfile.TemporaryDirectory()
        self.admin = Path(self.dir.name) / "admin.sock"
        self.log_path = Path(log_path or ROOT / "test-artifacts" / f"haproxy-{self.port}.log")
        self.process = None

    @property
    def pid(self):
        return self.process.pid

    def env(self):
        env = {k: v for k, v in os.environ.items() if not k.startswith("BUNCO_")}
        env.update({
            "BUNCO_HTTP_BIND": f"127.0.0.1:{self.port}",
            "BUNCO_PUBLIC_HOST": "127.0.0.1",
            "BUNCO_PROXY_ADMIN_SOCKET": str(self.admin),
            "BUNCO_PROXY_MAXCONN": str(self.maxconn),
        })
        if self.tls_cert:
            env["BUNCO_TLS_CERT"] = str(self.tls_cert)
            env["BUNCO_HTTPS_BIND"] = f"127.0.0.1:{self.https_port}"
        for name, server in self.servers.items():
            env[f"BUNCO_{name.upper()}"] = f"127.0.0.1:{server.port}"
        return env

    def start(self):
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self.log = open(self.log_path, "ab")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(  # noqa: S603 - our own command line
            [*self.prefix, haproxy_path(), "-db", "-f", str(self.config)], env=self.env(),
            stdout=self.log, stderr=subprocess.STDOUT,
        )
        try:
            wait_until(lambda: self.admin.exists() or self.process.poll() is not None, 10,
                       f"haproxy to start (see {self.log_path})")
            assert self.process.poll() is None, f"haproxy exited; see {self.log_path}"
            self.wait_up(*self.servers)
        except BaseException:
            self.stop()  # nobody else holds it yet
            raise
        return self

    def stop(self):
        stop_process(self.process)
        self.log.close()
        self.dir.cleanup()

    def command(self, line):
        with socket.socket(socket.AF_UNIX) as admin:
            admin.settimeout(5)
            admin.connect(str(self.admin))
            admin.sendall(line.encode() + b"\n")
            chunks = []
            while chunk := admin.recv(65536):
                chunks.append(chunk)
        return b"".join(chunks).decode()

    def stat(self):
        """{server name: its row of haproxy's `show stat`, as a dict}."""
        rows = self.command("show stat").splitlines()
        header = rows[0].lstrip("# ").split(",")
        found = {}
        for row in rows[1:]:
            fields = dict(zip(header, row.split(","), strict=False))
            if fields.get("pxname") == "daphnes" and fields.get("svname") in self.servers:
                found[fields["svname"]] = fields
        return found

    def status(self):
        """{server name: "UP", "DOWN", ...} as haproxy's health checks see them now."""
        return {name: fields["status"] for name, fields in self.stat().items()}

    def sessions(self):
        """{server name: connections open to it now (requests and websockets)}."""
        return {name: int(fields["scur"]) for name, fields in self.stat().items()}

    def wait_up(self, *names, timeout=20):
        wait_until(lambda: all(self.status().get(n) == "UP" for n in names), timeout,
                   f"haproxy to see {', '.join(names)} up: {self.status()}")

    def wait_down(self, name, timeout=20):
        wait_until(lambda: self.status().get(name, "").startswith("DOWN"), timeout,
                   f"haproxy to see {name} down: {self.status()}")

    def routes(self):
        """Every logged request and socket: dicts of server, status, method, party, route."""
        if not self.log.closed:
            self.log.flush()
        return log_routes(self.log_path.read_text(errors="replace"))

    def servers_of(self, party_id, since=0):
        """The set of processes that served the party's pages and sockets (log lines from
        `since` on)."""
        return {r["server"] for r in self.routes()[since:]
                if r["party"] == str(party_id) and r["route"] in ("page", "ws")}


def log_routes(text):
    """The requests and sockets in a log of deploy/haproxy.cfg's format, in order."""
    return [m.groupdict() for line in text.splitlines() if (m := LOG_LINE.search(line))]


# deploy/haproxy.cfg's log-format: "%ci %ft %b/%s %ST %HM party=... route=... timers flags";
# the flags are HAProxy's termination state (`flags[1] == "C"`: it ended while the proxy was
# still connecting to a process, so no process saw the request).
LOG_LINE = re.compile(r"^(?P<client>\S+) \S+ daphnes/(?P<server>\S+) (?P<status>-?\d+) "
                      r"(?P<method>\S+) party=(?P<party>\S*) route=(?P<route>\S*) "
                      r"(?P<timers>\S+) (?P<flags>\S+)")
