"""Several group messages published in one round trip to Redis.

A write's pushes go out together: a 400-player round close is one message to each of its 100
table groups and one to the party, and a bell is followed by every table's update. Published
one `group_send` at a time, each waits for Redis's answer before the next starts, and at a
close that was 101 round trips and nearly a third of the close's time on the server
(bench/close_cpu.py; docs/performance.md has the figures). Here the messages bound for one
Redis host go in one pipeline, in order, and a process hears one Redis's publishes in the order
they were made, so what a phone receives is what sending them one by one gave.

channels_redis's pub/sub layer has no call for this, so `send_many` uses five of its internal
names (how a group's Redis channel is named, which host carries it, and that host's connection
and lock; the host's `publish` for a lone message), as channels_redis 4.3 (constraints.txt)
defines them; `pipelined_layer` tells whether the installed layer still has them. Another layer
(the in-memory one), or a channels_redis that changed them, gets one `group_send` per message,
as before, and a warning in the log.
"""

import logging

from parties.layer_watch import is_watched_layer

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
        and callable(getattr(shard, "publish", None))
        for shard in shards
    ):
        return None
    return loop_layer


async def send_many(layer, messages):
    """Publish `messages`, (group, message) pairs, in order: one pipeline per run of messages
    bound for the same Redis host. Raises what the layer raises (some may have been sent)."""
    loop_layer = pipelined_layer(layer)
    if loop_layer is None:
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
        if len(batch) == 1:  # a tap's one table update: a pipeline would only add to it
            await shard.publish(*batch[0])
            continue
        async with shard._lock:
            shard._ensure_redis()
            pipe = shard._redis.pipeline(transaction=False)
            for name, data in batch:
                pipe.publish(name, data)
            await pipe.execute()


def _warn_once(layer):
    """A Redis pub/sub layer without the internals is worth a line in the log, once."""
    global _warned
    if _warned or not _is_redis_pubsub(layer):
        return
    _warned = True
    logger.warning(
        "this channels_redis lacks the internals parties.layer_batch uses: "
        "each push is published on its own (slower at a big party's close)"
    )
