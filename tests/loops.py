"""Async code run from a sync test on an event loop of its own, in a thread of its own: once the
browser tests have run, this thread's loop is Playwright's, still running, and no other loop
can run in this thread (asyncio.run refuses)."""

import asyncio
import functools
from concurrent.futures import ThreadPoolExecutor


def run_alone(coroutine):
    """The coroutine's result, run to completion on a new loop in a new thread."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, coroutine).result()


def on_a_loop_of_its_own(test):
    """An async test function made a sync one that runs it with run_alone."""

    @functools.wraps(test)
    def run(*args, **kwargs):
        return run_alone(test(*args, **kwargs))

    return run


async def subscribed(redis_url, layer, *groups, within=5.0):
    """Returns once Redis (at `redis_url`) counts a subscriber to each of `groups` of a
    channels_redis pub/sub `layer`: group_add sends SUBSCRIBE and does not wait for Redis to apply it, so a message
    published at once may reach nobody. A polling wait with a deadline, not a fixed sleep."""
    from redis.asyncio import Redis

    names = [layer._get_group_channel_name(group) for group in groups]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    async with Redis.from_url(redis_url) as client:
        while True:
            counts = dict(await client.pubsub_numsub(*names))
            if all(counts.get(name.encode(), 0) for name in names):
                return
            if loop.time() > deadline:
                raise TimeoutError(f"Redis has no subscriber to {names} after {within} s")
            await asyncio.sleep(0.01)
