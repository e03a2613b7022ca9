"""The line of tables a busy process has turned away: each is told when its turn comes, and is
let in first when it comes back then.

A tap turned away (bunco_site.fast.admission, bunco_site.fast.tap_limit) waits on its phone and is
sent again. When each phone chose its own wait (1 s, doubled per busy answer in a row up to 4 s, and
stretched at random), whether a table got in was a draw at each sending: in bench/ S4 at about 1.5
times the capacity roughly one sending in three got in, and while half the taps reached the room
within 2-5 s, the slowest took 37-63 s (bench/results/2026-12-05.md). The process also read and
answered about two busy sendings for each request it took.

So a table turned away is given a turn instead: the end of the line, one typical gap between
requests served after the table before it, at least `MIN_WAIT` away. The gap is measured on
the requests this process served in the last `RATE_WINDOW` seconds, and is at most
`MOST_GAP`: the rate served is what the process can do only while it is full, and a process
that was quiet a moment ago would otherwise space its first turns far apart. (Smoothed over
each gap between one request served and the next, one pause of the process lengthened the
gap by two thirds, and the turns given in the burst after it ran 8 s out where 2-4 s had been
usual.) Its busy answer asks the phone to wait until its turn (`retry_after`). Coming back at
its turn, the table may take every slot of the process, where a table that has not waited may
take three quarters (bunco_site.fast.tap_limit), and waits a moment for the next one freed: the
tables that have waited longest go first, and each waits about as long as the line ahead of
it takes. A table whose turn comes and that still finds no slot goes to the end of the line
again; one that comes back early (a reloaded page) is told the rest of its wait and keeps its
place.

The line is the process's own, as its slots are: a party's requests all go to one process
(deploy.md: party-sticky routing). A turn not taken for `FORGET_AFTER` seconds is dropped.
"""

import asyncio
import collections
import weakref

MIN_WAIT = 0.5  # seconds: the soonest a table is asked to come back
MAX_WAIT = 20.0  # seconds: the longest (the gap misjudged, a line the process cannot serve)
EARLY = 0.05  # seconds: a phone back this early for its turn is on time (rounding, clocks)
FORGET_AFTER = 60.0  # seconds after its turn: a table that never came back
RATE_WINDOW = 2.0  # seconds of requests served that the typical gap is measured on
MOST_GAP = 0.02  # seconds: the typical gap at most (a process serving 50 requests a second)


class Line:
    """Tables (any hashable key) turned away, each with the time of its turn (monotonic
    seconds, as the caller's `now`)."""

    def __init__(self):
        self._turns = {}  # table -> its turn, in the order they were given
        self._end = float("-inf")  # the last turn given
        self._served_at = collections.deque()  # when requests were served, in RATE_WINDOW

    def __len__(self):
        return len(self._turns)

    def turn_has_come(self, table, now):
        """Whether `table` was given a turn and it has come: it may take every slot."""
        turn = self._turns.get(table)
        return turn is not None and now >= turn - EARLY

    def served(self, table, now):
        """A request of `table` was let in and done: it leaves the line, and counts in the
        rate served."""
        self._turns.pop(table, None)
        self._served_at.append(now)
        self._forget_served(now)

    def gap(self, now):
        """The typical seconds between requests served, lately."""
        self._forget_served(now)
        return min(RATE_WINDOW / max(len(self._served_at), 1), MOST_GAP)

    def _forget_served(self, now):
        while self._served_at and self._served_at[0] < now - RATE_WINDOW:
            self._served_at.popleft()

    def turned_away(self, table, now):
        """`table` was turned away: the seconds until its turn (the phone's `retry_after`)."""
        turn = self._turns.get(table)
        if turn is not None and now < turn - EARLY:
            return min(turn - now, MAX_WAIT)  # back early: same turn, same place
        self._forget_old(now)
        if turn is not None:  # its turn came and no slot was free: the end of the line again
            del self._turns[table]
        self._end = min(max(self._end + self.gap(now), now + MIN_WAIT), now + MAX_WAIT)
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
