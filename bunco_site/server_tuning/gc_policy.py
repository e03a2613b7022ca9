"""Garbage collection for a long-running server holding thousands of websockets.

Measured in bench/ (S2, 100 parties, 1,200 phones): CPython's automatic full collections ran
every few seconds and each walked every long-lived object (~300,000, mostly the connected
phones' protocol objects and tasks), pausing the whole server 100-220 ms: the tail of the
tap latency. Here the objects alive once the app is loaded are frozen (they live as long as
the process), automatic full collections are off, and a full collection runs on a timer,
rarely, so cycles among long-lived objects (a phone's connection after it closes) are still
freed. Young collections run as usual and free most garbage.
"""

import gc
import threading
import time

FULL_COLLECTION_EVERY = 600  # seconds
NEVER = 1_000_000


def install(every=FULL_COLLECTION_EVERY):
    gc.collect()
    gc.freeze()
    young, middle, _full = gc.get_threshold()
    gc.set_threshold(young, middle, NEVER)
    threading.Thread(target=_collect_every, args=(every,), name="bunco-gc", daemon=True).start()


def _collect_every(seconds):
    while True:
        time.sleep(seconds)
        gc.collect()
