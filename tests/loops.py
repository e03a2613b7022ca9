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
