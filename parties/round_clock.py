"""The server's own clock for timed rounds: every half second it asks the database for a timed
round whose time is up with no bell yet, and rings it (parties.services.round.clock_bells_due),
so the round ends on time with every phone asleep, and every page hears the bell within a
second. Each server process runs one (bunco_site/serve.py starts it with the server); the
party's lock makes several processes ring a bell once, and a process that dies at the deadline
leaves the bell to the others' next tick, or to its own once it is started again.

The pages' countdowns still report 0 (parties.views.play.clock_ran_out), and the first tap
after the deadline rings it first: whichever comes first rings it, once."""

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor

from channels.db import DatabaseSyncToAsync

from parties.services.round import clock_bells_due

TICK = 0.5  # seconds between two questions: the bell is heard within a second of the deadline

logger = logging.getLogger("bunco.round_clock")
# One thread of its own: a tick never waits behind the pages' reads, nor two ticks overlap.
_ticks = ThreadPoolExecutor(max_workers=1, thread_name_prefix="round-clock")
_ring_due = DatabaseSyncToAsync(clock_bells_due, thread_sensitive=False, executor=_ticks)


async def keep_time(tick=TICK):
    """Ring each timed round's bell once its time is up, until cancelled."""
    while True:
        await asyncio.sleep(tick)
        try:
            rang = await _ring_due()
        except Exception:  # the database away for a moment: ask again next tick
            logger.exception("the round clock could not read the rounds")
            continue
        if rang:
            logger.info("the clock rang the bell in round %s", ", ".join(map(str, rang)))


def start(loop):
    """Start the clock on the server's loop; the task (kept, so it is not collected)."""
    return loop.create_task(keep_time(), name="round-clock")
