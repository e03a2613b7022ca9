"""Admission control for the scorekeeper's tap: a tap the server cannot start soon is turned
away at once (503, `Retry-After`) rather than queued.

A server past its capacity cannot serve every tap; queued, the taps it cannot serve make every
tap wait behind them (bench/ S4: at twice the load every tap waited far longer than anyone waits
at a table, and the backlog outlasted the surge; docs/performance.md has the figures). Turned
away, a tap waits on its phone instead, whose outbox keeps it and sends it again (same tap id,
so it is stored once), while the taps the server does take stay fast.

What is bounded is the wait, not the number of taps at once: a tap must start within
`TAP_WAIT` seconds of its arrival, all of its waits counted: before the app could read it (the
event loop's lag, bunco_site.fast.loop_lag: a loop past its capacity reads every request late), its
party's turn, in the event loop, and a worker thread, in the executor's queue. A tap not
started by then is answered busy with nothing read or written for it; one that has already
waited its whole `TAP_WAIT` unread is answered busy at once. (Without the loop's lag, S4 on
2026-12-02 served taps whose answers took seconds: they had waited before the bound's clock
started.) The worker threads themselves (the loop's default
executor) bound the taps running at once, as before. (A first version bounded the taps in
flight, four slots held until the tap's pushes were sent; on a loaded event loop a slot is held
for the loop's delays too. In S4 on a busy machine its saves fell from ~270 to ~60 a second;
the phones' resends, then without back-off, were not told apart from it as the cause.)
"""

import asyncio
import contextlib
import math
import threading
import time

from django.conf import settings

from bunco_site.fast import loop_lag

NOT_STARTED = object()  # what a worker thread returns for a tap it found too late


class Busy(Exception):
    """The tap was not started by its deadline."""


class Ticket:
    """One tap's admission: started by `TAP_WAIT` seconds after it was made, or never. The
    event loop (giving up at the deadline) and the worker thread (starting the tap) decide
    under one lock, so a tap is either started or turned away, never both."""

    def __init__(self):
        # Made on the event loop as the tap is read: it arrived the loop's lag earlier.
        self.deadline = time.monotonic() + settings.TAP_WAIT - loop_lag.seconds()
        self._lock = threading.Lock()
        self._state = "waiting"

    def left(self):
        """Seconds until the deadline (0 once passed)."""
        return max(0.0, self.deadline - time.monotonic())

    @contextlib.asynccontextmanager
    async def holding(self, turn):
        """Hold `turn` (an async context manager: the party's turn) for the block, if it is had
        by the deadline; else Busy."""
        if self.left() <= 0:
            raise Busy
        async with contextlib.AsyncExitStack() as held:
            try:
                async with asyncio.timeout(self.left()):
                    await held.enter_async_context(turn)
            except TimeoutError:
                raise Busy from None
            yield

    async def run(self, loop, call):
        """`call()` in a worker thread, if one starts it by the deadline; else Busy (and the
        thread that reaches it later drops it)."""
        future = loop.run_in_executor(None, self._start_then, call)
        done, _ = await asyncio.wait({future}, timeout=self.left())
        if not done and self._give_up():
            raise Busy
        result = await future
        if result is NOT_STARTED:
            raise Busy
        return result

    def _start_then(self, call):
        with self._lock:
            if self._state != "waiting" or time.monotonic() > self.deadline:
                self._state = "turned away"
                return NOT_STARTED
            self._state = "started"
        return call()

    def _give_up(self):
        with self._lock:
            if self._state == "started":
                return False
            self._state = "turned away"
            return True


def busy_answer(wait):
    """The phone's answer to a tap turned away, to be sent again in `wait` seconds (its table's
    turn, bunco_site.fast.tap_line): (HTTP status, JSON payload). `retry_after` is the wait to the
    hundredth, and also the Retry-After header, in whole seconds (retry_after_header)."""
    return 503, {
        "status": "busy",
        "message": "The server is busy: this roll is not saved yet and is sent again shortly.",
        "retry_after": round(wait, 2),
    }


def retry_after_header(wait):
    """The Retry-After header's value for a wait in seconds: whole seconds (RFC 9110), never
    sooner than asked."""
    return str(max(1, math.ceil(wait)))
