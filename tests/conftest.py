"""Shared by the test folders: one Chromium for the whole session (Playwright's sync API allows
one at a time per thread, so the browser tests and the fault tests must share it)."""

import os

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
]


@pytest.fixture(scope="session")
def chromium():
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"Debian's Chromium is not at {CHROMIUM}: run `apt-get install chromium`.")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield browser
        browser.close()
