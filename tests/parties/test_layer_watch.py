"""A server process's watch on its own subscriptions: its sockets are told to resync once the
layer delivers again after losing messages, and only then."""

import asyncio
import contextlib

import pytest

from parties.live.layer_watch import RESYNC, SubscriptionWatch
from tests.loops import on_a_loop_of_its_own


class FlakyLayer:
    """The groups part of a channel layer, whose deliveries can be cut (a subscription lost)
    and whose sends can fail (Redis down)."""

    def __init__(self):
        self.queues, self.groups = {}, {}
        self.delivering, self.refusing = True, False

    async def new_channel(self):
        name = f"canary.{len(self.queues)}"
        self.queues[name] = asyncio.Queue()
        return name

    async def group_add(self, group, channel):
        self.groups.setdefault(group, set()).add(channel)

    async def group_send(self, group, message):
        if self.refusing:
            raise ConnectionError("Redis is down")
        if self.delivering:
            for channel in self.groups.get(group, ()):
                self.queues[channel].put_nowait(message)

    async def receive(self, channel):
        return await self.queues[channel].get()


class Socket:
    def __init__(self):
        self.sent = []

    async def send(self, text_data):
        self.sent.append(text_data)


@contextlib.asynccontextmanager
async def watched():
    layer, phone = FlakyLayer(), Socket()
    watch = SubscriptionWatch(layer, every=0.01, silent_after=0.05)
    watch.sockets.add(phone)
    watch.start()
    try:
        yield layer, phone
    finally:
        watch.task.cancel()
        await asyncio.gather(watch.task, return_exceptions=True)


@on_a_loop_of_its_own
async def test_nothing_lost_means_no_resync():
    async with watched() as (_layer, phone):
        await asyncio.sleep(0.2)
        assert phone.sent == []


@pytest.mark.parametrize("fault", ["delivering", "refusing"])
@on_a_loop_of_its_own
async def test_the_sockets_resync_once_when_delivery_comes_back(fault):
    async with watched() as (layer, phone):
        await asyncio.sleep(0.05)
        setattr(layer, fault, fault == "refusing")  # subscriptions lost, or Redis down
        await asyncio.sleep(0.2)
        assert phone.sent == []  # a resync now would reach nobody, or fetch too early
        setattr(layer, fault, fault != "refusing")
        for _ in range(200):  # the watch looks every 10 ms: at most 2 s on a loaded machine
            if phone.sent:
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.1)  # and it stays one
        assert phone.sent == [RESYNC]


@on_a_loop_of_its_own
async def test_a_closed_socket_is_forgotten():
    async with watched() as (layer, phone):
        layer.delivering = False
        await asyncio.sleep(0.05)
        del phone  # the consumer is gone: the watch holds it weakly
        layer.delivering = True
        await asyncio.sleep(0.1)  # and the resync to nobody raises nothing
