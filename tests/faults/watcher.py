"""A phone's page kept live over its websocket (`Watcher`), doing what static/parties/live.js
does, and the check that what it shows is what the database holds (`assert_phone_shows_db`).
The rules are bench/phone's (pushes.py: what each push makes the page do); this is their
shell: a thread on a `websockets` socket, timers, and the test phone's HTTP side."""

import json
import random
import threading
import time

from bench.phone import (
    APPLY,
    BELL,
    BELL_UPDATES_WAIT,
    NEXT_SEAT,
    PING,
    PING_EVERY,
    PONG,
    PONG_WITHIN,
    REFETCH_EVERY,
    RESYNC,
    TABLE,
    LivePage,
    live_region,
    next_seat_delay,
    reconnect_delay,
    socket_path,
    table_news,
    table_shown,
)
from bench.waiting import wait_until


class Watcher:
    """The page the phone's link opened (`phone.page`: a table's page, or the host's
    dashboard), kept live as live.js keeps it: loaded first, then a socket on the tables the
    page names (its #live data-tables), which only pushes; its first message, the hello,
    refetches if the page missed a change before the socket joined. A table's update is applied when
    newer (the host's dashboard then refetches, at most once a second); a different round, a
    `resync`, or a party-wide message with a newer seq refetches the live region; the bell
    refetches only a table still shown from before it 3 s later; a round's close shows the
    page's next seat from the message itself (its `data-view`'s piece) and refetches a moment
    later. The socket pings every 15 s and reconnects after any close, backing off as the page
    does, and refetches once reopened. `tables`: the tables the test reads off the page."""

    def __init__(self, phone, tables):
        self.phone = phone
        self.tables = list(tables)
        self.view = {}  # table -> table_shown(...)
        self.next_seat = None  # the piece a round's close pushed to this page
        self.messages = []  # every JSON message received
        self.page = LivePage(phone.view)  # what live.js remembers between pushes
        self.live_round = None  # the round the page's live region is of
        self.live_tables = ""  # the tables the live region names (the socket watches them)
        self.subscribed = ""  # the tables the socket was opened for
        self.opened = 0
        self.refetches = 0
        self.changed = threading.Condition()
        self.resyncing = threading.Lock()
        self.refetch_due = None  # the host dashboard's next refetch, once one is asked for
        self.last_refetch = 0.0
        self.stopping = threading.Event()
        self.socket = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self._show(self.phone.request("GET", self.phone.page).body)  # the page as it loads
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

    # --- the page: what it shows, and refetching it ------------------------------------

    def resync(self):
        # One at a time (the socket's thread and the timers all resync), so a slower fetch
        # never lands after a fresher one, as the page's one refetch at a time never does.
        with self.resyncing:
            self.refetches += 1
            self._show(self.phone.refetch(self.phone.page))
        if self.live_tables != self.subscribed:
            self._close_socket()  # a player moved tables: reconnect to watch the new one

    def _show(self, page):
        region = live_region(page)
        with self.changed:
            if region:
                self.page.refetched(region)
                self.live_round, self.live_tables = region.round, region.tables
            for table in self.tables:
                self.view[table] = table_shown(page, table)
            self.changed.notify_all()

    def _later(self, seconds, call):
        def run():
            if self.stopping.is_set():
                return
            try:
                call()
            except (OSError, AssertionError):
                pass  # the server is down (a fault test): the reconnect resyncs, as on the page

        timer = threading.Timer(seconds, run)
        timer.daemon = True
        timer.start()

    def _refetch_soon(self):
        """The host's roll list follows the rolls: one refetch a second at most."""
        if self.refetch_due is not None:
            return  # one is already due: it fetches everything up to then
        self.refetch_due = max(time.monotonic(), self.last_refetch + REFETCH_EVERY)

        def refetch():
            self.refetch_due, self.last_refetch = None, time.monotonic()
            self.resync()

        self._later(self.refetch_due - time.monotonic(), refetch)

    # --- the socket ----------------------------------------------------------------------

    def _run(self):
        from websockets.sync.client import connect

        server = self.phone.server
        attempts = 0
        while not self.stopping.is_set():
            self.subscribed = self.live_tables
            url = f"ws://127.0.0.1:{server.port}" + socket_path(
                self.phone.party.id, self.subscribed, self.live_round or "", self.phone.view or "")
            try:
                # The browser's own protocol pings are none: the page's heartbeat is its own.
                with connect(url, origin=server.url, open_timeout=5, ping_interval=None,
                             additional_headers={"Cookie": self.phone.cookie_header()}) as socket:
                    self.socket = socket
                    attempts = 0
                    if self.opened:
                        self.resync()  # anything may have happened while we were away
                    with self.changed:
                        self.opened += 1
                        self.changed.notify_all()
                    self._listen(socket)
            except Exception:  # noqa: BLE001, S110 - a dead server, a reset: reconnect, as phones do
                pass
            self.socket = None
            if self.stopping.is_set():
                return
            self.stopping.wait(reconnect_delay(attempts, random.random()))
            attempts += 1

    def _listen(self, socket):
        """Receive until the socket closes, with live.js's heartbeat: "ping" every 15 s, and
        the socket closed if no "pong" comes within 10 s."""
        ping_at, pong_by = time.monotonic() + PING_EVERY, None
        while True:
            now = time.monotonic()
            if pong_by is not None and now >= pong_by:
                socket.close()
                return
            if now >= ping_at:
                socket.send(PING)
                ping_at, pong_by = now + PING_EVERY, now + PONG_WITHIN
            due = min(ping_at, pong_by or ping_at)
            try:
                text = socket.recv(timeout=max(0.01, due - time.monotonic()))
            except TimeoutError:
                continue
            if text == PONG:
                pong_by = None
                continue
            self._receive(text)

    def _close_socket(self):
        socket = self.socket
        if socket is not None:
            socket.close()  # the socket's thread reconnects, with the page's tables

    def _receive(self, text):
        """live.js receive(): bench/phone's LivePage says what the push does."""
        try:
            message = json.loads(text)
        except ValueError:
            return
        with self.changed:
            self.messages.append(message)
            self.changed.notify_all()
        reaction = self.page.receive(message)
        if reaction.action == RESYNC:
            self.resync()  # (a `resync` push: pushes were lost on the server's side)
        elif reaction.action == TABLE:
            self._apply_table(message)
        elif reaction.action == NEXT_SEAT:
            self._show_next_seat(message, reaction.piece)
        elif reaction.action == BELL:
            self._later(BELL_UPDATES_WAIT, self._resync_if_before_bell)

    def _apply_table(self, message):
        news = table_news(message, self.view.get(message["table"]))
        if news == RESYNC:
            self.resync()
        if news != APPLY:
            return  # (a big party's host grid refetches here: the fault tests' are small)
        with self.changed:
            self.view[message["table"]] = table_shown(message["html"], message["table"])
            self.changed.notify_all()
        if self.phone.refetch_on_table:
            self._refetch_soon()

    def _show_next_seat(self, message, piece):
        """A round closed: this page's piece of the message (by its data-view) shows where to
        sit next at once; the rest of the page is refetched at a moment of its own, after
        `refetch_after` seconds and within `refetch_within` more."""
        with self.changed:
            self.next_seat = piece  # {"html"} for a table's page, {"where"} for a player's
            self.live_tables = piece["tables"]
            self.changed.notify_all()
        self._later(next_seat_delay(message, random.random()), self._after_close)

    def _after_close(self):
        if self.live_tables != self.subscribed:
            self._close_socket()  # moved tables: the reopened socket refetches
        else:
            self.resync()

    def _resync_if_before_bell(self):
        if any(view and not view["bell"] for view in self.view.values()):
            self.resync()


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

