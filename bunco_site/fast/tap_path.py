"""The scorekeeper's tap without Django's request stack: an ASGI app in front of Django.

A tap is the party's hot path (docs/performance.md). Through Django's handler and middleware chain
it cost several times its own work in server CPU. This adapter takes the one request that
matters, `POST /parties/<id>/table/<n>/rolls/` from a phone's outbox, when the request itself
is ordinary (a same-origin fetch wanting JSON, a UTF-8 form body, one allowed host, a CSRF token
that matches its cookie, a live session) and calls the same tap as Django's view,
`taps.record` -> `roll_record`, which reads the session's links after locking the party
and answers. What the adapter checks is only what Django's middleware would: anything it cannot
vouch for (and a tap the links do not allow, or a party that does not exist) goes to Django
unchanged with its body, and gets Django's own answer.

The checks are Django's own, on Django's own request (`ASGIRequest`) made from the scope:
the tap's address by Django's URL patterns (parties/urls.py's `roll`), `get_host` with
ALLOWED_HOSTS, `is_secure`, the CSRF middleware's origin rule and token check, and the session
as the database backend stores and decodes it, read on every tap. With "lean_door" left out of
BUNCO_FAST (bunco_site/asgi.py), every tap goes through Django's view.
"""

import io
import json
from typing import NamedTuple
from urllib.parse import parse_qsl

from django.conf import settings
from django.core.exceptions import DisallowedHost, PermissionDenied
from django.core.handlers.asgi import ASGIRequest
from django.http import Http404
from django.middleware.csrf import CsrfViewMiddleware
from django.urls import Resolver404, resolve
from django.utils import translation

from parties import taps
from parties.middleware import security_headers
from parties.services.errors import PartyError

TAP_URL_NAME = "roll"  # parties/urls.py: the table's rolls, where a phone's tap is posted
MAX_BODY = 4096  # a tap is under 200 bytes, and the outbox sends at most 3,500 at once
DB_SESSIONS = "django.contrib.sessions.backends.db"
FORM = "application/x-www-form-urlencoded"


class TapPath:
    def __init__(self, app):
        self.app = app
        # Made once, as Django's middleware reads its settings once: over HTTP, and over HTTPS.
        self.headers = {secure: _answer_headers(secure) for secure in (False, True)}

    async def __call__(self, scope, receive, send):
        place = _tap_place(scope)
        if place is None:
            return await self.app(scope, receive, send)
        read = await _read_body(receive)
        if read is None:
            return  # the phone went away before it finished sending
        body, whole = read
        party_id, number = place
        tap = _ordinary_tap(scope, body) if whole and len(body) <= MAX_BODY else None
        answer = None
        if tap is not None:
            try:
                answer = await taps.record(
                    party_id, number, tap.fields, session_key=tap.session_key,
                    language=tap.language,
                )
            except (PermissionDenied, Http404):
                answer = None  # Django answers these, with its own pages
        if answer is None:
            return await self.app(scope, _replay(body, whole, receive), send)
        status, payload = answer
        headers = [*self.headers[tap.secure], (b"content-language", tap.language.encode())]
        await _send_json(send, status, payload, headers)


def _tap_place(scope):
    """(party id, table number) of a tap's POST, by Django's own URL patterns; else None."""
    http_post = scope["type"] == "http" and scope["method"] == "POST"
    if not http_post or not scope["path"].endswith("/rolls/"):
        return None
    try:
        match = resolve(scope["path"])
    except Resolver404:
        return None
    if match.url_name != TAP_URL_NAME:
        return None
    return match.kwargs["party_id"], match.kwargs["number"]


async def _read_body(receive):
    """The body, read up to just past MAX_BODY: (bytes read, whether that was all of it), or
    None if the client went away."""
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunks.append(message.get("body", b""))
        size += len(chunks[-1])
        more = message.get("more_body", False)
        if not more or size > MAX_BODY:
            return b"".join(chunks), not more


def _replay(body, whole, receive):
    """A `receive` that hands Django the body already read, then the rest of the stream."""
    first = [{"type": "http.request", "body": body, "more_body": not whole}]

    async def replayed():
        if first:
            return first.pop()
        return await receive()

    return replayed


def _utf8_form(request):
    """A form body in UTF-8, as the phone's fetch sends it (Django decodes any other charset
    its own way, and refuses some: it judges those)."""
    params = request.content_params
    return (
        request.content_type == FORM
        and set(params) <= {"charset"}
        and params.get("charset", "utf-8").lower() == "utf-8"
    )


# Django's CSRF middleware, asked whether it accepts a tap: its origin rule and its token check.
# A refusal is logged here and the tap goes on to Django's door, which refuses it again.
_CSRF = CsrfViewMiddleware(lambda request: None)


class Tap(NamedTuple):
    session_key: str
    fields: dict  # as taps.tap_fields gives them
    secure: bool
    language: str  # the phone's, as Django's LocaleMiddleware chooses it


def _ordinary_tap(scope, body):
    """The tap, when it is a phone's ordinary one; None sends it to Django. Every check is
    Django's own, on Django's own request made from the scope: the host (`get_host`, with
    ALLOWED_HOSTS), the scheme (`is_secure`), and the CSRF middleware's origin and token rules."""
    if settings.CSRF_USE_SESSIONS or settings.SESSION_ENGINE != DB_SESSIONS:
        return None
    request = ASGIRequest(scope, io.BytesIO(body))
    try:
        request.get_host()
    except DisallowedHost:
        return None
    secure = request.is_secure()
    if settings.SECURE_SSL_REDIRECT and not secure:
        return None
    if "application/json" not in request.META.get("HTTP_ACCEPT", ""):
        return None  # a plain form post: Django answers with a redirect and a message
    if not _utf8_form(request):
        return None
    _CSRF.process_request(request)
    if _CSRF.process_view(request, None, (), {}) is not None:
        return None
    session_key = request.COOKIES.get(settings.SESSION_COOKIE_NAME)
    if not session_key or len(session_key) > 64:
        return None
    try:
        form = dict(parse_qsl(body.decode(), keep_blank_values=True, max_num_fields=20))
        language = translation.get_language_from_request(request)
        return Tap(session_key, taps.tap_fields(form), secure, language)
    except (UnicodeDecodeError, ValueError, PartyError):
        return None


def _answer_headers(secure):
    """The headers of every JSON answer of the lean door but its length (and a busy tap's
    Retry-After), as bytes: as Django's view and middleware answer the same tap, the security
    headers from the one function that Django's answers take them from."""
    headers = [("Content-Type", "application/json"), ("Vary", "Accept-Language, Cookie")]
    headers += security_headers(secure=secure)
    return [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers]


async def _send_json(send, status, payload, headers):
    body = json.dumps(payload).encode()
    headers = [*headers, (b"content-length", str(len(body)).encode())]
    # A tap turned away at the gate (bunco_site.fast.gate): when to send again.
    if "retry_after" in payload:
        wait = taps.retry_after_header(payload["retry_after"])
        headers.append((b"retry-after", wait.encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
