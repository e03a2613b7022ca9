"""A tiny HTTP/1.1 keep-alive client and server on asyncio streams, so the generator and the
baseline need no new dependency (and cost the same on both targets)."""

import asyncio
from urllib.parse import parse_qsl


async def read_response(reader):
    """(status, body bytes, keep-alive, headers) of one response; handles Content-Length and
    chunked bodies."""
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            key, _, value = line.partition(":")
            headers[key.strip().lower()] = value.strip()
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = b""
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            chunk = await reader.readexactly(size + 2)
            if size == 0:
                break
            body += chunk[:-2]
    else:
        body = await reader.readexactly(int(headers.get("content-length", "0")))
    keep = headers.get("connection", "").lower() != "close"
    return status, body, keep, headers


class Pool:
    """Keep-alive connections to one host; a request takes an idle one or opens a new one, so
    an open-loop generator never waits for a free connection (up to `limit` of them).

    A kept-alive connection the server closed while it sat idle (HAProxy closes them after
    `timeout http-keep-alive`, deploy/haproxy.cfg: 10 s) fails the next request sent on it with
    no answer at all; as a browser does, the request is then sent once more on a new connection
    (`resent_on_closed` counts them), instead of being counted as a network failure the phone's
    outbox resends a second later."""

    def __init__(self, host, port, limit=2000):
        self.host, self.port = host, port
        self.idle = []
        self.open = 0
        self.resent_on_closed = 0
        self.sem = asyncio.Semaphore(limit)

    async def request(self, method, path, headers=None, body=b"", *, with_headers=False):
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        for key, value in (headers or {}).items():
            lines.append(f"{key}: {value}")
        lines.append(f"Content-Length: {len(body)}")
        message = ("\r\n".join(lines) + "\r\n\r\n").encode() + body
        async with self.sem:
            while True:
                reused = bool(self.idle)
                if reused:
                    reader, writer = self.idle.pop()
                else:
                    reader, writer = await asyncio.open_connection(self.host, self.port)
                    self.open += 1
                try:
                    writer.write(message)
                    status, data, keep, answer_headers = await read_response(reader)
                    break
                except Exception as error:
                    writer.close()
                    self.open -= 1
                    closed_unanswered = (
                        isinstance(error, asyncio.IncompleteReadError) and not error.partial
                    )
                    if reused and (closed_unanswered or isinstance(error, ConnectionError)):
                        self.resent_on_closed += 1
                        continue
                    raise
            if keep:
                self.idle.append((reader, writer))
            else:
                writer.close()
                self.open -= 1
            return (status, data, answer_headers) if with_headers else (status, data)

    def close(self):
        for _reader, writer in self.idle:
            writer.close()
        self.idle.clear()


async def serve(handler, host, port):
    """A minimal keep-alive HTTP/1.1 server: handler(method, path, form dict, headers) returns
    (status, body bytes)."""

    async def connection(reader, writer):
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                headers = {}
                for line in lines[1:]:
                    if ":" in line:
                        key, _, value = line.partition(":")
                        headers[key.strip().lower()] = value.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                form = dict(parse_qsl(body.decode())) if body else {}
                status, data = await handler(method, path, form, headers)
                writer.write(
                    f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n"
                    f"Content-Length: {len(data)}\r\n\r\n".encode()
                    + data
                )
        finally:
            writer.close()

    return await asyncio.start_server(connection, host, port, backlog=4096)
