"""Each server process's own check that its channel-layer subscriptions deliver, and the resync
its phones get when they deliver again after a gap.

Pushes that reach Redis while a process's subscriptions are broken (Redis restarted, the
process's pub/sub connection dropped) reach nobody there, and no publisher can know: its
PUBLISH succeeded. channels_redis's pub/sub layer re-subscribes on its own (redis-py replays
the subscriptions when its connection comes back, up to a second or more after Redis does,
since the layer's receive task sleeps a second after each error), but it tells no one when.
So each process finds out end to end, through the public layer API: it keeps a private
canary group subscribed beside its phones' groups (on the same pub/sub connection, so one
SUBSCRIBE restores them all), sends itself a numbered canary every CANARY_EVERY seconds, and
when a canary went missing and a later one arrives, its subscriptions work again: every
socket this process holds is told to resync, directly, not through Redis.

Two limits, both left to the page's periodic resync: a loss window shorter than the canary
interval (a connection dropped and re-made at once) can fall between two canaries, and the
canary watches one Redis host (the layer's first shard; settings give it one).
"""

import asyncio
import json
import logging
import time
import uuid
import weakref

logger = logging.getLogger(__name__)

CANARY_EVERY = 0.5  # seconds; a Redis restart loses at least a second, so two canaries
SILENT_AFTER = 3.0  # seconds with no canary back: something was lost (a stuck send, say)
RESYNC = json.dumps({"type": "resync"})

_watches = {}  # event loop -> its SubscriptionWatch (daphne runs one loop)


def is_watched_layer(layer):
    """Only Redis pub/sub loses messages while subscribed; the in-memory layer never does."""
    try:
        from channels_redis.pubsub import RedisPubSubChannelLayer
    except ImportError:  # pragma: no cover - channels_redis is a dependency
        return False
    return isinstance(layer, RedisPubSubChannelLayer)


def watch(consumer):
    """Register an accepted socket for this process's resyncs (starting the watch with the
    process's first socket); `forget` takes it out."""
    if not is_watched_layer(consumer.channel_layer):
        return
    loop = asyncio.get_running_loop()
    current = _watches.get(loop)
    if current is None or current.stopped:
        current = _watches[loop] = SubscriptionWatch(consumer.channel_layer)
        current.start()
    current.sockets.add(consumer)


def forget(consumer):
    current = _watches.get(asyncio.get_running_loop())
    if current is not None:
        current.sockets.discard(consumer)


class SubscriptionWatch:
    def __init__(self, layer, every=CANARY_EVERY, silent_after=SILENT_AFTER):
        self.layer = layer
        self.every = every
        self.silent_after = silent_after
        self.group = f"bunco-canary-{uuid.uuid4().hex}"
        self.sockets = weakref.WeakSet()
        self.sent = 0  # the last canary's number (sent or attempted)
        self.received = 0  # the highest canary number come back
        self.heard_at = time.monotonic()
        self.gap = False  # a canary went missing since one last came back
        self.resyncs = 0
        self.task = None

    @property
    def stopped(self):
        return self.task is not None and self.task.done()

    def start(self):
        self.task = asyncio.ensure_future(self._run())

    async def _run(self):
        channel = await self._subscribe()
        listening = asyncio.ensure_future(self._listen(channel))
        try:
            while True:
                await self._send_canary()
                await asyncio.sleep(self.every)
        finally:
            listening.cancel()

    async def _subscribe(self):
        while True:
            try:
                channel = await self.layer.new_channel()
                await self.layer.group_add(self.group, channel)
                return channel
            except Exception as error:  # Redis is down at the first socket: try again
                logger.debug("canary subscription failed: %s", error)
                await asyncio.sleep(self.every)

    async def _send_canary(self):
        if self.received < self.sent and time.monotonic() - self.heard_at > self.silent_after:
            self.gap = True
        self.sent += 1
        try:
            await self.layer.group_send(self.group, {"type": "canary", "n": self.sent})
        except Exception as error:  # counted as lost; the next that comes back resyncs
            logger.debug("canary %d not sent: %s", self.sent, error)

    async def _listen(self, channel):
        while True:
            try:
                message = await self.layer.receive(channel)
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - the layer's own trouble: keep listening
                logger.exception("canary receive failed")
                await asyncio.sleep(self.every)
                continue
            await self._heard(message.get("n", 0))

    async def _heard(self, number):
        if number <= self.received:
            return
        missing = number > self.received + 1
        self.received, self.heard_at = number, time.monotonic()
        if missing or self.gap:
            self.gap = False
            await self._resync_all()

    async def _resync_all(self):
        sockets = list(self.sockets)
        self.resyncs += 1
        logger.warning("channel layer delivers again after a gap: %d sockets told to resync",
                       len(sockets))
        for consumer in sockets:
            try:
                await consumer.send(text_data=RESYNC)
            except Exception as error:  # noqa: BLE001 - a socket closing meanwhile
                logger.debug("resync to a closing socket: %s", error)
