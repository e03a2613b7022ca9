"""The server's garbage-collection policy (bunco_site.fast.server_tuning.gc_policy), in a process of
its own: it changes the interpreter's collector for good."""

import subprocess
import sys
import textwrap

CHILD = textwrap.dedent(
    """
    import gc, time, weakref
    from bunco_site.fast.server_tuning import gc_policy

    import threading
    gc_policy.check()  # raises Skip if this interpreter's collector is not the measured kind
    gc_policy.install(every=0.2)
    gc_policy.install(every=0.2)  # twice is once: one timer
    assert [t.name for t in threading.enumerate()].count("bunco-gc") == 1
    assert gc.get_threshold()[2] == gc_policy.NEVER, gc.get_threshold()
    assert gc.get_freeze_count() > 0

    class Node:
        pass

    a, b = Node(), Node()
    a.other, b.other = b, a  # a cycle, as a closed connection's objects are
    gone = weakref.ref(a)
    gc.collect(1)  # both survive young collections: now in the oldest generation
    gc.collect(1)
    del a, b
    for _ in range(100):  # young collections alone never reach it...
        [object() for _ in range(1000)]
    deadline = time.monotonic() + 10  # ...the timed full collection does, within 0.2 s
    while gone() is not None and time.monotonic() < deadline:  # (later on a loaded machine)
        time.sleep(0.05)
    print("freed" if gone() is None else "kept")
    """
)


def test_full_collections_run_on_the_timer_and_free_old_cycles():
    result = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "freed"
