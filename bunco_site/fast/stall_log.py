"""The event loop's hold-ups, caught while they happen: an opt-in diagnostic for the server.

A second in which no phone hears anything (bench/ counts them as stalled seconds) has one of a
few causes: something synchronous holding the event loop (a slow callback, a collection, a
big render), or the whole process not running (the machine or its host busy elsewhere).
Afterwards the two look the same. This watch tells them apart while they happen: the loop
beats a clock every `BEAT` seconds, and a thread of its own looks every `LOOK` seconds; when
the beat is older than the threshold, the thread takes the loop thread's stack (what it is
running now), again at each look while the hold-up lasts, and when the loop beats again it logs
one warning: how long, the stacks it saw and how often, and how late the watching thread
itself woke. A thread that woke on time saw the loop held; one that woke as late as the hold-up
was held too (the process was paused, or C code kept the interpreter's lock), and a thread
woken that late is logged even when the loop ran again before it could look.

Off unless `BUNCO_STALL_LOG` (settings.STALL_LOG) is a number of seconds above 0 (0.2 says:
log hold-ups of 200 ms and more). Its cost when on: a callback on the loop and a thread
wake-up every few tens of milliseconds. Started by the server's launcher (bunco_site.serve)
once the loop runs.
"""

import collections
import logging
import sys
import threading
import time
import traceback

logger = logging.getLogger("bunco.stall_log")  # settings.LOGGING prints it once
BEAT = 0.02  # seconds between the loop's beats
LOOK = 0.02  # seconds between the thread's looks
MAX_STACKS = 3  # distinct stacks logged per hold-up, most seen first


class StallWatch:
    def __init__(self, loop, threshold):
        self.loop = loop
        self.threshold = threshold
        self.beat = time.monotonic()
        self.loop_thread = threading.get_ident()  # made on the loop's thread
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._watch, name="bunco-stall-log", daemon=True)

    def start(self):
        self.loop.call_soon(self._beat)
        self.thread.start()

    def stop(self):
        self.stopped.set()

    def _beat(self):
        self.beat = time.monotonic()
        if not self.stopped.is_set():
            self.loop.call_later(BEAT, self._beat)

    def _watch(self):
        stacks = collections.Counter()
        held_since = None  # the last beat before the hold-up
        latest_wake = 0.0  # the most the thread woke late while it lasted
        due = time.monotonic() + LOOK
        while not self.stopped.wait(max(0.0, due - time.monotonic())):
            now = time.monotonic()
            late = now - due
            due = now + LOOK
            beat = self.beat
            if now - beat >= self.threshold:
                if held_since != beat:  # a new hold-up (or the loop beat once in between)
                    if held_since is not None:  # the one before ended at this beat
                        self._log(held_since, beat - held_since, stacks, latest_wake)
                    held_since, stacks, latest_wake = beat, collections.Counter(), 0.0
                latest_wake = max(latest_wake, late)
                frame = sys._current_frames().get(self.loop_thread)
                if frame is not None:
                    stacks[_stack(frame)] += 1
            elif held_since is not None:
                self._log(held_since, beat - held_since, stacks, max(latest_wake, late))
                held_since = None
            elif late >= self.threshold:
                # This thread was held as long, and the loop ran first once it could go on:
                # the process was paused, or the interpreter's lock held, from when it was due.
                self._log(now - late, late, collections.Counter(), late)

    def _log(self, began, seconds, stacks, latest_wake):
        logger.warning(describe(seconds, stacks, latest_wake, began))


def _stack(frame):
    return "".join(traceback.format_stack(frame, limit=25))


def describe(seconds, stacks, watch_late, began=None):
    """The warning for one hold-up of `seconds` from `began` (the monotonic clock's time of the
    last beat before it): `stacks` (a Counter of the loop thread's stack texts, one count a
    look) and `watch_late`, the most the watching thread woke late while it lasted."""
    if watch_late >= seconds / 2:
        cause = (
            f"the watch woke {watch_late * 1000:.0f} ms late too: the process was paused or "
            "the interpreter's lock was held"
        )
    else:
        cause = (
            f"the watch woke on time (at worst {watch_late * 1000:.0f} ms late): "
            "the loop was busy"
        )
    when = ""
    if began is not None:  # the wall clock for people, the monotonic one to line up with bench/
        wall = time.time() - (time.monotonic() - began)
        stamp = time.strftime("%H:%M:%S", time.gmtime(wall)) + f".{int(wall % 1 * 1000):03d}"
        when = f" from {stamp} UTC (monotonic {began:.3f} s)"
    lines = [f"event loop held up {seconds * 1000:.0f} ms{when}; {cause}"]
    looks = sum(stacks.values())
    for stack, count in stacks.most_common(MAX_STACKS):
        lines.append(f"-- seen in {count} of {looks} looks:\n{stack.rstrip()}")
    return "\n".join(lines)


_watch = None


def start(loop, threshold):
    """Start the watch on `loop` (called on it) for hold-ups of `threshold` seconds and more
    (settings.STALL_LOG; 0: off). Once a process."""
    global _watch
    if not threshold or _watch is not None:
        return None
    _watch = StallWatch(loop, threshold)
    _watch.start()
    logger.warning("stall log on: event loop hold-ups of %.0f ms and more", threshold * 1000)
    return _watch
