"""How far the server's event loop is behind: what a request waits, unseen, before the app can
read it.

A loop that has more to do than time to do it reads each request late: the request waits in
its socket for the loop to come round to it, a wait no timer the request starts can see. A
task here sleeps a short interval again and again; how much later than asked it wakes is the
loop's lag. While it has not yet woken, the time since it was due counts too, so a loop held
up right now is seen before the hold-up ends.
"""

import asyncio
import weakref

INTERVAL = 0.05  # seconds between the watch's wake-ups

_watches = weakref.WeakKeyDictionary()  # loop -> its watch


class _Watch:
    def __init__(self, loop):
        self.loop = loop
        self.last = 0.0
        self.due = loop.time() + INTERVAL
        self.task = loop.create_task(self._run(), name="loop lag watch")

    async def _run(self):
        while True:
            self.due = self.loop.time() + INTERVAL
            await asyncio.sleep(INTERVAL)
            self.last = max(0.0, self.loop.time() - self.due)

    def seconds(self):
        return max(self.last, self.loop.time() - self.due)


def seconds():
    """The running loop's lag, in seconds (0 the first time it is asked, when the watch
    starts, and outside a running loop)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return 0.0
    watch = _watches.get(loop)
    if watch is None or watch.task.done():
        watch = _watches[loop] = _Watch(loop)
    return watch.seconds()
