"""ASGI entry point: HTTP through Django (a phone's ordinary tap takes the lean door in front of
it, bunco_site.fast.tap_path; the rest go in at the gate's page turns and run in kept threads,
bunco_site.fast.kept_threads), websockets through Channels, behind the host check.

Importing it patches nothing underneath: the server's measured patches are installed by its
launcher, `python -m bunco_site.serve` (bunco_site/serve.py), once this is loaded."""

import os

from bunco_site.fast.kept_threads import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bunco_site.settings")
# Django must be set up before anything imports models (the routing below does).
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.conf import settings  # noqa: E402
from django.urls import get_resolver  # noqa: E402

from bunco_site.fast.tap_path import TapPath  # noqa: E402
from parties.live.routing import websocket_urlpatterns  # noqa: E402
from parties.live.socket_session import ReadOnlySessionMiddleware  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": TapPath(django_asgi_app) if "lean_door" in settings.FAST else django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            ReadOnlySessionMiddleware(URLRouter(websocket_urlpatterns))
        ),
    }
)
get_resolver().reverse_dict  # noqa: B018 - built now, not by the first redirect (it is slow)
