"""The server listens with a deep queue (bunco_site/fast/listen_backlog.py): phones connecting in a
burst wait in it instead of being dropped and sending their first packet again seconds later."""

import os
import subprocess

from bench.servers import Daphne, prepare
from bunco_site.fast import listen_backlog


def test_tcp_and_unix_endpoints_get_the_backlog_unless_they_name_one():
    assert listen_backlog.deeper(
        ["tcp:port=8000:interface=0.0.0.0", "unix:/run/bunco.sock", "fd:fileno=3",
         "tcp:port=8001:backlog=10"]
    ) == [
        "tcp:port=8000:interface=0.0.0.0:backlog=4096",
        "unix:/run/bunco.sock:backlog=4096",
        "fd:fileno=3",  # a socket handed over listens as it was made
        "tcp:port=8001:backlog=10",  # an operator's own choice stands
    ]


def test_the_launched_server_listens_with_it(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(DJANGO_DEBUG="1", SQLITE_PATH=str(tmp_path / "db.sqlite3"))
    prepare(env, static=False)
    server = Daphne(env).start()
    try:
        listening = subprocess.run(  # noqa: S603 - `ss` shows a listening socket's queue size
            ["ss", "-ltnH", f"sport = :{server.port}"], capture_output=True, text=True,
            check=True,
        ).stdout.split()
    finally:
        server.stop()
    with open("/proc/sys/net/core/somaxconn") as f:
        kernel_cap = int(f.read())
    # ss's third column of a listening socket is its queue's size: what listen() was given,
    # capped by the kernel (Twisted's own default is 50).
    assert int(listening[2]) == min(listen_backlog.BACKLOG, kernel_cap), listening
