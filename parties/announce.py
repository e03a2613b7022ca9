"""Pushes to the phones, sent only after the write commits. Each update is rendered or
serialised once, and the same bytes go to every phone that shows it (PERFORMANCE.md).

The database is the truth and a push is only a hint: a push that cannot be sent (Redis down)
is logged, never turned into an error for a write that has already been saved, and once the
channel layer answers again the party's phones are told to refetch what they missed.
"""

import asyncio
import json
import logging
import threading
import time

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from parties import live

logger = logging.getLogger(__name__)
RECOVERY_INTERVAL = 1.0  # seconds between attempts to reach the channel layer again
RECOVERY_GIVE_UP = 600  # after that, the phones' own periodic resync catches them up

_lost_parties = set()  # parties whose pushes failed since the layer last answered
_lost_lock = threading.Lock()
_lost_wake = threading.Event()
_recovery_thread = None


def party_group(party_id):
    return f"party-{party_id}"


def table_group(party_id, number):
    return f"party-{party_id}-table-{number}"


def _group_send(group, message):
    text = json.dumps(message, separators=(",", ":"))
    async_to_sync(get_channel_layer().group_send)(group, {"type": "push", "text": text})


def _send(party_id, group, message):
    try:
        _group_send(group, message)
    except Exception:  # the write is saved; only this hint is lost
        logger.exception("push to %s failed; its phones will be told to resync", group)
        _remember_lost(party_id)


def _remember_lost(party_id):
    global _recovery_thread
    with _lost_lock:
        _lost_parties.add(party_id)
        if _recovery_thread is None:
            _recovery_thread = threading.Thread(
                target=_recover, name="bunco-push-recovery", daemon=True
            )
            _recovery_thread.start()
    _lost_wake.set()


def _recover():
    """One thread, with one event loop (so one channel-layer connection), started at the first
    lost push: it tells each party whose pushes were lost to resync, once the layer answers."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    layer = get_channel_layer()
    text = json.dumps({"type": "resync"})
    while True:
        _lost_wake.wait()
        deadline = time.monotonic() + RECOVERY_GIVE_UP
        while time.monotonic() < deadline:
            time.sleep(RECOVERY_INTERVAL)
            with _lost_lock:
                pending = set(_lost_parties)
            try:
                for party_id in pending:
                    message = {"type": "push", "text": text}
                    loop.run_until_complete(layer.group_send(party_group(party_id), message))
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
            _lost_wake.clear()


def on_commit_table(party, round_, live_round, number):
    seq = party.seq

    def push():
        html = live.render_table(
            party=party, round_=round_, live=live_round, number=number,
            names=live_round.names, seq=seq,
        )
        version = live_round.extras[number - 1].version
        _send(
            party.id,
            table_group(party.id, number),
            {"type": "table", "seq": seq, "round": round_.id, "table": number,
             "version": version, "bell": live_round.state.bell, "html": html},
        )

    transaction.on_commit(push)


def on_commit_bell(party, round_, by):
    message = {"type": "bell", "seq": party.seq, "round": round_.id, "by": by}
    transaction.on_commit(lambda: _send(party.id, party_group(party.id), message))


def on_commit_round(party, what):
    """A party-wide change (a round started or closed, a pause, a correction): phones refetch."""
    message = {"type": "round", "seq": party.seq, "what": what}
    transaction.on_commit(lambda: _send(party.id, party_group(party.id), message))
