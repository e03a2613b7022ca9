"""Several group messages published in one round trip to Redis.

A write's pushes go out together: a 400-player round close is one message to each of its 100
table groups and one to the party, and a bell is followed by every table's update. Published
one `group_send` at a time, each waits for Redis's answer before the next starts, and at a
close that was 101 round trips and nearly a third of the close's time on the server
(bench/close_cpu.py; docs/performance.md has the figures). Here the messages bound for one
Redis host go in one pipeline, in order, and a process hears one Redis's publishes in the order
they were made, so what a phone receives is what sending them one by one gave.

The same holds across writes. channels_redis publishes under one lock per Redis host, each
message waiting for Redis's answer to the one before it, and an answer reaches a busy event
loop only at its next turn: at twice a process's load (bench/ S4) taps waited up to a second
for their turn to publish while the loop itself was only milliseconds behind. So the messages
of every write go through one queue per host (`_Publisher`): while one pipeline is on its
way, whatever is published meanwhile waits, and goes in the next one, in order. Lightly
loaded, each write's messages go at once, as before; loaded, one round trip carries many
writes'.

channels_redis's pub/sub layer has no call for this, so `send_many` uses its internal names
for how a group's Redis channel is named, which host carries it, and that host's connection
and lock, as channels_redis 4.3 (constraints.txt) defines them; `pipelined_layer` tells
whether the installed layer still has them. Another layer (the in-memory one), or a
channels_redis that changed them, gets one `group_send` per message, and a warning in the log;
so does every layer with "layer_batch" left out of BUNCO_FAST.
"""

import asyncio
import logging
import weakref

from django.conf import settings

from parties.live.layer_watch import is_watched_layer

logger = logging.getLogger(__name__)
_warned = False


def _is_redis_pubsub(layer):
    return is_watched_layer(layer)  # the one check for channels_redis's pub/sub layer


def pipelined_layer(layer):
    """The loop's channels_redis pub/sub layer if `layer` is one with the internals `send_many`
    uses, else None. Called on the server's running loop."""
    if not _is_redis_pubsub(layer):
        return None
    loop_layer = layer._get_layer()
    shards = getattr(loop_layer, "_shards", None)
    named = callable(getattr(loop_layer, "_get_group_channel_name", None))
    routed = callable(getattr(loop_layer, "_get_shard", None))
    if not (shards and named and routed) or not all(
        hasattr(shard, "_lock")
        and callable(getattr(shard, "_ensure_redis", None))
        for shard in shards
    ):
        return None
    return loop_layer


async def send_many(layer, messages):
    """Publish `messages`, (group, message) pairs, in order: one pipeline per run of messages
    bound for the same Redis host. Raises what the layer raises (some may have been sent)."""
    loop_layer = pipelined_layer(layer) if "layer_batch" in settings.FAST else None
    if loop_layer is None:
        if "layer_batch" in settings.FAST:
            _warn_once(layer)
        for group, message in messages:
            await layer.group_send(group, message)
        return
    runs = []  # [(shard, [(redis channel, bytes)])], consecutive messages of a shard together
    for group, message in messages:
        name = loop_layer._get_group_channel_name(group)
        shard = loop_layer._get_shard(name)
        if not runs or runs[-1][0] is not shard:
            runs.append((shard, []))
        runs[-1][1].append((name, layer.serialize(message)))
    for shard, batch in runs:
        await _publisher(shard).publish(batch)


_publishers = weakref.WeakKeyDictionary()  # a Redis host's connection -> its _Publisher


def _publisher(shard):
    publisher = _publishers.get(shard)
    if publisher is None:
        publisher = _publishers[shard] = _Publisher(shard)
    return publisher


class _Publisher:
    """One Redis host's publishes, in the order asked: each `publish` waits until its messages
    are sent, in one pipeline with whatever else was asked for while the one before it was on
    its way. A failure raises for every caller whose messages were in that pipeline."""

    def __init__(self, shard):
        self.shard = shard
        self.waiting = []  # [(messages, future)], in order
        self.sending = []  # the same, of the pipeline on its way
        self.task = None  # the flush under way

    async def publish(self, messages):
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self.waiting.append((messages, future))
        if self.task is None or self.task.done():
            self.task = loop.create_task(self._flush())
            self.task.add_done_callback(self._flushed)
        await future

    async def _flush(self):
        while self.waiting:
            self.sending, self.waiting = self.waiting, []
            try:
                await self._send([m for messages, _ in self.sending for m in messages])
            except Exception as error:  # noqa: BLE001 - each caller gets it
                for _, future in self.sending:
                    if not future.done():
                        future.set_exception(error)
                continue
            for _, future in self.sending:
                if not future.done():  # its caller may have been cancelled meanwhile
                    future.set_result(None)
        self.sending = []

    def _flushed(self, task):
        """A flush cancelled (the loop closing) leaves nobody waiting on it."""
        if not task.cancelled():
            return  # it answered every caller itself
        for _, future in self.sending:
            future.cancel()
        self.sending = []
        if self.task is task:  # no other flush has started, to send what is waiting
            for _, future in self.waiting:
                future.cancel()
            self.waiting = []

    async def _send(self, messages):
        shard = self.shard
        async with shard._lock:
            shard._ensure_redis()
            if len(messages) == 1:  # a tap's one table update: a pipeline would only add to it
                await shard._redis.publish(*messages[0])
                return
            pipe = shard._redis.pipeline(transaction=False)
            for name, data in messages:
                pipe.publish(name, data)
            await pipe.execute()


def _warn_once(layer):
    """A Redis pub/sub layer without the internals is worth a line in the log, once."""
    global _warned
    if _warned or not _is_redis_pubsub(layer):
        return
    _warned = True
    logger.warning(
        "this channels_redis lacks the internals bunco_site.fast.layer_batch uses: "
        "each push is published on its own (slower at a big party's close)"
    )
