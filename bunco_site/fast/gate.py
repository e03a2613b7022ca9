"""The gate in front of the work: a scorekeeper's tap runs now or is answered busy at once, and
Django's pages go in a few at a time. Its state is kept per event loop (a server has one).

Why: a server past its capacity cannot serve every tap. Queued, the taps it cannot serve make
every tap wait behind them and the backlog outlasts the surge. Turned away, a tap waits on its
phone, whose outbox sends it again (same tap id, stored once) when the answer says, while the
taps the server takes stay fast (docs/performance.md, S4).

A tap's way through (`Gate.tap`):

    arrive ── it already waited TAP_WAIT unread (the loop's lag) ───────────────┐
      │                                                                         │
    its party's turn: one tap of a party at a time ─── not by the deadline ─────┤
      │                                                                         │
    a slot: a table back at its turn in the line takes any, waiting a moment   │
    for one; any other takes one of the first three quarters, or none ─────────┤
      │                                                                         │
    a worker thread ─── not started by the deadline ───────────────────────────┤
      │                                                                         ▼
    run (roll_record) and send the pushes          busy: 503, nothing read or written; the
      │                                            table gets a turn at the end of the line,
    done: the table leaves the line, the slot      and the answer says when it is
    is freed, and the number of slots adapts

The deadline is TAP_WAIT after the tap arrived: its clock starts when the app reads the tap,
less the event loop's lag (a loop with too much to do reads every request late). The number
of slots follows the typical time a tap holds one as TCP's window follows its round trips
(additive increase, multiplicative decrease): it falls while the typical tap of about the last
ten took longer than TAP_SLOW with half the slots in use, and grows back to TAP_SLOTS. The line
spaces the turns by the rate the process served lately, so the tables that waited longest go
first and each is asked back about when the line ahead of it is done.

A page (any request for Django but /healthz) waits for one of REQUESTS_AT_ONCE turns, first
come first served, before it takes a thread or a pooled database connection.

The settings are in docs/deploy.md. With "gate" left out of BUNCO_FAST the gate is open: a
tap runs at once in a worker thread, and a page goes straight in.
"""

import asyncio
import collections
import contextlib
import threading
import time
import weakref

from django.conf import settings

LAG_INTERVAL = 0.05  # seconds between the lag watch's wake-ups
FLOOR = 2  # slots at least; the limit starts at its ceiling (TAP_SLOTS)
BACK_OFF = 0.75  # what a cut leaves of the limit
FRESH_SHARE = 0.75  # of the slots, what a table that has not waited its turn may take
SMOOTHING = 0.1  # each tap's weight in the typical time (about the last ten taps)
AT_TURN_PATIENCE = 0.02  # seconds a table back at its turn waits for a slot to be freed
MIN_WAIT = 0.5  # seconds: the soonest a table turned away is asked back
MAX_WAIT = 20.0  # seconds: the latest (a misjudged gap, a line the process cannot serve)
EARLY = 0.05  # seconds: a phone back this early for its turn is on time (rounding, clocks)
FORGET_AFTER = 60.0  # seconds after its turn: a table that never came back
RATE_WINDOW = 2.0  # seconds of taps served that the typical gap is measured on
MOST_GAP = 0.02  # seconds: the typical gap at most (a process serving 50 taps a second)
UNQUEUED_PATHS = frozenset({"/healthz"})  # the proxy's check: a busy process is not down

NOT_STARTED = object()  # what a worker thread returns for a tap it found too late


class Busy(Exception):
    """The tap was not let in; `retry_after` is the seconds until its table's turn."""

    def __init__(self, retry_after=None):
        super().__init__(retry_after)
        self.retry_after = retry_after


def is_open():
    return "gate" not in settings.FAST


# The tap's way through.


class Gate:
    """A loop's gate: its slots, its line, its page turns."""

    def __init__(self):
        self.slots = Slots(slow=settings.TAP_SLOW, ceiling=settings.TAP_SLOTS)
        self.line = Line()
        self.pages = asyncio.Semaphore(settings.REQUESTS_AT_ONCE)

    @contextlib.asynccontextmanager
    async def tap(self, party_id, table_number):
        """Let the tap in, or Busy with its table's turn. The block gets `run(call)`, which
        runs `call()` in a worker thread if one starts it by the deadline (else Busy)."""
        ticket, table = Ticket(), (party_id, table_number)
        waited = self.line.turn_has_come(table, time.monotonic())
        try:
            async with ticket.holding(party_turns.of(party_id)), self._slot(waited, ticket):
                yield ticket.run
                self.line.served(table, time.monotonic())
        except Busy:
            raise Busy(self.line.turned_away(table, time.monotonic())) from None

    @contextlib.asynccontextmanager
    async def _slot(self, waited, ticket):
        if waited:
            async with self.slots.slot_at_turn(min(ticket.left(), AT_TURN_PATIENCE)):
                yield
        else:
            with self.slots.slot():
                yield

    @contextlib.asynccontextmanager
    async def page(self, path):
        """A page's turn, held for the block (/healthz needs none)."""
        if path in UNQUEUED_PATHS:
            yield
            return
        async with self.pages:
            yield


class OpenGate:
    """The gate switched off: every tap runs at once, every page goes in."""

    @contextlib.asynccontextmanager
    async def tap(self, party_id, table_number):
        loop = asyncio.get_running_loop()

        async def run(call):
            return await loop.run_in_executor(None, call)

        yield run

    @contextlib.asynccontextmanager
    async def page(self, path):
        yield


_gates = weakref.WeakKeyDictionary()  # event loop -> its gate


def of_loop():
    """The running loop's gate (one a process, for its server's loop)."""
    if is_open():
        return OpenGate()
    loop = asyncio.get_running_loop()
    gate = _gates.get(loop)
    if gate is None:
        gate = _gates[loop] = Gate()
    return gate


# The deadline.


class Ticket:
    """One tap's admission: started by its deadline, or never. The event loop (giving up at the
    deadline) and the worker thread (starting the tap) decide under one lock, so a tap is either
    started or turned away, never both."""

    def __init__(self):
        # Made on the event loop as the tap is read: it arrived the loop's lag earlier.
        self.deadline = time.monotonic() + settings.TAP_WAIT - loop_lag()
        self._lock = threading.Lock()
        self._state = "waiting"

    def left(self):
        """Seconds until the deadline (0 once passed)."""
        return max(0.0, self.deadline - time.monotonic())

    @contextlib.asynccontextmanager
    async def holding(self, turn):
        """Hold `turn` (an async context manager) for the block if it is had by the deadline;
        else Busy."""
        if self.left() <= 0:
            raise Busy
        async with contextlib.AsyncExitStack() as held:
            try:
                async with asyncio.timeout(self.left()):
                    await held.enter_async_context(turn)
            except TimeoutError:
                raise Busy from None
            yield

    async def run(self, call):
        """`call()` in a worker thread, if one starts it by the deadline; else Busy (and the
        thread that reaches it later drops it)."""
        future = asyncio.get_running_loop().run_in_executor(None, self._start_then, call)
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


class _LagWatch:
    """A task that sleeps LAG_INTERVAL again and again: how much later than asked it wakes is
    the loop's lag; while it has not yet woken, the time since it was due counts too."""

    def __init__(self, loop):
        self.loop = loop
        self.last = 0.0
        self.due = loop.time() + LAG_INTERVAL
        self.task = loop.create_task(self._run(), name="loop lag watch")

    async def _run(self):
        while True:
            self.due = self.loop.time() + LAG_INTERVAL
            await asyncio.sleep(LAG_INTERVAL)
            self.last = max(0.0, self.loop.time() - self.due)

    def seconds(self):
        return max(self.last, self.loop.time() - self.due)


_lag_watches = weakref.WeakKeyDictionary()  # loop -> its watch


def loop_lag():
    """How far the running loop is behind, in seconds: what a request waits, unseen, before the
    app can read it (0 the first time it is asked, when the watch starts, and with no loop)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return 0.0
    watch = _lag_watches.get(loop)
    if watch is None or watch.task.done():
        watch = _lag_watches[loop] = _LagWatch(loop)
    return watch.seconds()


# The party's turn.


class PartyTurns:
    """One tap of a party at a time in this process, waiting in the event loop (where waiting
    is free; on the party's row lock, in a worker thread, it held one of the pool's few)."""

    def __init__(self):
        self._locks = {}  # (loop, party id) -> [lock, holders and waiters]

    @contextlib.asynccontextmanager
    async def of(self, party_id):
        key = (asyncio.get_running_loop(), party_id)
        entry = self._locks.setdefault(key, [asyncio.Lock(), 0])
        entry[1] += 1
        try:
            async with entry[0]:
                yield
        finally:
            entry[1] -= 1
            if entry[1] == 0:
                del self._locks[key]


party_turns = PartyTurns()


# The slots.


class Slots:
    """How many taps a process has in hand at once, adapted to how long they take. `slow`: the
    typical seconds in a slot past which it has too many (TAP_SLOW); `ceiling`: the most slots,
    and the first limit (TAP_SLOTS). A short pause (of the loop, a thread, the database) brings a
    burst of slow taps with few slots in use: that is not too many in hand, and cuts nothing."""

    def __init__(self, *, slow, ceiling, floor=FLOOR):
        self.slow, self.floor, self.ceiling = slow, floor, ceiling
        self.limit = float(ceiling)
        self.in_flight = 0
        self.typical = 0.0  # seconds in a slot, smoothed over the last taps
        self._last_cut = float("-inf")
        self._at_turn = collections.deque()  # futures of tables back at their turn, waiting

    @contextlib.contextmanager
    def slot(self):
        """A slot for the block, for a table that has not waited its turn; Busy if none is free
        to it (it may not take the last quarter)."""
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
        """A slot for the block, for a table back at its turn: any, and with none free the next
        one freed, before any table that has not waited, within `patience` seconds; else Busy."""
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
            # One cut for all the taps started before it: they report the same overload.
            if self.in_flight * 2 >= self.limit and started >= self._last_cut:
                self.limit = max(self.floor, self.limit * BACK_OFF)
                self._last_cut = now
        else:
            self.limit = min(self.ceiling, self.limit + 1 / self.limit)


# The line.


class Line:
    """Tables (any hashable key) turned away, each with the time of its turn (monotonic seconds,
    as the caller's `now`). A turn is the end of the line, one typical gap between taps served
    after the one before, at least MIN_WAIT away; the gap is measured on the last RATE_WINDOW
    seconds and is at most MOST_GAP, so a process quiet a moment ago does not space its first
    turns far apart."""

    def __init__(self):
        self._turns = {}  # table -> its turn, in the order they were given
        self._end = float("-inf")  # the last turn given
        self._served_at = collections.deque()  # when taps were served, in RATE_WINDOW

    def __len__(self):
        return len(self._turns)

    def turn_has_come(self, table, now):
        """Whether `table` was given a turn and it has come: it may take any slot."""
        turn = self._turns.get(table)
        return turn is not None and now >= turn - EARLY

    def served(self, table, now):
        """A tap of `table` was let in and done: the table leaves the line; the tap counts in
        the rate served."""
        self._turns.pop(table, None)
        self._served_at.append(now)
        self._forget_served(now)

    def gap(self, now):
        """The typical seconds between taps served, lately."""
        self._forget_served(now)
        return min(RATE_WINDOW / max(len(self._served_at), 1), MOST_GAP)

    def _forget_served(self, now):
        while self._served_at and self._served_at[0] < now - RATE_WINDOW:
            self._served_at.popleft()

    def turned_away(self, table, now):
        """`table` was turned away: the seconds until its turn (the phone's `retry_after`)."""
        turn = self._turns.get(table)
        if turn is not None and now < turn - EARLY:
            return min(turn - now, MAX_WAIT)  # back early (a reloaded page): same place
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

