"""The app's settings for the tests, with one change: with Redis, a prefix of the test run's own
(BUNCO_TEST_PREFIX, which tests/e2e/conftest.py gives each browser test session's server) on
the channel layer and the cache. Redis pub/sub ignores database numbers, and each test database
numbers its first party 1, so two runs on one Redis would otherwise ring each other's bells.
Under pytest-xdist each worker is a run of its own: its prefix is its name (gw0, gw1) unless a
server's is given. Without a prefix, these are the app's settings as they are."""

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
