"""The app's settings for the tests, with one change: with Redis, a prefix of the test run's own
(BUNCO_TEST_PREFIX, which tests/e2e/conftest.py gives each browser test session's server) on
the channel layer and the cache. Redis pub/sub ignores database numbers, and each test database
numbers its first party 1, so two runs on one Redis would otherwise ring each other's bells.
Under pytest-xdist (`pytest -n auto`) each worker is a run of its own: its prefix is its name
(gw0, gw1) unless a server's is given, and it collects the static files its servers serve, and
its own pages read, into a folder of its own (BUNCO_STATIC_ROOT, which the servers it starts
inherit): two collectstatic runs in one folder rewrite the files a server is reading. Its
databases, ports and Redis servers are its own already. Without a prefix, these are the app's
settings as they are."""

import os
from pathlib import Path

_worker = os.environ.get("PYTEST_XDIST_WORKER")
if _worker:
    _artifacts = Path(__file__).resolve().parents[1] / "test-artifacts"
    os.environ.setdefault("BUNCO_STATIC_ROOT", str(_artifacts / f"static-{_worker}"))

from bunco_site import settings as _app  # noqa: E402  (reads BUNCO_STATIC_ROOT)

globals().update({name: value for name, value in vars(_app).items() if name.isupper()})

_prefix = os.environ.get("BUNCO_TEST_PREFIX") or _worker
if _prefix and os.environ.get("REDIS_URL"):
    CHANNEL_LAYERS = {
        "default": {
            **_app.CHANNEL_LAYERS["default"],
            "CONFIG": {**_app.CHANNEL_LAYERS["default"]["CONFIG"], "prefix": _prefix},
        }
    }
    CACHES = {"default": {**_app.CACHES["default"], "KEY_PREFIX": f"bunco-{_prefix}"}}
    if _worker and not os.environ.get("BUNCO_TEST_PREFIX"):
        # A worker's own cache also gets a Redis database of its own (1 to 15; the servers'
        # and other runs' stay on the URL's): with prefixes alone, the rate-limit tests'
        # counts lost keys while another worker's ran (pub/sub ignores databases).
        from urllib.parse import urlparse

        _url = urlparse(os.environ["REDIS_URL"])
        _db = 1 + int(_worker.removeprefix("gw") or 0) % 15
        CACHES["default"]["LOCATION"] = _url._replace(path=f"/{_db}").geturl()
