"""Shared by the test folders: one Chromium for the whole session (Playwright's sync API allows
one at a time per thread, so the browser tests and the fault tests must share it); and the
plugin that skips the tests whose service this machine lacks (tests/service_checks.py)."""

import os
import subprocess
import sys

import pytest

pytest_plugins = ["tests.service_checks"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def pytest_sessionstart(session):
    """With pytest-xdist's workers (`-n`), collect the static files production serves once,
    before the workers start: they inherit the mark, so each server's bench.servers.prepare
    finds the files collected, and no worker collects into the folder while another's server
    or app reads it. (Run alone, each prepare collects, one at a time.)"""
    if hasattr(session.config, "workerinput") or not getattr(
        session.config.option, "numprocesses", None
    ):
        return
    env = {**os.environ, "DJANGO_DEBUG": "0", "DJANGO_SECRET_KEY": "collectstatic-only",
           "DJANGO_ALLOWED_HOSTS": "localhost"}
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
                   env=env, check=True, timeout=300, cwd=ROOT)
    os.environ["BUNCO_STATIC_COLLECTED"] = "1"

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
