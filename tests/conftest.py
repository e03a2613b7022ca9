"""Shared by the test folders: one Chromium for the whole session (Playwright's sync API allows
one at a time per thread, so the browser tests and the fault tests must share it); and the
plugin that skips the tests whose service this machine lacks (tests/service_checks.py).
Under pytest-xdist, what each worker keeps to itself is in tests/settings.py."""

import pytest
from hypothesis import settings as hypothesis_settings
from playwright.sync_api import expect

# Hypothesis fails an example that takes over 200 ms: a timed assertion, which a loaded machine
# fails (a bell-count example took 315 ms with both cores busy, 31 ms when run again). Speed
# is measured by bench/, never asserted here.
hypothesis_settings.register_profile("bunco", deadline=None)
hypothesis_settings.load_profile("bunco")

pytest_plugins = ["tests.service_checks"]

# A page's expect() waits up to 15 s, not Playwright's 5: each of the two workers runs its own
# servers and pages on a two-core machine, where a tap's push once took past 5 s to reach the
# screen (CI, production stage). It is no timed assertion: each expect passes as soon as it
# holds. How fast a tap comes back is measured by bench/.
expect.set_options(timeout=15_000)

CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
]


@pytest.fixture(scope="session")
def chromium():
    """Needs Chromium: tests using it skip where it is missing (tests/service_checks.py)."""
    from playwright.sync_api import sync_playwright

    from tests.service_checks import chromium_path

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)
        yield browser
        browser.close()
