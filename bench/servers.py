"""The app's server processes, for the browser tests (tests/e2e), the fault tests (tests/faults)
and the benchmarks (bench/live.py): daphne started as production starts it, in production mode,
its output in a log file; stopped, killed as a crash does, and started again on its port. And
the party server (`manage.py party_server`) as a host starts it, for bench.live.

Free of pytest, so that bench/ (run from the repository root, as the tests are) imports it
without the test tools: one server manager for all three, not a copy each.
"""

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"
# One for every process of a run: a session or a token made by one process holds in another.
SECRET = secrets.token_urlsafe(40)


def free_port(host="127.0.0.1"):
    """A port free now on `host` ("0.0.0.0" for a server that listens on every address)."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


def stop_process(process, timeout=10, group=False):
    """Ask a process we started to stop (SIGTERM; to its whole process group if it was started
    in one of its own), and make sure it has: a SIGKILL after `timeout` s. Its exit code."""
    if process is None:
        return None
    if process.poll() is None:
        _signal(process, signal.SIGTERM, group)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            _signal(process, signal.SIGKILL, group)
            process.wait()
    return process.returncode


def _signal(process, number, group):
    if group:
        os.killpg(process.pid, number)  # the group we started it in, and no other
    else:
        process.send_signal(number)


def production_env(database, redis_url=None, *, settings="bunco_site.settings", secret=SECRET,
                   drain_linger="0.2", **extra):
    """The environment of a server in production mode, as a party runs: DEBUG off, the security
    settings on (plain HTTP on the loopback, with no TLS proxy in front), the collected and
    hashed static files, one secret key for every process.

    `database`: {"DATABASE_URL": ...} or {"SQLITE_PATH": ...} (bench/databases.py `env`);
    `redis_url`: the channel layer and cache, or None for the in-process ones. Whatever the
    environment says of either is left out. `drain_linger`: the graceful stop waits this long
    for a proxy to mark the process down (3 s in production); with no proxy in front, a stop
    need not wait. `extra`: the caller's own settings, over all of these."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("SQLITE_PATH", "DATABASE_URL", "REDIS_URL")}
    env.update(database)
    if redis_url:
        env["REDIS_URL"] = redis_url
    env.update({
        "DJANGO_DEBUG": "0",
        "DJANGO_INSECURE_HTTP": "1",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DJANGO_SECRET_KEY": secret,
        "BUNCO_DRAIN_LINGER": drain_linger,
        "DJANGO_SETTINGS_MODULE": settings,
        "PYTHONUNBUFFERED": "1",
    })
    env.update(extra)
    return env


def prepare(env, cwd=ROOT, static=True):
    """Migrate the database of `env`; with `static`, collect the static files production
    serves (whitenoise's manifest of hashed names)."""
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=cwd,
                   env=env, check=True, timeout=300)
    if static:
        subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
                       cwd=cwd, env=env, check=True, timeout=300)


class ServerProcess:
    """A process we start that serves HTTP on a loopback port and answers /healthz once ready.

    `prefix`: a command to run it under (bench's `taskset -c N`). `own_group`: started in a
    process group of its own, which stop() and kill() signal whole (the prefix's children
    too). Its output is appended to `log_path`."""

    def __init__(self, args, env, port, *, cwd=ROOT, prefix=(), log_path=None, own_group=False,
                 ready_within=30, name="server"):
        self.args = [str(a) for a in args]
        self.env = env
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.cwd = cwd
        self.prefix = [str(p) for p in prefix]
        self.log_path = Path(log_path or ARTIFACTS / f"{name}-{port}.log")
        self.own_group = own_group
        self.name = name
        self.ready_within = ready_within
        self.process = None
        self.log = None

    @property
    def pid(self):
        return self.process.pid

    def start(self):
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self.log = open(self.log_path, "ab")  # noqa: SIM115 - closed when the process ends
        self.process = subprocess.Popen(  # noqa: S603 - our own command line
            [*self.prefix, *self.args], cwd=self.cwd, env=self.env, stdout=self.log,
            stderr=subprocess.STDOUT, start_new_session=self.own_group,
        )
        try:
            self._wait_ready()
        except BaseException:
            self.stop()  # nobody else holds it yet
            raise
        return self

    def _wait_ready(self):
        deadline = time.monotonic() + self.ready_within
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.process.returncode}; "
                                   f"see {self.log_path}")
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=1) as response:
                    if response.status == 200:
                        return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.name} did not answer within {self.ready_within} s;"
                                   f" see {self.log_path}")
            time.sleep(0.2)

    def stop(self, timeout=10):
        """Terminate it (its graceful stop), killed after `timeout` s; its exit code."""
        code = stop_process(self.process, timeout, group=self.own_group)
        self._close_log()
        return code

    def kill(self):
        """SIGKILL: no clean shutdown, as a crash."""
        if self.process and self.process.poll() is None:
            _signal(self.process, signal.SIGKILL, self.own_group)
            self.process.wait(10)
        self._close_log()

    def exited(self, timeout):
        """Wait for it to exit by itself (after a signal the test sent); its exit code."""
        code = self.process.wait(timeout)
        self._close_log()
        return code

    def restart(self):
        """Start it again on the same port (the phones' retries and reconnects find it)."""
        return self.start()

    def log_text(self):
        if self.log and not self.log.closed:
            self.log.flush()
        return self.log_path.read_text(errors="replace")

    def _close_log(self):
        if self.log:
            self.log.close()


class Daphne(ServerProcess):
    """The app under daphne, started as production starts it: `python -m bunco_site.serve`
    (daphne with the server patches). `options`: daphne's own, e.g. --proxy-headers behind the
    proxy; `launcher`: another module to start it with (bench's older commits: daphne)."""

    def __init__(self, env, port=None, *, options=(), launcher="bunco_site.serve", **kwargs):
        port = port or free_port()
        args = [sys.executable, "-m", launcher, *options, "-b", "127.0.0.1", "-p", port,
                "bunco_site.asgi:application"]
        kwargs.setdefault("name", "daphne")
        super().__init__(args, env, port, **kwargs)


class PartyServer(ServerProcess):
    """`manage.py party_server` as a host starts it (its data folder named by the
    environment's BUNCO_DATA_DIR): it migrates, collects the static files and runs daphne
    (`bunco_site.serve`, on every IPv4 address) in a child process, and waits for it.

    `pid` is that child's, the server doing the work (its CPU and memory are the server's);
    `launcher_pid` the command's own, which only waits. Both are in the process group that
    stop() and kill() signal, when started with `own_group`."""

    def __init__(self, env, port=None, **kwargs):
        port = port or free_port("0.0.0.0")  # noqa: S104 - it listens on every address
        args = [sys.executable, "manage.py", "party_server", "--port", port]
        kwargs.setdefault("name", "party_server")
        super().__init__(args, env, port, **kwargs)
        self.server_pid = None

    @property
    def pid(self):
        return self.server_pid

    @property
    def launcher_pid(self):
        return self.process.pid

    def start(self):
        super().start()  # returns once the child answers /healthz
        found = children(self.launcher_pid)
        if len(found) != 1:
            self.stop()
            raise RuntimeError(f"party_server runs {len(found)} processes, not one daphne; "
                               f"see {self.log_path}")
        self.server_pid = found[0]
        return self


def children(pid):
    """The processes whose parent is `pid`, read from Linux's /proc."""
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat") as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            continue  # gone meanwhile
        if parent == pid:
            found.append(int(entry))
    return found
