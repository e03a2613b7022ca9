"""The app's settings for a browser-test server, with one change: with Redis, a prefix of the
run's own (BUNCO_E2E_PREFIX) on the channel layer and the cache. Redis pub/sub ignores database
numbers, and each run's fresh database numbers its first party 1, so without it two runs on one
Redis would ring each other's bells."""

import os

from bunco_site import settings as _app

globals().update({name: value for name, value in vars(_app).items() if name.isupper()})

_prefix = os.environ.get("BUNCO_E2E_PREFIX")
if _prefix and os.environ.get("REDIS_URL"):
    CHANNEL_LAYERS = {
        "default": {
            **_app.CHANNEL_LAYERS["default"],
            "CONFIG": {**_app.CHANNEL_LAYERS["default"]["CONFIG"], "prefix": _prefix},
        }
    }
    CACHES = {"default": {**_app.CACHES["default"], "KEY_PREFIX": f"bunco-{_prefix}"}}
