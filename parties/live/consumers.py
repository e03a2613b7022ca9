"""The websocket: it only pushes. A phone joins its party's group and the groups of the
tables it shows; writes travel over HTTP."""

import json
import logging
import re
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from importlib import import_module

from channels.db import DatabaseSyncToAsync
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings

from bunco_site.fast import socket_loop
from parties import access
from parties.converters import IdConverter
from parties.live import languages, layer_watch
from parties.live.announce import host_group, party_group, table_group
from parties.models import Party, Round

logger = logging.getLogger(__name__)
VIEW = re.compile(r"(table|player)-[0-9]{1,18}")
# A number in the query string: ASCII digits, few enough for int() to read ("9" * 5000 passes
# str.isdigit() and int() refuses it; so does "²"). Anything else is ignored, as `tables=abc`.
NUMBER = re.compile(r"[0-9]{1,19}")

# Sockets one session may hold open at once in one server process: settings'
# PARTY_SOCKETS_PER_SESSION. A page holds one; a phone has one or two of the party's pages open,
# the host's laptop a few (the host page, the TV, a table or two), and a page reconnecting may
# briefly hold a second while the server has not yet seen its old one go. One more is refused
# before it is accepted, with this close code (as HTTP's 429). Counted in the process, which
# routing makes the party's: nothing outlives a process, so a killed one leaves no count behind.
TOO_MANY_SOCKETS = 4429
_open_sockets = Counter()  # session key -> its sockets open in this process


# A socket's reads run in a few threads of their own. Channels' database_sync_to_async would run
# every socket's reads in the process's one sync thread, one at a time: after a big party's
# round close hundreds of phones that moved reconnect at once, and a handshake daphne has not
# seen accepted within its timeout is dropped (the phone tries again, later still).
_socket_reads = ThreadPoolExecutor(max_workers=4, thread_name_prefix="socket-read")


def _socket_read(func):
    return DatabaseSyncToAsync(func, thread_sensitive=False, executor=_socket_reads)


@_socket_read
def _grant_and_tables(session, party_id, language):
    """The session's grant at the party and its number of tables; with a grant, the socket's
    `language` is said to be read at the party (parties.live.languages)."""
    party = Party.objects.filter(pk=party_id).first()
    if party is None:
        return None, 0
    grant = access.grant_for(session, party)
    if grant.any:
        languages.say_read(party_id, language)
    return grant, party.tables.count()


_say_read = _socket_read(languages.say_read)


@_socket_read
def _party_now(party_id, round_id):
    """The party's sequence number and the version of the round the page shows (0 if it is
    not one of the party's rounds), read after the socket joined its groups."""
    seq = Party.objects.filter(pk=party_id).values_list("seq", flat=True).first() or 0
    version = (
        Round.objects.filter(pk=round_id, party_id=party_id).values_list("version", flat=True)
        .first() if round_id else None
    )
    return seq, version or 0


@_socket_read
def _still_let_in(session_key, party_id):
    """Whether the session, as stored now, still has access at the party (a revoked link no
    longer counts; a link redeemed since the socket opened does)."""
    party = Party.objects.filter(pk=party_id).first()
    if party is None:
        return False
    session = import_module(settings.SESSION_ENGINE).SessionStore(session_key=session_key)
    return access.grant_for(session, party).any


def _number(value, largest):
    """`value` as a whole number from 1 to `largest`, or None. Its digits are checked before
    int() reads them."""
    if NUMBER.fullmatch(value) is None:
        return None
    number = int(value)
    return number if 1 <= number <= largest else None


class PartyConsumer(AsyncWebsocketConsumer):
    """Async, so fan-out touches no ORM and no per-event connection clean-up: each push is the
    same pre-rendered text for every phone, sent as is."""

    async def __call__(self, scope, receive, send):
        """Channels' loop, or the lean one (bunco_site.fast.socket_loop); however the socket
        ends (disconnect, error, cancel), it stops counting against its session."""
        self.counted = None  # the session key this socket is counted under
        try:
            if socket_loop.in_use():
                await socket_loop.run(self, scope, receive, send)
            else:
                await super().__call__(scope, receive, send)
        finally:
            if self.counted is not None:
                _open_sockets[self.counted] -= 1
                if not _open_sockets[self.counted]:
                    del _open_sockets[self.counted]

    async def connect(self):
        party_id = self.scope["url_route"]["kwargs"]["party_id"]
        session = self.scope["session"]
        self.language = languages.of_headers(self.scope.get("headers", ()))
        self.language_said = time.monotonic()
        grant, table_count = await _grant_and_tables(session, party_id, self.language)
        if grant is None or not grant.any:
            await self.close(code=4403)
            return
        cap = settings.PARTY_SOCKETS_PER_SESSION
        if _open_sockets[session.session_key] >= cap:
            logger.info("a session holds %s sockets here: one more refused", cap)
            await self.close(code=TOO_MANY_SOCKETS)
            return
        self.counted = session.session_key
        _open_sockets[self.counted] += 1
        self.party_id = party_id
        self.view = self._view()
        self.close_shown = None  # the seq of the last round close whose view this page took
        self.link_ids = frozenset(self.scope["session"].get(access.SESSION_LINKS, []))
        self.groups = [party_group(party_id)] + [
            table_group(party_id, n, self.language) for n in self._tables(table_count)
        ]
        if grant.host:
            self.groups.append(host_group(party_id))
        for group in self.groups:
            await self.channel_layer.group_add(group, self.channel_name)
        await self.accept()
        layer_watch.watch(self)  # told to resync when this process's subscriptions recover
        # What was announced between the page's render and joining the groups reached nobody:
        # the page compares these with what it rendered and refetches if it missed anything.
        seq, version = await _party_now(party_id, self._query_int("round"))
        await self.send(text_data=json.dumps({"type": "hello", "seq": seq, "version": version}))

    def _query(self, key):
        """The values of `key` in the socket's query string (?tables=1,2&round=7), as sent:
        not unquoted; bytes that are not UTF-8 (a client may send any) read as U+FFFD."""
        for part in self.scope.get("query_string", b"").decode("utf-8", "replace").split("&"):
            name, _, value = part.partition("=")
            if name == key:
                yield value

    def _query_int(self, key, largest=IdConverter.MAX):
        """The first value of `key` if it is a whole number from 1 to `largest`, else None (a
        row id by default: at most the database's bigint)."""
        return _number(next(self._query(key), ""), largest)

    def _view(self):
        """The page's view (its `data-view`: table-3, player-12), if it said one."""
        value = next(self._query("view"), "")
        return value if VIEW.fullmatch(value) else None

    def _tables(self, table_count):
        # Anyone at the party may watch any table: scores are public at a Bunco party.
        wanted = {_number(n, table_count) for value in self._query("tables")
                  for n in value.split(",")}
        return sorted(wanted - {None})

    async def disconnect(self, code):
        layer_watch.forget(self)
        for group in getattr(self, "groups", []):
            await self.channel_layer.group_discard(group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        if text_data == "ping":  # the phone's heartbeat: a dead socket shows as a missing pong
            await self.send(text_data="pong")
            if time.monotonic() - self.language_said > languages.SAY_AGAIN_EVERY:
                self.language_said = time.monotonic()  # in case the cache lost it
                await _say_read(self.party_id, self.language)

    async def push(self, event):
        """Sent as is, but the party-wide message of a round's close (`unless_shown`) only to
        a page that did not take its new seat from its table's event (`close_seats`)."""
        if "unless_shown" in event and event["unless_shown"] == self.close_shown:
            return
        await self.send(text_data=event["text"])

    async def close_seats(self, event):
        """A round closed at a table this page watches: the event carries the message of each
        page there (parties.live.announce.on_commit_close); this page is sent its own, by its
        view, if the table's pages include it; else the party-wide message that follows."""
        text = event["texts"].get(self.view)
        if text is None:
            return
        self.close_shown = event["shows_close"]
        await self.send(text_data=text)

    async def links_revoked(self, event):
        """Links of this party were revoked: a socket let in by one of them closes unless the
        session still has access (the page reconnects and is refused). Only the sockets that
        used one of those links read the database."""
        if self.link_ids.isdisjoint(event["links"]):
            return
        if not await _still_let_in(self.scope["session"].session_key, self.party_id):
            await self.close(code=4403)
