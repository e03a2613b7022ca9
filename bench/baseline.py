"""The baseline (docs/performance.md): a minimal `websockets` broadcast server with the app's
message shape and party routing. A tap is an HTTP POST to the same path as the app's; it checks the
table version, bumps it, serialises the update once and sends the same text to that table's
phones; the host's bell goes to every phone of the party. No database, no templates: it is the
floor the app's live path is compared with.

    python -m bench.baseline --port 8101 --html-bytes 1500   (HTTP on 8101, websockets on 8102)
"""

import argparse
import asyncio
import json
import re
from collections import defaultdict
from urllib.parse import parse_qs, urlsplit

from websockets.asyncio.server import broadcast, serve

from bench import rawhttp

TAP = re.compile(r"^/parties/(\d+)/table/(\d+)/rolls/$")
BELL = re.compile(r"^/parties/(\d+)/host/bell/$")
START = re.compile(r"^/parties/(\d+)/start/$")
WS = re.compile(r"^/ws/parties/(\d+)/$")


class Hub:
    def __init__(self, html_bytes):
        self.html = "x" * html_bytes
        self.party_phones = defaultdict(set)
        self.table_phones = defaultdict(set)  # (party, table) -> phones
        self.versions = defaultdict(int)
        self.seq = defaultdict(int)
        self.phone_ids = {}  # socket -> the phone's number (S6: each gets its own seat)

    async def http(self, method, path, form, headers):
        if method == "GET" and path == "/healthz":
            return 200, b"ok"
        if method != "POST":
            return 405, b'{"status":"refused"}'
        if m := TAP.match(path):
            party, table = int(m[1]), int(m[2])
            key = (party, table)
            if "tap_id" not in form or not (form.get("dice") or form.get("outcome")):
                return 400, b'{"status":"refused","message":"bad tap"}'
            if int(form.get("seen", -1)) != self.versions[key]:
                return 409, json.dumps({"status": "stale", "version": self.versions[key]}).encode()
            self.versions[key] += 1
            self.seq[party] += 1
            text = json.dumps(
                {
                    "type": "table",
                    "seq": self.seq[party],
                    "round": 1,
                    "table": table,
                    "version": self.versions[key],
                    "html": self.html,
                },
                separators=(",", ":"),
            )
            broadcast(self.table_phones[key], text)
            if form.get("close"):  # S6: the round closes; every phone is told its own seat
                self.seats(party)
            return 200, json.dumps(
                {"status": "saved", "version": self.versions[key], "seq": self.seq[party]}
            ).encode()
        if m := BELL.match(path):
            party = int(m[1])
            self.seq[party] += 1
            text = json.dumps(
                {"type": "bell", "seq": self.seq[party], "round": 1, "by": "host"},
                separators=(",", ":"),
            )
            broadcast(self.party_phones[party], text)
            return 200, b'{"status":"ok"}'
        if START.match(path):
            return 200, b'{"status":"ok"}'
        return 404, b'{"status":"refused"}'

    def seats(self, party):
        """S6's baseline: a distinct small message to each phone of the party (its new seat)."""
        self.seq[party] += 1
        for ws in self.party_phones[party]:
            phone = self.phone_ids.get(ws, 0)
            text = json.dumps(
                {
                    "type": "seat",
                    "seq": self.seq[party],
                    "phone": phone,
                    "table": phone // 4 + 1,
                    "seat": phone % 4 + 1,
                    "html": f"<p>Table {phone // 4 + 1}, seat {phone % 4 + 1}</p>",
                },
                separators=(",", ":"),
            )
            broadcast([ws], text)

    async def phone(self, ws):
        url = urlsplit(ws.request.path)
        m = WS.match(url.path)
        if m is None:
            await ws.close(4404)
            return
        party = int(m[1])
        query = parse_qs(url.query)
        if query.get("phone", [""])[0].isdigit():
            self.phone_ids[ws] = int(query["phone"][0])
        tables = [
            int(n)
            for v in parse_qs(url.query).get("tables", [])
            for n in v.split(",")
            if n.isdigit()
        ]
        sets = [self.party_phones[party]] + [self.table_phones[(party, n)] for n in tables]
        for s in sets:
            s.add(ws)
        try:
            async for message in ws:
                if message == "ping":
                    await ws.send("pong")
        finally:
            for s in sets:
                s.discard(ws)
            self.phone_ids.pop(ws, None)


async def main(port, html_bytes):
    hub = Hub(html_bytes)
    server = await rawhttp.serve(hub.http, "127.0.0.1", port)
    async with serve(hub.phone, "127.0.0.1", port + 1, compression=None, max_queue=None):
        async with server:
            await asyncio.Future()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=8101)
    parser.add_argument("--html-bytes", type=int, default=1500)
    args = parser.parse_args()
    asyncio.run(main(args.port, args.html_bytes))
