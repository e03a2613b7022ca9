"""Pushes to the phones, sent only after the write commits. Each update is rendered or
serialised once for each language the party's phones read (parties.live.languages; once, where
they all read the default), and the same bytes go to every phone that shows it in that
language (docs/performance.md).

The database is the truth and a push is only a hint: a push that cannot be sent (Redis down)
is logged, never turned into an error for a write that has already been saved, and once the
channel layer answers again the party's phones are told to refetch what they missed.

That covers what the writer sees fail. A push published while a server process's own subscriptions
are broken is lost there with no error anywhere; each process finds that out for itself and resyncs
its own sockets (parties.live.layer_watch). Neither covers the other: after a Redis restart the
writer's resync may go out before the other processes listen again, and a writer whose publish
failed (its connection dropped, Redis away for less than a canary's interval, a process without
sockets) leaves the subscribers nothing to notice.
"""

import asyncio
import contextlib
import json
import logging
import threading
import time

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.utils import translation

from bunco_site.fast import layer_batch
from parties.live import languages
from parties.pages import fragments

logger = logging.getLogger(__name__)
RECOVERY_INTERVAL = 1.0  # seconds between attempts to reach the channel layer again
RECOVERY_GIVE_UP = 600  # after that, the phones' own periodic resync catches them up

_lost_parties = set()  # parties whose pushes failed since the layer last answered
_lost_events = {}  # party id -> events that must still reach its sockets (a revoke, say)
_lost_lock = threading.Lock()
_lost_wake = threading.Event()
_recovery_thread = None


def party_group(party_id):
    return f"party-{party_id}"


def host_group(party_id):
    """The party's host pages' sockets: what only the host page shows (a guest waiting to be
    seated) is told to them alone, not to every phone of the party."""
    return f"party-{party_id}-host"


def table_group(party_id, number, language=None):
    """The group of a table's phones that read `language` (the default's keeps the plain name):
    what a table's phones are sent carries text (parties.live.languages)."""
    if language is None or language == languages.default():
        return f"party-{party_id}-table-{number}"
    return f"party-{party_id}-table-{number}-{language}"


def _send(party_id, group, message):
    _send_text(party_id, group, json.dumps(message, separators=(",", ":")))


def _send_text(party_id, group, text):
    _run(send_text(party_id, group, text))


# A write's pushes run after its commit, in the write's thread, and are sent on the server's
# event loop. Django's views find that loop through sync_to_async; the tap's worker threads
# (parties.taps) are handed it, and name it here for the length of the tap. A tap's table
# updates (nearly every push) are rendered in its thread and handed back in an outbox, which
# the tap sends on the loop before it answers: no hop back into the thread per push.
_thread = threading.local()


@contextlib.contextmanager
def sending_through(loop):
    """Pushes made in this thread meanwhile are sent on `loop` (the server's running loop);
    tables' updates are left in the outbox this yields, for the caller to `send_outbox` on the
    loop."""
    _thread.loop, _thread.outbox = loop, []
    try:
        yield _thread.outbox
    finally:
        _thread.loop = _thread.outbox = None


async def send_outbox(outbox):
    for party_id, pushes in outbox:
        await _send_all(party_id, pushes)


def _run(coroutine):
    """Run a push coroutine on the server's loop from a write's thread, and wait for it."""
    loop = getattr(_thread, "loop", None)
    if loop is None:
        return async_to_sync(_awaited)(coroutine)
    if _thread.outbox:  # what was left for the tap to send goes first: pushes keep their order
        pending = list(_thread.outbox)
        _thread.outbox.clear()
        asyncio.run_coroutine_threadsafe(send_outbox(pending), loop).result()
    return asyncio.run_coroutine_threadsafe(coroutine, loop).result()


async def _awaited(coroutine):
    return await coroutine


async def send_text(party_id, group, text, routing=None):
    """Push `text` to the group (`routing`: what the sockets choose by, parties.live.consumers);
    False if the layer failed (the party will be told to resync)."""
    try:
        await get_channel_layer().group_send(group, _push_event(text, routing))
    except Exception:  # the write is saved; only this hint is lost
        logger.exception("push to %s failed; its phones will be told to resync", group)
        _remember_lost(party_id)
        return False
    return True


def _push_event(text, routing=None):
    return {"type": "push", "text": text, **(routing or {})}


async def send_event(party_id, group, event):
    """An event for the consumers themselves (not a push), sent again once the layer answers
    if it cannot be sent now."""
    try:
        await get_channel_layer().group_send(group, event)
    except Exception:  # the write is saved; the event goes out with the party's resync
        logger.exception("%s to %s failed; it will be sent again", event["type"], group)
        _remember_lost(party_id, event)
        return False
    return True


def on_commit_links_revoked(party_id, link_ids):
    """After the revoking commit: every socket of the party that only these links let in is
    closed (PartyConsumer.links_revoked); its page reconnects and is refused."""
    event = {"type": "links.revoked", "links": sorted(link_ids)}
    transaction.on_commit(lambda: _run(send_event(party_id, party_group(party_id), event)))


def _remember_lost(party_id, event=None):
    global _recovery_thread
    with _lost_lock:
        _lost_parties.add(party_id)
        if event is not None:
            _lost_events.setdefault(party_id, []).append(event)
        if _recovery_thread is None:
            _recovery_thread = threading.Thread(
                target=_recover, name="bunco-push-recovery", daemon=True
            )
            _recovery_thread.start()
    _lost_wake.set()


def _recover():
    """One thread, with one event loop (so one channel-layer connection), started at the first
    lost push: once the layer answers, it sends each party whose pushes were lost the events
    that failed (in order), then tells it to resync.
    The resync reaches the processes that listen at that moment; one that listens again only
    later resyncs its own sockets when it does (parties.live.layer_watch)."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    layer = get_channel_layer()
    resync = {"type": "push", "text": json.dumps({"type": "resync"})}
    while True:
        _lost_wake.wait()
        deadline = time.monotonic() + RECOVERY_GIVE_UP
        while time.monotonic() < deadline:
            time.sleep(RECOVERY_INTERVAL)
            with _lost_lock:
                pending = set(_lost_parties)
            try:
                for party_id in pending:
                    with _lost_lock:
                        events = _lost_events.pop(party_id, [])
                    try:
                        for message in [*events, resync]:
                            loop.run_until_complete(
                                layer.group_send(party_group(party_id), message)
                            )
                    except Exception:
                        with _lost_lock:  # all again next time: each is harmless twice
                            _lost_events[party_id] = events + _lost_events.get(party_id, [])
                        raise
                    with _lost_lock:
                        _lost_parties.discard(party_id)
            except Exception as error:  # still unreachable: try again shortly
                logger.debug("channel layer still unreachable: %s", error)
                continue
            with _lost_lock:
                if not _lost_parties:
                    break
        with _lost_lock:
            _lost_parties.clear()  # sent, or given up: the phones' periodic resync covers it
            _lost_events.clear()  # and a revoked socket closes when it next reconnects
            _lost_wake.clear()


def table_push(party_id, seq, live_round, number, paused=False, language=None):
    """A table's update as it travels: its group and the one text every phone there that reads
    `language` (by default, the site's) gets (`paused`: the host has paused the game, as a
    correction may be made then)."""
    language = language or languages.default()
    with translation.override(language):
        html = fragments.render_table(
            party_id=party_id, live=live_round, number=number, seq=seq, paused=paused)
    message = {
        "type": "table",
        "seq": seq,
        "round": live_round.round_id,
        "table": number,
        "version": live_round.extras[number - 1].version,
        "bell": live_round.state.bell,
        "html": html,
    }
    return table_group(party_id, number, language), json.dumps(message, separators=(",", ":"))


def on_commit_tables(party, live_round, numbers):
    """The tables' updates, after commit: each rendered once, all sent in one trip to the
    event loop (after a bell, every table of a 100-table party changes at once)."""
    seq, paused = party.seq, party.paused_at is not None
    transaction.on_commit(lambda: _push_tables(party.id, seq, live_round, numbers, paused))


def _push_tables(party_id, seq, live_round, numbers, paused=False):
    pushes = [
        table_push(party_id, seq, live_round, number, paused, language)
        for language in languages.read_at(party_id)
        for number in numbers
    ]
    outbox = getattr(_thread, "outbox", None)
    if outbox is not None:
        outbox.append((party_id, pushes))  # sent on the loop by the tap (parties.taps)
        return
    _run(_send_all(party_id, pushes))


async def _send_all(party_id, pushes):
    """Each push, (group, text) or (group, text, routing), in order, in one trip to Redis
    (bunco_site.fast.layer_batch). False if the layer failed: the party will be told to resync,
    which covers whichever of them were not sent."""
    return await _send_events(
        party_id, [(group, _push_event(text, *routing)) for group, text, *routing in pushes]
    )


async def _send_events(party_id, events):
    """(group, event) pairs, in order, in one trip to Redis; False as `_send_all`."""
    try:
        await layer_batch.send_many(get_channel_layer(), events)
    except Exception:  # the write is saved; only these hints are lost
        logger.exception("pushes to party %s failed; its phones will be told to resync", party_id)
        _remember_lost(party_id)
        return False
    return True


# After a bell every table changes, and in a big party their updates are most of what the
# server sends. The bell goes first, alone: the tables' updates are rendered and sent only once
# it has had time to reach every phone, which takes a little longer for each phone (bench/ S3
# measures it; docs/performance.md has the figures). Rendered at the same moment, the updates
# held the bell up on its way to a big party's last phones. A phone shows the bell's banner at
# once and its table's new phase with the update.
BELL_HEAD_START_PER_PLAYER = 0.000_15  # seconds
BELL_HEAD_START_MAX = 0.1


def bell_head_start(players):
    return min(BELL_HEAD_START_MAX, BELL_HEAD_START_PER_PLAYER * players)


def on_commit_bell(party, round_, by, live_round):
    """The bell to every phone, then every table's update (`live_round`: the round's state
    once the write is done)."""
    message = {"type": "bell", "seq": party.seq, "round": round_.id, "by": by}
    text = json.dumps(message, separators=(",", ":"))
    seq, numbers = party.seq, range(1, len(live_round.seating) + 1)

    def push():
        head_start = bell_head_start(len(live_round.names))
        if not _run(_send_then_wait(party.id, party_group(party.id), text, head_start)):
            return  # the layer is down: the resync once it is back covers the tables
        _push_tables(party.id, seq, live_round, numbers)

    transaction.on_commit(push)


async def _send_then_wait(party_id, group, text, seconds):
    sent = await send_text(party_id, group, text)
    if sent:
        await asyncio.sleep(seconds)
    return sent


def on_commit_close(party, views, *, refetch_after, refetch_within):
    """A round closed: each table group of the closed round gets its phones' new views, in
    each language (`views`: {language: {table: {view: piece}}}, parties.live.close_push), then
    the party-wide message for every other page. Each socket is sent one of them
    (parties.live.consumers): its own view's message from the table's event, if the table's
    pages include its view, else the party-wide one, on which the page refetches.
    The party-wide one is published last, and a process hears one Redis's publishes in order,
    so a socket has taken its table's message before the party-wide one reaches it; were they
    to arrive the other way round, the page would refetch and ignore the table's message (its
    seq is not newer). The tables' events go in one trip to Redis, the party-wide one in the
    next: in one trip, each socket took its seat and dropped the party-wide message in the
    same turn, and the 400 drops held up the sockets still waiting for their seats.

    A table's event carries each of its pages' messages, serialised once here: a phone is
    sent its own page's seat (at a 400-player party 0.2 KB for a player's page, 1.6 KB for the
    table's), not the 2.2 KB of every page at its table, over the room's Wi-Fi. One event to
    the party carrying every table's messages was tried: each socket then deserialises the
    whole event (channels_redis decodes a group message once per channel), and a 400-player
    close took more of the server's CPU, not less (docs/performance.md)."""
    seq = party.seq
    closed = {"type": "round", "seq": seq, "what": "closed"}
    later = {"refetch_after": refetch_after, "refetch_within": refetch_within}

    def seat_message(view, piece):
        return json.dumps({**closed, "views": {view: piece}, **later}, separators=(",", ":"))

    # Serialised now, before the commit: the close writes its rows meanwhile
    # (round_close, close_sql.written_meanwhile).
    seats = [
        (
            table_group(party.id, number, language),
            {
                "type": "close.seats",
                "texts": {view: seat_message(view, piece) for view, piece in pieces.items()},
                "shows_close": seq,
            },
        )
        for language, tables in views.items()
        for number, pieces in tables.items()
        if pieces
    ]
    everyone_else = (
        party_group(party.id),
        json.dumps(closed, separators=(",", ":")),
        {"unless_shown": seq},
    )
    transaction.on_commit(lambda: _run(_send_seats_then(party.id, seats, [everyone_else])))


async def _send_seats_then(party_id, seats, pushes):
    """The close's seats, (group, event), in one trip; once they are sent, `pushes`."""
    if await _send_events(party_id, seats):
        await _send_all(party_id, pushes)


def on_commit_host(party, what):
    """A change only the host's pages show: they refetch, as on a party-wide change."""
    message = {"type": "round", "seq": party.seq, "what": what}
    transaction.on_commit(lambda: _send(party.id, host_group(party.id), message))


def on_commit_round(party, what):
    """A party-wide change (a round started or closed, a pause, a correction): phones refetch."""
    message = {"type": "round", "seq": party.seq, "what": what}
    transaction.on_commit(lambda: _send(party.id, party_group(party.id), message))
