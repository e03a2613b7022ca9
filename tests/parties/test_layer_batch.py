"""A write's pushes published together (bunco_site.fast.layer_batch): each group's listeners get what
sending them one by one gave, in the same order, on the production layer and the in-memory one."""

import asyncio
import uuid

import pytest
from channels.layers import InMemoryChannelLayer

from bunco_site.fast import layer_batch
from tests.loops import run_alone, subscribed
from tests.parties.test_settings import REDIS_URL


def a_close(groups):
    """A round close as parties.live.announce sends it: each table's message, then the party's."""
    return [(group, {"type": "push", "text": f"seat {group}"}) for group in groups[1:]] + [
        (groups[0], {"type": "push", "text": "closed", "unless_shown": 7})
    ]


async def heard(layer, messages, members):
    """What each listener receives: `members` maps a listener to the groups it joins."""
    channels = {}
    for listener, groups in members.items():
        channels[listener] = await layer.new_channel()
        for group in groups:
            await layer.group_add(group, channels[listener])
    if not isinstance(layer, InMemoryChannelLayer):
        await subscribed(REDIS_URL, layer, *{g for groups in members.values() for g in groups})
    await layer_batch.send_many(layer, messages)
    got = {}
    for listener, groups in members.items():
        expected = sum(1 for group, _ in messages if group in groups)
        got[listener] = [
            (await asyncio.wait_for(layer.receive(channels[listener]), 5))["text"]
            for _ in range(expected)
        ]
    return got


def groups_of_a_party():
    party = f"party-{uuid.uuid4().hex[:12]}"
    return [party] + [f"{party}-table-{n}" for n in range(1, 6)]


@pytest.mark.needs_redis
def test_on_redis_every_listener_gets_its_groups_messages_in_the_order_sent():
    from channels_redis.pubsub import RedisPubSubChannelLayer

    groups = groups_of_a_party()
    party, table_1, table_5 = groups[0], groups[1], groups[5]
    members = {
        "phone at table 1": [party, table_1],
        "phone at table 5": [party, table_5],
        "the host": [party],
        "a phone at no table": [table_1],
    }

    async def play():
        layer = RedisPubSubChannelLayer(hosts=[REDIS_URL], prefix=f"t{uuid.uuid4().hex[:8]}")
        try:
            assert layer_batch.pipelined_layer(layer) is not None  # the installed one is used
            return await heard(layer, a_close(groups), members)
        finally:
            await layer.flush()

    got = run_alone(play())
    assert got == {
        "phone at table 1": [f"seat {table_1}", "closed"],
        "phone at table 5": [f"seat {table_5}", "closed"],
        "the host": ["closed"],
        "a phone at no table": [f"seat {table_1}"],
    }


@pytest.mark.needs_redis
def test_on_redis_a_lone_message_and_a_long_run_both_arrive_whole():
    from channels_redis.pubsub import RedisPubSubChannelLayer

    groups = groups_of_a_party()
    many = [(groups[1], {"type": "push", "text": f"update {n}"}) for n in range(300)]

    async def play():
        layer = RedisPubSubChannelLayer(hosts=[REDIS_URL], prefix=f"t{uuid.uuid4().hex[:8]}")
        try:
            one = await heard(layer, many[:1], {"phone": [groups[1]]})
            return one, await heard(layer, many, {"phone": [groups[1]]})
        finally:
            await layer.flush()

    one, all_of_them = run_alone(play())
    assert one == {"phone": ["update 0"]}
    assert all_of_them == {"phone": [f"update {n}" for n in range(300)]}


def test_on_the_in_memory_layer_each_message_is_sent_in_order():
    groups = groups_of_a_party()
    layer = InMemoryChannelLayer()
    assert layer_batch.pipelined_layer(layer) is None
    got = run_alone(heard(layer, a_close(groups), {"phone": [groups[0], groups[3]]}))
    assert got == {"phone": [f"seat {groups[3]}", "closed"]}


def test_a_redis_that_cannot_be_reached_raises_for_the_caller_to_resync():
    from channels_redis.pubsub import RedisPubSubChannelLayer
    from redis.exceptions import ConnectionError as RedisDown

    async def play():
        layer = RedisPubSubChannelLayer(hosts=["redis://127.0.0.1:9"], prefix="unreachable")
        await layer_batch.send_many(layer, a_close(groups_of_a_party()))

    with pytest.raises(RedisDown):
        run_alone(play())


@pytest.mark.needs_redis
def test_on_redis_writes_published_at_once_share_round_trips_and_keep_their_order(monkeypatch):
    """Fifty writes publishing at the same moment (a loaded server's taps): each write's
    messages arrive whole and in the order the writes asked, and they went to Redis in fewer
    pipelines than there were writes (one on its way, the rest waiting for the next)."""
    from channels_redis.pubsub import RedisPubSubChannelLayer

    groups = groups_of_a_party()
    writes = [[(groups[1], {"type": "push", "text": f"write {n} {part}"}) for part in "ab"]
              for n in range(50)]
    trips = []
    send = layer_batch._Publisher._send

    async def counted(self, messages):
        trips.append(len(messages))
        await send(self, messages)

    monkeypatch.setattr(layer_batch._Publisher, "_send", counted)

    async def play():
        layer = RedisPubSubChannelLayer(hosts=[REDIS_URL], prefix=f"t{uuid.uuid4().hex[:8]}")
        try:
            channel = await layer.new_channel()
            await layer.group_add(groups[1], channel)
            await subscribed(REDIS_URL, layer, groups[1])
            await asyncio.gather(*(layer_batch.send_many(layer, w) for w in writes))
            return [(await asyncio.wait_for(layer.receive(channel), 5))["text"]
                    for _ in range(100)]
        finally:
            await layer.flush()

    got = run_alone(play())
    assert got == [message["text"] for write in writes for _, message in write]
    assert sum(trips) == 100 and len(trips) < len(writes), trips


def test_every_write_in_a_failed_pipeline_is_told():
    from channels_redis.pubsub import RedisPubSubChannelLayer
    from redis.exceptions import ConnectionError as RedisDown

    async def play():
        layer = RedisPubSubChannelLayer(hosts=["redis://127.0.0.1:9"], prefix="unreachable")
        writes = [a_close(groups_of_a_party()) for _ in range(3)]
        return await asyncio.gather(*(layer_batch.send_many(layer, w) for w in writes),
                                    return_exceptions=True)

    outcomes = run_alone(play())
    assert len(outcomes) == 3 and all(isinstance(o, RedisDown) for o in outcomes), outcomes


@pytest.mark.needs_redis
def test_writes_waiting_on_a_cancelled_flush_are_not_left_waiting():
    """The loop closing cancels the pipeline under way: its writes and those queued behind it
    are cancelled too, not left awaiting an answer that will never come."""
    from channels_redis.pubsub import RedisPubSubChannelLayer

    groups = groups_of_a_party()

    async def play():
        layer = RedisPubSubChannelLayer(hosts=[REDIS_URL], prefix=f"t{uuid.uuid4().hex[:8]}")
        try:
            writes = [asyncio.ensure_future(layer_batch.send_many(layer, a_close(groups)))
                      for _ in range(3)]
            await asyncio.sleep(0)  # each has asked; the first pipeline is on its way
            shard = layer_batch.pipelined_layer(layer)._shards[0]
            layer_batch._publisher(shard).task.cancel()
            done, waiting = await asyncio.wait(writes, timeout=5)
            return len(waiting), [w.cancelled() for w in writes]
        finally:
            await layer.flush()

    assert run_alone(play()) == (0, [True, True, True])
