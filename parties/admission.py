"""Admission control for the scorekeeper's tap: a tap the server cannot start soon is turned
away at once (503, `Retry-After`) rather than queued.

A server past its capacity cannot serve every tap; queued, the taps it cannot serve make every
tap wait behind them (bench/ S4 measured 25 s at twice the load, and a backlog that had not
drained 30 s after the load fell back). Turned away, a tap waits on its phone instead, whose
outbox keeps it and sends it again (same tap id, so it is stored once), while the taps the
server does take stay fast and the load after a surge is served as before it.

Per process and event loop: at most `TAP_SLOTS` taps run in the worker threads at once, and a
tap may wait `TAP_WAIT` seconds (from its arrival, its party's turn included) for one; after
that it is answered busy. Nothing has been read or written for it by then.
"""

import asyncio
import contextlib
import weakref

from django.conf import settings

RETRY_AFTER = 1  # seconds, as the header says it; the phone adds its own jitter


class Busy(Exception):
    """The tap was not started: no slot freed within the wait."""


class Slots:
    """The taps in flight of one process: `TAP_SLOTS` at a time, each event loop its own."""

    def __init__(self):
        self._by_loop = weakref.WeakKeyDictionary()  # loop -> (limit, semaphore)

    def _semaphore(self):
        loop = asyncio.get_running_loop()
        limit = settings.TAP_SLOTS
        held = self._by_loop.get(loop)
        if held is None or held[0] != limit:  # a new limit (a test's settings) starts afresh
            held = self._by_loop[loop] = (limit, asyncio.Semaphore(limit))
        return held[1]

    @contextlib.asynccontextmanager
    async def admitted(self, turn):
        """Hold `turn` (an async context manager: the party's turn) and a slot for the block,
        or raise Busy if both are not had within `TAP_WAIT` seconds."""
        semaphore = self._semaphore()
        async with contextlib.AsyncExitStack() as held:
            try:
                async with asyncio.timeout(settings.TAP_WAIT):
                    await held.enter_async_context(turn)
                    await semaphore.acquire()
            except TimeoutError:
                raise Busy from None
            held.callback(semaphore.release)
            yield


slots = Slots()


def busy_answer():
    """The phone's answer to a tap turned away: (HTTP status, JSON payload); `retry_after` is
    also sent as the Retry-After header."""
    return 503, {
        "status": "busy",
        "message": "The server is busy: this roll is not saved yet and is sent again shortly.",
        "retry_after": RETRY_AFTER,
    }
