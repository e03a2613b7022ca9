"""The websocket's session, read only.

Channels' SessionMiddleware checks, on every message a socket sends, whether the session has
changed and must be saved. A phone's socket never changes it: it reads the links the session
holds once, when it connects. Those checks ran for every push to every phone (a measurable
share of the interpreter's time in bench/ S2, docs/performance.md); here the socket gets the
session and nothing more.
"""

from importlib import import_module

from django.conf import settings
from django.http.cookie import parse_cookie


class ReadOnlySessionMiddleware:
    """scope["session"]: the cookie's session, loaded when first read."""

    def __init__(self, app):
        self.app = app
        self.session_store = import_module(settings.SESSION_ENGINE).SessionStore

    async def __call__(self, scope, receive, send):
        cookies = "; ".join(
            value.decode("latin-1") for name, value in scope.get("headers", ()) if name == b"cookie"
        )
        key = parse_cookie(cookies).get(settings.SESSION_COOKIE_NAME)
        scope = dict(scope, session=self.session_store(session_key=key))
        return await self.app(scope, receive, send)
