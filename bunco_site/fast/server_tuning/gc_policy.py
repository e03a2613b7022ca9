"""Garbage collection for a long-running server holding thousands of websockets.

Measured in bench/ (S2, many parties' phones connected at once): CPython's automatic full
collections ran every few seconds and each walked every long-lived object (most of them the
connected phones' protocol objects and tasks), pausing the whole server long enough to make the
tail of the tap latency. Here the objects alive once the app is loaded are frozen (they live as
long as the process), automatic full collections are off, and a full collection runs on a timer,
rarely, so cycles among long-lived objects (a phone's connection after it closes) are still
freed. Young collections run as usual and free most garbage.

Touches: the interpreter's collector (`gc.freeze`, the third threshold) and starts one daemon
thread, `bunco-gc`. Version check: `check()` (CPython 3.11 to 3.13's three generations),
`MEASURED_WITH`. Switch: on unless BUNCO_SERVER_TUNING is "0" or a list without `gc_policy`.
Installed last, once the app is loaded, so that what it freezes is the app.
"""

import gc
import platform
import sys
import threading
import time

from bunco_site.fast.server_tuning import Skip, versions_of

MEASURED_WITH = {"CPython": "3.11"}
FULL_COLLECTION_EVERY = 600  # seconds
NEVER = 1_000_000
_THREAD = "bunco-gc"


def apply():
    check()
    install()
    return versions_of(MEASURED_WITH)


def check():
    """Raise Skip unless the collector is CPython's three generations, whose third threshold
    starts the full collections this switches off (3.11 to 3.13; 3.14's collector is
    incremental, and the threshold no longer means what it was measured as)."""
    python = f"{platform.python_implementation()} {platform.python_version()}"
    if platform.python_implementation() != "CPython" or not (3, 11) <= sys.version_info < (3, 14):
        raise Skip(f"measured on CPython 3.11's generational collector, not {python}'s")
    if not all(callable(getattr(gc, name, None)) for name in ("freeze", "get_freeze_count")):
        raise Skip(f"{python}'s gc has no freeze()")
    if len(gc.get_threshold()) != 3:
        raise Skip(f"{python}'s collector has {len(gc.get_threshold())} thresholds, not 3")


def install(every=FULL_COLLECTION_EVERY):
    if any(thread.name == _THREAD for thread in threading.enumerate()):
        return  # installed already: one timer is enough
    # The timer first: without it, with full collections off, old cycles would never be freed.
    threading.Thread(target=_collect_every, args=(every,), name=_THREAD, daemon=True).start()
    gc.collect()
    gc.freeze()
    young, middle, _full = gc.get_threshold()
    gc.set_threshold(young, middle, NEVER)


def _collect_every(seconds):
    while True:
        time.sleep(seconds)
        gc.collect()
