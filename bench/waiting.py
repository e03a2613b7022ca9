"""Waiting for something another process does: poll, and fail with what was awaited."""

import time


def wait_until(condition, timeout, what, interval=0.05):
    """Poll `condition` until it returns something truthy; fail with `what` after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)
