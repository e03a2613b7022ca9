"""A phone's websocket side (`Watcher`), doing what static/parties/live.js does, and the check
that what it shows is what the database holds (`assert_phone_shows_db`)."""

import json
import re
import threading
import time

from tests.faults.phone import shown
from tests.waiting import wait_until


class Watcher:
    """A phone's websocket side, doing what static/parties/live.js does: apply a pushed table
    fragment when its version is newer, resync (GET the live region) when the round differs,
    on a party-wide message with a newer seq, and after every reconnect (backing off)."""

    def __init__(self, phone, tables):
        self.phone = phone
        self.tables = list(tables)
        self.view = {}  # table -> shown(...)
        self.messages = []  # every JSON message received
        self.last_seq = 0
        self.live_round = None  # the round the page's live region is of
        self.opened = 0
        self.changed = threading.Condition()
        self.resyncing = threading.Lock()
        self.stopping = threading.Event()
        self.socket = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self.thread.start()
        self.wait(lambda: self.opened >= 1, 15, "the websocket to open")
        return self

    def stop(self):
        self.stopping.set()
        if self.socket is not None:
            try:
                self.socket.close()
            except Exception:  # noqa: BLE001, S110 - already closing
                pass
        self.thread.join(10)

    def wait(self, condition, timeout, what):
        deadline = time.monotonic() + timeout
        with self.changed:
            while not condition():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"timed out after {timeout} s waiting for {what}; "
                                         f"view={self.view} last messages={self.messages[-5:]}")
                self.changed.wait(min(left, 0.2))

    def _notify(self):
        with self.changed:
            self.changed.notify_all()

    def resync(self):
        # One at a time (the socket's thread and the bell's timer both resync), so a slower
        # fetch never lands after a fresher one, as the page's single thread never does.
        with self.resyncing:
            self._resync()

    def _resync(self):
        for table in self.tables:
            html = self.phone.live_region(table)
            live = re.search(r'<div id="live" data-seq="(\d+)" data-round="(\d+)"', html)
            with self.changed:
                if live:
                    self.last_seq = max(self.last_seq, int(live.group(1)))
                    self.live_round = int(live.group(2))
                self.view[table] = shown(html, table)
                self.changed.notify_all()

    def _run(self):
        from websockets.sync.client import connect

        server = self.phone.server
        url = (f"ws://127.0.0.1:{server.port}/ws/parties/{self.phone.party.id}/"
               f"?tables={','.join(map(str, self.tables))}")
        attempts = 0
        while not self.stopping.is_set():
            try:
                with connect(url, origin=server.url, open_timeout=5, additional_headers={
                        "Cookie": f"sessionid={self.phone.cookie('sessionid')}"}) as socket:
                    self.socket = socket
                    attempts = 0
                    self.resync()  # the first open, or anything missed while away
                    with self.changed:
                        self.opened += 1
                        self.changed.notify_all()
                    for text in socket:
                        self._receive(text)
            except Exception:  # noqa: BLE001, S110 - a dead server, a reset: reconnect, as phones do
                pass
            self.socket = None
            if self.stopping.is_set():
                return
            self.stopping.wait(min(2.0, 0.1 * 2 ** attempts))
            attempts += 1

    def _receive(self, text):
        """live.js receive(), rule for rule."""
        if text == "pong":
            return
        message = json.loads(text)
        with self.changed:
            self.messages.append(message)
            self.changed.notify_all()
        if message["type"] == "table":
            self._apply_table(message)
            return
        if message["type"] == "resync":
            self.resync()  # pushes were lost on the server's side; no reconnect
            return
        if message["seq"] <= self.last_seq:
            return  # already seen, or older than what we fetched
        self.last_seq = message["seq"]
        if message["type"] == "bell":
            # The tables' updates follow the bell; a table still shown from before the bell
            # 3 s later is fetched.
            timer = threading.Timer(BELL_UPDATES_WAIT, self._resync_if_before_bell)
            timer.daemon = True
            timer.start()
            return
        self.resync()

    def _apply_table(self, message):
        current = self.view.get(message["table"])
        if current is None:
            return
        if message["round"] != current["round"]:
            self.resync()
            return
        bell_news = message["bell"] and not current["bell"]
        if message["version"] < current["version"] or (
            message["version"] == current["version"] and not bell_news
        ):
            return
        with self.changed:
            self.view[message["table"]] = shown(message["html"], message["table"])
            self.changed.notify_all()

    def _resync_if_before_bell(self):
        if not self.stopping.is_set() and any(
            view and not view["bell"] for view in self.view.values()
        ):
            try:
                self.resync()
            except (OSError, AssertionError):
                pass  # the server is down (a fault test): the reconnect resyncs, as on the page


BELL_UPDATES_WAIT = 3.0  # live.js


def assert_phone_shows_db(watcher, db, party_id, timeout=20):
    """Every table the watcher shows reaches exactly what the database's rows say (between
    rounds, when the next round waits to start, the page shows no table at all)."""
    for table in watcher.tables:
        def matches(table=table):
            view = watcher.view.get(table)
            if db.current_round(party_id)[2] != "playing":
                return view is None
            truth = db.truth(party_id, table)
            return view is not None and all(view[k] == truth[k] for k in truth)

        try:
            wait_until(matches, timeout, f"the phone to show table {table} as the database")
        except AssertionError:
            raise AssertionError(
                f"table {table}: phone shows {watcher.view.get(table)}, database says "
                f"{db.truth(party_id, table)}; the phone's last messages: "
                f"{[{k: v for k, v in m.items() if k != 'html'} for m in watcher.messages[-8:]]}"
            ) from None

