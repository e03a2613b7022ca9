"""The app's settings for the tests, with one change: with Redis, a prefix of the test run's own
on the channel layer and the cache. Redis pub/sub ignores database numbers, and each test
database numbers its first party 1, so two runs on one Redis (a browser test's server beside
another's, or two pytest-xdist workers) would otherwise ring each other's bells. The prefix is
BUNCO_TEST_PREFIX where a test starts a server with one (tests/e2e/conftest.py), else the
xdist worker's name; with neither, these are the app's settings as they are."""

import os

from bunco_site import settings as _app

globals().update({name: value for name, value in vars(_app).items() if name.isupper()})

_prefix = os.environ.get("BUNCO_TEST_PREFIX") or os.environ.get("PYTEST_XDIST_WORKER")
if _prefix and os.environ.get("REDIS_URL"):
    CHANNEL_LAYERS = {
        "default": {
            **_app.CHANNEL_LAYERS["default"],
            "CONFIG": {**_app.CHANNEL_LAYERS["default"]["CONFIG"], "prefix": _prefix},
        }
    }
    CACHES = {"default": {**_app.CACHES["default"], "KEY_PREFIX": f"bunco-{_prefix}"}}
