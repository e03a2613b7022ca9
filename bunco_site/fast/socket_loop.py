"""A party socket's loop, leaner than Channels' own: the same handlers, less its cost per message.

Channels' `AsyncConsumer.__call__` waits on the socket and the channel layer together with a new
task and an `asyncio.wait` for every message, and its `dispatch` hops to the sync thread to close
old database connections before every event. For a bell reaching 400 phones at once those were
most of the fan-out. Here each source has one long-lived loop, and only the handshake reads the
database (through DatabaseSyncToAsync, which cleans up around its own call). As in Channels,
pushes wait until the phone's connection has been handled (they would otherwise reach a socket
not yet accepted), and a failing handler ends the connection (the phone reconnects, resyncs).

It stands in for Channels' internals as channels 4.3 (constraints.txt) has them: `fits()` checks
their shape; a Channels without it, or "socket_loop" left out of BUNCO_FAST, runs Channels' own
loop (the first with a warning in the log, once).
"""

import asyncio
import functools
import logging

import channels
from channels.consumer import AsyncConsumer, get_handler_name
from channels.exceptions import StopConsumer
from channels.layers import get_channel_layer
from django.conf import settings

logger = logging.getLogger(__name__)
_warned = []


def fits():
    """Whether the installed Channels has the consumer internals this loop takes over."""
    return (
        channels.__version__.startswith("4.")
        and hasattr(AsyncConsumer, "channel_layer_alias")
        and callable(getattr(AsyncConsumer, "dispatch", None))
    )


def in_use():
    if "socket_loop" not in settings.FAST:
        return False
    if fits():
        return True
    if not _warned:
        _warned.append(True)
        logger.warning("socket_loop skipped: Channels %s is not the shape it replaces; "
                       "Channels' own loop serves the sockets", channels.__version__)
    return False


async def run(consumer, scope, receive, send):
    """Serve one socket with `consumer`'s handlers until it ends."""
    consumer.scope = scope
    consumer.channel_layer = get_channel_layer(consumer.channel_layer_alias)
    consumer.channel_name = await consumer.channel_layer.new_channel()
    consumer.channel_receive = functools.partial(
        consumer.channel_layer.receive, consumer.channel_name
    )
    consumer.base_send = send
    pushes = None
    try:
        while True:
            message = await receive()
            await dispatch(consumer, message)
            if pushes is None and message["type"] == "websocket.connect":
                pushes = asyncio.ensure_future(_deliver_pushes(consumer))
    except StopConsumer:
        pass
    finally:
        if pushes is not None:
            pushes.cancel()  # the layer's receive unsubscribes the channel as it ends
            await asyncio.gather(pushes, return_exceptions=True)


async def dispatch(consumer, message):
    """As Channels' own, less the database clean-up it runs before every event."""
    handler = getattr(consumer, get_handler_name(message), None)
    if handler is None:
        raise ValueError(f"No handler for message type {message['type']}")  # as Channels says
    await handler(message)


async def _deliver_pushes(consumer):
    try:
        while True:
            await dispatch(consumer, await consumer.channel_receive())
    except asyncio.CancelledError:
        raise
    except Exception:
        logger.exception("a push to a phone failed; closing its socket")
        await consumer.close()
