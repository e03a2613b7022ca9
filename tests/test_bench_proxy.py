"""bench/ S7's pieces that are logic, not timing: the non-sticky variant of deploy/haproxy.cfg
that `spread` runs (bench/proxy.py), and the generator's keep-alive pool sending a request
again when the proxy had closed its idle connection (bench/rawhttp.py)."""

import asyncio
import os
import subprocess

import pytest

from bench.haproxy import CONFIG, haproxy_path
from bench.proxy import ROUND_ROBIN, STICKY_LINES, spread_config
from bench.rawhttp import Pool
from tests.loops import run_alone

PRODUCTION = CONFIG.read_text()


def test_the_spread_variant_balances_round_robin_and_keeps_everything_else():
    spread = spread_config(PRODUCTION)
    assert "balance hash" not in spread and "hash-type" not in spread
    assert spread.count("balance roundrobin") == 1
    # Line for line production's config, but for the backend's balance.
    balance, hash_type = STICKY_LINES
    expected = PRODUCTION.replace(balance, ROUND_ROBIN).replace(hash_type, "")
    assert spread == expected
    assert len(spread.splitlines()) == len(PRODUCTION.splitlines()) - 1


def test_a_config_without_the_sticky_lines_is_refused_not_measured_as_spread():
    with pytest.raises(ValueError, match="balance hash"):
        spread_config(PRODUCTION.replace("balance hash var(txn.party)", "balance source"))
    with pytest.raises(ValueError, match="hash-type"):
        spread_config(PRODUCTION.replace("    hash-type consistent\n", ""))


@pytest.mark.needs_haproxy
def test_haproxy_accepts_the_spread_variant(tmp_path):
    config = tmp_path / "spread.cfg"
    config.write_text(spread_config(PRODUCTION))
    env = {k: v for k, v in os.environ.items() if not k.startswith("BUNCO_")}
    env.update(BUNCO_WEB1="127.0.0.1:1", BUNCO_WEB2="127.0.0.1:2",
               BUNCO_HTTP_BIND="127.0.0.1:8080")  # checked, never bound
    result = subprocess.run([haproxy_path(), "-c", "-f", str(config)], env=env,
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_request_on_a_connection_the_server_closed_while_idle_is_sent_on_a_new_one():
    async def scenario():
        requests = []

        async def answer_once_then_close(reader, writer):
            await reader.readuntil(b"\r\n\r\n")
            requests.append(writer.get_extra_info("peername"))
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            await writer.drain()
            writer.close()  # as HAProxy does once the connection has idled too long

        server = await asyncio.start_server(answer_once_then_close, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        pool = Pool("127.0.0.1", port)
        try:
            first = await pool.request("POST", "/a", body=b"x")
            await asyncio.sleep(0.1)  # the close reaches the idle connection
            second = await pool.request("POST", "/b", body=b"y")
        finally:
            pool.close()
            server.close()
            await server.wait_closed()
        return first, second, pool.resent_on_closed, len(requests)

    first, second, resent, served = run_alone(scenario())
    assert first == (200, b"ok") and second == (200, b"ok")
    assert resent == 1 and served == 2
