"""The scorekeeper's tap without Django's request stack: an ASGI app in front of Django.

A tap is the party's hot path (PERFORMANCE.md). Through Django's handler, middleware chain
and ORM it cost about 14 ms of server CPU. This app answers the one request that matters,
`POST /parties/<id>/table/<n>/rolls/` from a phone's outbox, and only when everything about it
is ordinary: a same-origin fetch wanting JSON, a form body, an allowed host, a CSRF token that
matches its cookie, a live session whose link may score at that table, and a plain roll
(`tap_store`). Anything else, refusals included, goes to Django unchanged with its body, so
every error and every unusual case gets Django's own answer from one place.

The checks are Django's, called directly: `validate_host` with ALLOWED_HOSTS, the CSRF
middleware's token comparison and its origin rule, the session as the database backend
stores it (its links remembered for a minute: a session only gains them), and the same link
rows `access.require` reads, on every tap.
"""

import asyncio
import functools
import json
import re
from typing import NamedTuple
from urllib.parse import parse_qsl

from django.conf import settings
from django.db import connections
from django.http.cookie import parse_cookie
from django.http.request import split_domain_port, validate_host
from django.middleware import csrf

from parties import announce, tap_store
from parties.play_views import tap_fields
from parties.services import PartyError

TAP = re.compile(r"/parties/(\d+)/table/(\d+)/rolls/")
MAX_BODY = 4096  # a tap's form is under 200 bytes; anything bigger is not a phone's tap


class TapPath:
    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        match = (
            scope["type"] == "http" and scope["method"] == "POST" and TAP.fullmatch(scope["path"])
        )
        if not match:
            return await self.app(scope, receive, send)
        read = await _read_body(receive)
        if read is None:
            return  # the phone went away before it finished sending
        body, whole = read
        party_id, number = int(match[1]), int(match[2])
        tap = _ordinary_tap(scope, body) if whole and len(body) <= MAX_BODY else None
        saved = None
        if tap is not None:
            # The loop's worker threads, as sync_to_async(thread_sensitive=False) uses them,
            # without its copy of the caller's context there and back (~8% of the interpreter's
            # time in S2): the recording needs nothing from the request's context and leaves
            # nothing in it (its database connection goes back to the pool in the thread).
            record = functools.partial(_record, party_id, number, tap.session_key, tap.fields)
            saved = await asyncio.get_running_loop().run_in_executor(None, record)
        if saved is None:
            return await self.app(scope, _replay(body, whole, receive), send)
        # The table's phones first: an ASGI server may end the app once its answer is sent.
        await announce.send_text(party_id, saved.group, saved.text)
        answer = {"status": "saved", "version": saved.version, "seq": saved.seq}
        await _send_json(send, answer, secure=tap.secure)


def _record(party_id, number, session_key, fields):
    try:
        return tap_store.record_plain_roll(
            party_id=party_id, table_number=number, session_key=session_key, tap=fields
        )
    finally:
        connections.close_all()  # back to the pool before the worker thread moves on


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


def _headers(scope):
    headers = {}
    for name, value in scope["headers"]:
        headers[name.decode("latin-1")] = value.decode("latin-1")
    return headers


def _scheme(headers, scope):
    proxy = settings.SECURE_PROXY_SSL_HEADER
    if proxy:
        name, secure_value = proxy
        header = name.removeprefix("HTTP_").replace("_", "-").lower()
        if header in headers:
            return "https" if headers[header].split(",")[0].strip() == secure_value else "http"
    return scope.get("scheme", "http")


def _host_allowed(host):
    allowed = settings.ALLOWED_HOSTS
    if settings.DEBUG and not allowed:
        allowed = [".localhost", "127.0.0.1", "[::1]"]  # as HttpRequest.get_host does
    domain, _port = split_domain_port(host)
    return bool(domain) and validate_host(domain, allowed)


def _csrf_ok(headers, cookies, scheme):
    """The CSRF middleware's rules for a fetch: a same-origin Origin and a matching token."""
    if settings.CSRF_USE_SESSIONS:
        return False
    origin = headers.get("origin")
    if origin != f"{scheme}://{headers.get('host', '')}" and (
        origin not in settings.CSRF_TRUSTED_ORIGINS
    ):
        return False
    secret = cookies.get(settings.CSRF_COOKIE_NAME, "")
    token = headers.get(settings.CSRF_HEADER_NAME.removeprefix("HTTP_").replace("_", "-").lower())
    try:
        csrf._check_token_format(secret)
        csrf._check_token_format(token or "")
    except csrf.InvalidTokenFormat:
        return False
    if len(secret) == csrf.CSRF_TOKEN_LENGTH:
        secret = csrf._unmask_cipher_token(secret)
    return csrf._does_token_match(token, secret)


class Tap(NamedTuple):
    session_key: str
    fields: dict  # as play_views.tap_fields gives them
    secure: bool


def _ordinary_tap(scope, body):
    """The tap, when it is a phone's ordinary one; None sends it to Django."""
    headers = _headers(scope)
    scheme = _scheme(headers, scope)
    if settings.SECURE_SSL_REDIRECT and scheme != "https":
        return None
    if "application/json" not in headers.get("accept", ""):
        return None  # a plain form post: Django answers with a redirect and a message
    if not headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
        return None
    if not _host_allowed(headers.get("host", "")):
        return None
    cookies = parse_cookie(headers.get("cookie", ""))
    if not _csrf_ok(headers, cookies, scheme):
        return None
    session_key = cookies.get(settings.SESSION_COOKIE_NAME)
    if not session_key:
        return None
    try:
        form = dict(parse_qsl(body.decode(), keep_blank_values=True, max_num_fields=20))
        return Tap(session_key, tap_fields(form), scheme == "https")
    except (UnicodeDecodeError, ValueError, PartyError):
        return None


def _security_headers(secure):
    headers = [
        (b"content-type", b"application/json"),
        (b"cache-control", b"no-store"),
        (b"vary", b"Cookie"),
        (b"x-frame-options", settings.X_FRAME_OPTIONS.encode()),
    ]
    if settings.SECURE_CONTENT_TYPE_NOSNIFF:
        headers.append((b"x-content-type-options", b"nosniff"))
    if settings.SECURE_REFERRER_POLICY:
        headers.append((b"referrer-policy", settings.SECURE_REFERRER_POLICY.encode()))
    if settings.SECURE_CROSS_ORIGIN_OPENER_POLICY:
        headers.append(
            (b"cross-origin-opener-policy", settings.SECURE_CROSS_ORIGIN_OPENER_POLICY.encode())
        )
    if secure and settings.SECURE_HSTS_SECONDS:
        hsts = f"max-age={settings.SECURE_HSTS_SECONDS}"
        if settings.SECURE_HSTS_INCLUDE_SUBDOMAINS:
            hsts += "; includeSubDomains"
        headers.append((b"strict-transport-security", hsts.encode()))
    return headers


async def _send_json(send, payload, *, secure):
    body = json.dumps(payload).encode()
    headers = [*_security_headers(secure), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})
