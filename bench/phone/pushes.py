"""The page's websocket (static/parties/live.js): it only pushes, and whenever the page may
have missed something it resyncs (refetches its live region) rather than patch itself.

The socket watches the tables its page names. Its first message, the hello, gives the party's
seq and the shown round's version now that the socket hears every change: a page rendered
before a change it was not there to hear resyncs. A table's update is applied when newer; of
another round, it resyncs. `resync` (pushes lost on the server's side) resyncs. A round's
close carries each page's next seat (by the page's data-view: pieces of a table's page, a
player's seat as data), shown at once and refetched a moment later. Any other message with a
seq past the page's own resyncs (the bell only later, if a table's update after it went
missing). The page pings, reconnects after any close with a
jittered back-off, and resyncs once reopened.
"""

from typing import NamedTuple
from urllib.parse import quote

from bench.phone.fetch import URI_COMPONENT_SAFE

PING, PONG = "ping", "pong"
PING_EVERY, PONG_WITHIN = 15.0, 10.0  # seconds: the heartbeat; no pong, the socket is dead
RECONNECT_FIRST, RECONNECT_MOST = 0.5, 10.0  # seconds, doubling, with +-25% jitter
BELL_UPDATES_WAIT = 3.0  # after the bell, a table still shown from before it is refetched
REFETCH_EVERY = 1.0  # the host's dashboard refetches at most this often on table updates

IGNORE, RESYNC, TABLE, NEXT_SEAT, BELL = "ignore", "resync", "table", "next_seat", "bell"
APPLY = "apply"  # table_news(): show the pushed table


def socket_path(party_id, tables, round_id=None, view=None):
    """The socket's address (path and query): the tables it watches ("1,2"), and as the page
    sends them the round it shows and its view (which of a close's messages it takes). A part
    left None is not sent (the server takes none as empty)."""
    query = f"tables={tables}"
    if round_id is not None:
        query += f"&round={round_id}"
    if view is not None:
        query += f"&view={quote(view, safe=URI_COMPONENT_SAFE)}"
    return f"/ws/parties/{party_id}/?{query}"


def reconnect_delay(attempts, jitter):
    """Seconds before reconnecting after `attempts` failed ones in a row; `jitter` in [0, 1)."""
    return min(RECONNECT_MOST, RECONNECT_FIRST * 2**attempts) * (0.75 + jitter / 2)


def next_seat_delay(message, jitter):
    """Seconds after a round's close before its page refetches: after `refetch_after`, at a
    moment of its own within `refetch_within` more (the close is still going out until then)."""
    return (message.get("refetch_after") or 0) + jitter * (message.get("refetch_within") or 0)


def table_news(message, shown):
    """What a pushed table does to the page showing `shown` of it (page.table_shown()):
    APPLY when newer (a later version, or the same one now that the bell has rung), RESYNC when
    of another round, IGNORE when older or not on the page."""
    if shown is None:
        return IGNORE  # (a big party's host grid refetches instead: refetch_on_table)
    if message["round"] != shown["round"]:
        return RESYNC
    bell_news = bool(message.get("bell")) and not shown["bell"]
    if message["version"] < shown["version"] or (
        message["version"] == shown["version"] and not bell_news
    ):
        return IGNORE
    return APPLY


class Reaction(NamedTuple):
    """What the page does with a push: `action`, and for NEXT_SEAT the page's piece of the
    close: a table's page {"html", "tables"}, its pieces by id; a player's page
    {"where", "tables"}, its seat as data (page.where_shown() reads the same off a page)."""

    action: str
    piece: dict | None = None


class LivePage:
    """What live.js remembers between pushes: the last seq it has seen (pushed or fetched),
    whether the hello was compared, and the round version its live region shows. `refetched`
    after every load or resync; `receive` for every push but a pong."""

    def __init__(self, view=""):
        self.view = view or ""
        self.last_seq = 0
        self.greeted = False
        self.round_version = 0

    def refetched(self, region):
        """The page (or its live region) was fetched: its page.LiveRegion, or None."""
        if region is not None:
            self.last_seq = max(self.last_seq, region.seq)
            self.round_version = region.round_version

    def receive(self, message):
        """live.js receive(), rule for rule: the Reaction to one parsed message."""
        kind = message.get("type")
        if kind == "hello":
            return Reaction(RESYNC if self._hello_news(message) else IGNORE)
        if kind == "table":
            return Reaction(TABLE)
        if kind == "resync":
            return Reaction(RESYNC)
        if kind == "round" and message.get("views") is not None:  # as JS: an empty {} is truthy
            return self._next_seat(message)
        if message.get("seq", 0) <= self.last_seq:
            return Reaction(IGNORE)  # already seen, or older than what was fetched
        self.last_seq = message["seq"]
        return Reaction(BELL if kind == "bell" else RESYNC)

    def _hello_news(self, message):
        if self.greeted:
            return False  # a reopened socket resyncs anyway
        self.greeted = True
        return message["seq"] > self.last_seq or message["version"] > self.round_version

    def _next_seat(self, message):
        piece = message["views"].get(self.view)
        if not piece or message["seq"] <= self.last_seq:
            return Reaction(IGNORE)  # not this page's (the party-wide message is), or old
        self.last_seq = message["seq"]
        return Reaction(NEXT_SEAT, piece)
