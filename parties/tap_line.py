"""The line of tables a busy process has turned away: each is told when its turn comes, and is
let in first when it comes back then.

A tap turned away (parties.admission, parties.tap_limit) waits on its phone and is sent again.
When each phone chose its own wait (1 s, doubled per busy answer in a row up to 4 s, and
stretched at random), whether a table got in was a draw at each sending: in bench/ S4 at twice
the capacity about one sending in three got in, so a table in ten was turned away seven times
in a row or more, and its taps reached the room 36-63 s late while most tables waited 5 s
(docs/performance.md, 2026-12-05). Each of those sendings also cost the server about half a
tap, and there were two for every one it took.

So a table turned away is given a turn instead: the end of the line, one typical gap between
requests served after the table before it (measured here, on the requests this process
takes), at least `MIN_WAIT` away. Its busy answer asks the phone to wait until then
(`retry_after`). Coming back at its turn, the table may take every slot of the process, where
a table that has not waited may take three quarters (parties.tap_limit): the tables that have
waited longest go first, and each waits about as long as the line ahead of it takes. A table
whose turn comes and that still finds no slot goes to the front again, `MIN_WAIT` later; one
that comes back early (a reloaded page) is told its turn again and keeps its place.

The line is the process's own, as its slots are: a party's requests all go to one process
(deploy.md: party-sticky routing). A turn not taken for `FORGET_AFTER` seconds is dropped.
"""

import asyncio
import weakref

MIN_WAIT = 0.5  # seconds: the soonest a table is asked to come back
MAX_WAIT = 20.0  # seconds: the longest (the gap misjudged, a line the process cannot serve)
EARLY = 0.05  # seconds: a phone back this early for its turn is on time (rounding, clocks)
FORGET_AFTER = 60.0  # seconds after its turn: a table that never came back
SMOOTHING = 0.05  # each served request's weight in the typical gap (about the last twenty)
FIRST_GAP = 0.01  # seconds: the typical gap before the process has served two requests
LONGEST_GAP = 1.0  # seconds: an idle spell counts as this, not as its length


class Line:
    """Tables (any hashable key) turned away, each with the time of its turn (monotonic
    seconds, as the caller's `now`)."""

    def __init__(self):
        self._turns = {}  # table -> its turn, in the order they were given
        self._end = float("-inf")  # the last turn given
        self.gap = FIRST_GAP  # typical seconds between requests served
        self._last_served = None

    def __len__(self):
        return len(self._turns)

    def turn_has_come(self, table, now):
        """Whether `table` was given a turn and it has come: it may take every slot."""
        turn = self._turns.get(table)
        return turn is not None and now >= turn - EARLY

    def served(self, table, now):
        """A request of `table` was let in and done: it leaves the line, and the gap since the
        last one served is measured."""
        self._turns.pop(table, None)
        if self._last_served is not None:
            gap = min(now - self._last_served, LONGEST_GAP)
            self.gap += SMOOTHING * (gap - self.gap)
        self._last_served = now

    def turned_away(self, table, now):
        """`table` was turned away: the seconds until its turn (the phone's `retry_after`)."""
        turn = self._turns.get(table)
        if turn is not None and now < turn - EARLY:
            return min(turn - now, MAX_WAIT)  # back early: same turn, same place
        self._forget_old(now)
        if turn is not None:  # its turn came and no slot was free: the end of the line again
            del self._turns[table]
        self._end = min(max(self._end + self.gap, now + MIN_WAIT), now + MAX_WAIT)
        self._turns[table] = self._end
        return self._end - now

    def _forget_old(self, now):
        while self._turns:
            table, turn = next(iter(self._turns.items()))
            if turn > now - FORGET_AFTER:
                return
            del self._turns[table]


_lines = weakref.WeakKeyDictionary()  # event loop -> its line


def of_loop():
    """The running loop's line (one a process, for its server's loop)."""
    loop = asyncio.get_running_loop()
    line = _lines.get(loop)
    if line is None:
        line = _lines[loop] = Line()
    return line


