"""What importing a party file costs the process that reads it: memory, and how long that
process leaves other requests waiting, for the largest files the import page accepts.

    .venv/bin/python -m bench.import_cost [--runs 3] [--mb 32]

One daphne process in production settings (a fresh PostgreSQL database and Redis, as
bench.fixtures makes them). Each file is uploaded to /parties/import/ as a browser sends it,
`--runs` times; meanwhile the process's resident memory is read from /proc every 10 ms, and a
second client asks /healthz every 20 ms. One JSON line per file, with the worst of its runs:

- `rss_rise_mb`: the process's highest RSS during the upload above what it held before it;
- `pong_worst_ms`: the longest a phone's websocket waited for the pong to a ping sent every
  20 ms while the upload ran: the event loop that sends the pushes, held up;
- `healthz_worst_ms`: the longest answer to /healthz meanwhile (a whole request: the loop and a
  request thread);
- `seconds`: the upload's whole time, and `status`, the answer (302 imported, 400 refused).

The files, each about `--mb` MB (the cap, settings.IMPORT_MAX_BYTES):
- `one_column_rows`, `empty_lists`: the shapes a security review built (2.9 GB and 1.1 GB of
  memory when the import parsed the whole file);
- `rows_written`: a real party's file grown with dismissed late rolls to the cap, every row
  checked and written (the heaviest file the import accepts);
- `refused_at_the_end`: the same with a table this server does not know at its end, so every
  row is written and then rolled back.
A first line gives the same worsts over 10 s with no upload, the machine's own noise. It is
not a test: it measures, and asserts nothing but that each answer is the expected one.
"""

import argparse
import http.client
import json
import secrets
import sys
import threading
import time
import uuid

from websockets.sync.client import connect

from bench.fixtures import create_database, make_parties, server_env, setup_django
from bench.servers import Daphne, prepare


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Watch:
    """Samples the server's RSS and the time /healthz takes, in two threads, until stopped."""

    def __init__(self, server, socket_of):
        self.server = server
        self.socket_of = socket_of  # (party id, cookie) of a phone whose socket is pinged
        self.stopped = threading.Event()
        self.peak_kb = 0
        self.worst_s = 0.0
        self.worst_pong_s = 0.0
        self.start = time.monotonic()
        self.slow = []  # (seconds into the upload, how long /healthz took), over 100 ms

    def __enter__(self):
        self.threads = [
            threading.Thread(target=f) for f in (self._memory, self._health, self._socket)
        ]
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc):
        self.stopped.set()
        for thread in self.threads:
            thread.join()

    def _memory(self):
        while not self.stopped.is_set():
            self.peak_kb = max(self.peak_kb, rss_kb(self.server.pid))
            time.sleep(0.01)

    def _socket(self):
        """A phone's socket, pinged every 20 ms: its pong comes from the event loop that sends
        the pushes."""
        party_id, cookie = self.socket_of
        with connect(f"ws://127.0.0.1:{self.server.port}/ws/parties/{party_id}/",
                     additional_headers={"Cookie": cookie, "Origin": self.server.url}) as socket:
            socket.recv(timeout=10)  # the hello
            while not self.stopped.is_set():
                start = time.monotonic()
                socket.ping().wait(30)
                self.worst_pong_s = max(self.worst_pong_s, time.monotonic() - start)
                time.sleep(0.02)

    def _health(self):
        connection = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=60)
        while not self.stopped.is_set():
            start = time.monotonic()
            connection.request("GET", "/healthz", headers={"Host": "127.0.0.1"})
            connection.getresponse().read()
            took = time.monotonic() - start
            self.worst_s = max(self.worst_s, took)
            if took > 0.1:
                self.slow.append((round(start - self.start, 2), round(took * 1000)))
            time.sleep(0.02)
        connection.close()


def upload(server, content):
    """POST the file as the import form does; the answer's status."""
    csrf = secrets.token_hex(16)
    boundary = uuid.uuid4().hex
    body = b"".join([
        f'--{boundary}\r\nContent-Disposition: form-data; name="csrfmiddlewaretoken"\r\n\r\n'
        f"{csrf}\r\n".encode(),
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="party.json"'
        f"\r\nContent-Type: application/json\r\n\r\n".encode(),
        content,
        f"\r\n--{boundary}--\r\n".encode(),
    ])
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=600)
    connection.request("POST", "/parties/import/", body=body, headers={
        "Host": f"127.0.0.1:{server.port}", "Cookie": f"csrftoken={csrf}", "Origin": server.url,
        "Content-Type": f"multipart/form-data; boundary={boundary}",
    })
    answer = connection.getresponse()
    answer.read()
    connection.close()
    return answer.status


def party_file_grown_to(size):
    """A real party's file (12 players, round 1 played a little), grown with dismissed late
    rolls to about `size` bytes."""
    from parties.exchange import exports
    from parties.models import LateTap, Round
    from parties.services.party import party_create
    from parties.services.round import round_start
    from parties.views.files import document_json
    from scoring import PRESETS

    party = party_create(name="Import bench", player_names=[f"P{n}" for n in range(12)],
                         preset="standard", rules=PRESETS["standard"])
    round_start(party=party)
    round_ = Round.objects.get(party=party, status="playing")
    table = party.tables.get(number=1)
    LateTap.objects.create(party=party, round=round_, table=table, tap_id=uuid.uuid4(),
                           fields={"dice": [1, 2, 3], "outcome": "", "face": None,
                                   "called": None, "seen": 0, "bell_seen": True},
                           description="nothing for P0", entered_by="table 1",
                           status="dismissed")
    document = exports.party_document(party)
    late = document["models"]["parties.latetap"]
    template = late["rows"][0]
    tap_id = late["columns"].index("tap_id")
    text = document_json(document)
    row_bytes = len(json.dumps(template)) + 6
    for n in range(1, (size - len(text)) // row_bytes):
        row = list(template)
        row[0] = template[0] + n
        row[tap_id] = str(uuid.uuid4())
        late["rows"].append(row)
    return document


def files(size):
    from parties.views.files import document_json

    head = b'{"format":"bunco-night-party","version":1,"models":{"parties.party":'
    rows = (size - 200) // 4
    grown = party_file_grown_to(size)
    written = document_json(grown).encode()
    grown["models"]["parties.unknown"] = {"columns": ["id"], "rows": []}
    return {
        "one_column_rows": (head + b'{"columns":["id"],"rows":[' + b",".join([b"[1]"] * rows)
                            + b"]}}}", 400),
        "empty_lists": (b"[" + b",".join([b"[]"] * (size // 3)) + b"]", 400),
        "rows_written": (written, 302),
        "refused_at_the_end": (document_json(grown).encode(), 400),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--mb", type=float, default=32)
    parser.add_argument("--files", nargs="*", help="only these files (their names above)")
    args = parser.parse_args(argv)
    database = create_database()
    try:
        env = server_env(database)
        env["PARTY_CREATE_MAX_PER_ADDRESS"] = "1000"
        prepare(env)
        setup_django(env)
        size = int(args.mb * 1024 * 1024) - 70_000  # the cap less the form around the file
        made = files(size)
        phone = make_parties(1, 12)[0]
        socket_of = (phone["id"], phone["host_cookie"])
        server = Daphne(env).start()
        try:
            with Watch(server, socket_of) as idle:  # nothing to import, for comparison
                time.sleep(10)
            print(json.dumps({"file": None, "healthz_worst_ms": round(idle.worst_s * 1000, 1),
                              "pong_worst_ms": round(idle.worst_pong_s * 1000, 1),
                              "seconds": 10}), flush=True)
            for name, (content, expected) in made.items():
                if args.files and name not in args.files:
                    continue
                runs = []
                for _ in range(args.runs):
                    before = rss_kb(server.pid)
                    start = time.monotonic()
                    with Watch(server, socket_of) as watch:
                        status = upload(server, content)
                    seconds = time.monotonic() - start
                    assert status == expected, (name, status)
                    if watch.slow:
                        print(f"  {name}: /healthz over 100 ms at (s, ms): {watch.slow}",
                              file=sys.stderr)
                    runs.append({"rss_rise_mb": (watch.peak_kb - before) / 1024,
                                 "healthz_worst_ms": watch.worst_s * 1000,
                                 "pong_worst_ms": watch.worst_pong_s * 1000,
                                 "seconds": seconds})
                print(json.dumps({
                    "file": name, "mb": round(len(content) / 2**20, 1), "status": expected,
                    "runs": args.runs,
                    **{key: round(max(r[key] for r in runs), 1) for key in runs[0]},
                    "rss_rise_mb_each": [round(r["rss_rise_mb"], 1) for r in runs],
                    "server_rss_mb_after": round(rss_kb(server.pid) / 1024, 1),
                }), flush=True)
        finally:
            server.stop()
    finally:
        database.drop()


if __name__ == "__main__":
    main()
