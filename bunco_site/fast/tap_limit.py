"""How many taps a process works on at once, adapted to how long they take.

A tap's admission (bunco_site.fast.admission) bounds how long it may wait to start. Past a process's
capacity that is not enough: a started tap shares the event loop, the worker threads and the
publish to Redis with every other started tap, and with too many of them each takes longer
(bench/ S4 at 1.7 times the capacity: started taps answered in 1.3-1.7 s at p99,
docs/performance.md).

So a tap also needs a slot, one of `limit`, from its start until its table's phones have been
sent its update; with none free it is answered busy at once, and its phone sends it again
later with whatever it queued meanwhile. The limit follows the taps' time in their slot as
TCP's congestion window follows its round trips (additive increase, multiplicative decrease),
on the typical time rather than each tap's: its average over about the last ten taps. A tap
that ends with the typical time over `slow` (settings.TAP_SLOW) and at least half the slots in
use cuts the limit by a quarter, once for all the taps started before the cut (they report the
same overload); one that ends with it under grows the limit by one slot spread over a limit's
worth of taps, up to the ceiling it starts at (settings.TAP_SLOTS).

A process that keeps up with its load stays far under its limit and turns almost nothing
away. A short pause (of the loop, a worker thread, the database) holds every tap in hand a
moment and brings a burst of them: at 450 taps a second a pause of 55 ms had 25 taps in hand
where 2 is usual (bench/ S4, bench/results/2026-12-05.md). Slow taps with fewer than half
the slots in use are such a pause, not too many taps in hand, and do not cut the limit; the
ceiling leaves room for the burst. (A limit cut by any single slow tap, starting at 8 or 32,
turned 4-11 taps away in those bursts in 5 of 7 runs, each back 1-2 s later; this one, 2 in
1 of 5.)

A table that has not waited may take only three quarters of the slots; the rest are kept for
the tables turned away before, coming back at their turn in the line (bunco_site.fast.tap_line), so
the tables that have waited longest are let in first. Each of those requests carries what
its table queued meanwhile, and clears several taps for about the cost of one.
"""

import asyncio
import collections
import contextlib
import time
import weakref

from django.conf import settings

from bunco_site.fast.admission import Busy

FLOOR = 2  # slots; the limit starts at its ceiling (settings.TAP_SLOTS)
BACK_OFF = 0.75  # what a cut leaves of the limit
FRESH_SHARE = 0.75  # of the slots, what a table that has not waited its turn may take
SMOOTHING = 0.1  # each tap's weight in the typical time (about the last ten taps)
AT_TURN_PATIENCE = 0.02  # seconds a table back at its turn waits for a slot to be freed


class AdaptiveLimit:
    """`slow`: the typical seconds in a slot past which the process has too much in hand
    (settings.TAP_SLOW); `ceiling`: the most slots, and the first limit (settings.TAP_SLOTS)."""

    def __init__(self, *, slow, ceiling, floor=FLOOR):
        self.slow, self.floor, self.ceiling = slow, floor, ceiling
        self.limit = float(ceiling)
        self.in_flight = 0
        self.typical = 0.0  # seconds in a slot, smoothed over the last taps
        self._last_cut = float("-inf")
        self._at_turn = collections.deque()  # futures of tables back at their turn, waiting

    @contextlib.contextmanager
    def slot(self):
        """Hold a slot for the block, for a table that has not waited its turn in line; Busy
        if none is free to it: it may not take the last quarter of the slots. (Tables back at
        their turn wait only while every slot is taken, and a slot freed then is handed to
        them.)"""
        if self.in_flight >= self.limit * FRESH_SHARE:  # so too while tables wait at their turn
            raise Busy
        self.in_flight += 1
        started = time.monotonic()
        try:
            yield
        finally:
            self._release(started)

    @contextlib.asynccontextmanager
    async def slot_at_turn(self, patience):
        """Hold a slot for the block, for a table back at its turn in line
        (bunco_site.fast.tap_line): any of the slots, and with none free the next one freed, before
        any table that has not waited, if that is within `patience` seconds; else Busy."""
        if self.in_flight < self.limit and not self._at_turn:
            self.in_flight += 1
        else:
            await self._handed_one(patience)
        started = time.monotonic()
        try:
            yield
        finally:
            self._release(started)

    async def _handed_one(self, patience):
        if patience <= 0:
            raise Busy
        waiter = asyncio.get_running_loop().create_future()
        self._at_turn.append(waiter)
        try:
            async with asyncio.timeout(patience):
                await waiter
        except TimeoutError:
            if self._was_handed(waiter):
                return  # handed one as its time ran out: it holds it
            raise Busy from None
        except BaseException:
            if self._was_handed(waiter):
                self._pass_on()  # handed one, then cancelled: the next may have it
            raise

    def _was_handed(self, waiter):
        """Whether a table that stopped waiting had been handed a slot; if not, it leaves the
        waiters (unless a release already dropped it)."""
        if waiter.done() and not waiter.cancelled():
            return True
        with contextlib.suppress(ValueError):
            self._at_turn.remove(waiter)
        return False

    def _release(self, started):
        self._adapt(started, time.monotonic())
        self._pass_on()

    def _pass_on(self):
        """A slot given up: to the first table waiting at its turn, if the limit allows it one
        more, else back to the free ones."""
        while self._at_turn and self.in_flight - 1 < self.limit:
            waiter = self._at_turn.popleft()
            if not waiter.done():  # not given up already
                waiter.set_result(None)  # the slot changes hands: as many in flight
                return
        self.in_flight -= 1

    def _adapt(self, started, now):
        self.typical += SMOOTHING * (now - started - self.typical)
        if self.typical > self.slow:
            if self.in_flight * 2 >= self.limit and started >= self._last_cut:
                self.limit = max(self.floor, self.limit * BACK_OFF)
                self._last_cut = now
        else:
            self.limit = min(self.ceiling, self.limit + 1 / self.limit)


_limits = weakref.WeakKeyDictionary()  # event loop -> its limit


def of_loop():
    """The running loop's limit (one a process, for its server's loop)."""
    loop = asyncio.get_running_loop()
    limit = _limits.get(loop)
    if limit is None:
        limit = _limits[loop] = AdaptiveLimit(slow=settings.TAP_SLOW, ceiling=settings.TAP_SLOTS)
    return limit
