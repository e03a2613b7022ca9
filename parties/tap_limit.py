"""How many taps a process works on at once, adapted to how long they take.

A tap's admission (parties.admission) bounds how long it may wait to start. Past a process's
capacity that is not enough: a started tap shares the event loop, the worker threads and the
publish to Redis with every other started tap, and with too many of them each takes longer
(bench/ S4 at 1.7 times the capacity: started taps answered in 1.3-1.7 s at p99,
docs/performance.md).

So a tap also needs a slot, one of `limit`, from its start until its table's phones have been
sent its update; with none free it is answered busy at once, and its phone sends it again
later with whatever it queued meanwhile. The limit follows the taps' own time in their slot
as TCP's congestion window follows its round trips (additive increase, multiplicative
decrease): a tap that took longer than `slow` (settings.TAP_SLOW) cuts it by a quarter, once
for all the taps started before the cut (they report the same overload); each tap that did
not grows it by one slot spread over a limit's worth of taps, while at least half the slots
are in use or the limit is under its start. A process that keeps up with its load stays well
under its limit and turns nothing away: the start (32 slots) leaves room for the bursts of
taps a short pause of the loop brings at a load the process can serve, and after an overload
the limit grows back to it. (With a start of 8, such bursts at 300 parties had taps turned
away with no cut at all: bench/ S4, docs/performance.md.)

A request of a single tap may take only three quarters of the slots; the rest are kept for
requests carrying a table's queued taps. A table that has been turned away sends what it
queued meanwhile in one request, so the tables that have waited longest are let in first, and
each of those requests clears several taps for about the cost of one.
"""

import asyncio
import contextlib
import time
import weakref

from django.conf import settings

from parties.admission import Busy

FLOOR, START, CEILING = 2, 32, 64  # slots
BACK_OFF = 0.75  # what a slow tap leaves of the limit
ONE_TAP_SHARE = 0.75  # of the slots, what a request of a single tap may take


class AdaptiveLimit:
    """`slow`: the seconds in its slot past which a tap says the process has too much in hand
    (settings.TAP_SLOW)."""

    def __init__(self, *, slow, floor=FLOOR, start=START, ceiling=CEILING):
        self.slow, self.floor, self.start, self.ceiling = slow, floor, start, ceiling
        self.limit = float(start)
        self.in_flight = 0
        self._last_cut = float("-inf")

    @contextlib.contextmanager
    def slot(self, taps=1):
        """Hold a slot for the block, for a request of `taps` taps; Busy if none is free. A
        request of one tap may not take the last quarter of the slots: those are kept for a
        table's queued taps sent together."""
        if self.in_flight >= self.limit * (1 if taps > 1 else ONE_TAP_SHARE):
            raise Busy
        self.in_flight += 1
        started = time.monotonic()
        try:
            yield
        finally:
            self._adapt(started, time.monotonic())
            self.in_flight -= 1

    def _adapt(self, started, now):
        if now - started > self.slow:
            if started >= self._last_cut:
                self.limit = max(self.floor, self.limit * BACK_OFF)
                self._last_cut = now
        elif self.in_flight * 2 >= self.limit or self.limit < self.start:
            self.limit = min(self.ceiling, self.limit + 1 / self.limit)


_limits = weakref.WeakKeyDictionary()  # event loop -> its limit


def of_loop():
    """The running loop's limit (one a process, for its server's loop)."""
    loop = asyncio.get_running_loop()
    limit = _limits.get(loop)
    if limit is None:
        limit = _limits[loop] = AdaptiveLimit(slow=settings.TAP_SLOW)
    return limit
