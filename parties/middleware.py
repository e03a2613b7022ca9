"""Middleware of the app's own."""

from django.conf import settings
from django.core.exceptions import BadRequest
from django.shortcuts import render
from django.utils.translation import gettext as _


class SyncChainMiddleware:
    """Keeps Django's middleware chain in one thread per request.

    Under ASGI, Django runs each async-capable middleware's `process_request` and
    `process_response` through its own sync-to-async hop: with nine middleware that is about
    eighteen thread switches per request, measured as a large share of a tap's server time. A
    sync-only middleware at the inside end makes Django run the whole chain as sync code in a
    single hop, and come back to the event loop once for the view. It does nothing else.
    """

    sync_capable = True
    async_capable = False

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)


class UnreadableFormMiddleware:
    """Answers 413 to a body larger than its address takes, and 400 to a POST whose form Django
    refuses to read, before anything reads it.

    A body may be IMPORT_MAX_BYTES (and a form's room around it) at the import page,
    CLUB_IMPORT_MAX_BYTES at the club import page, and
    DATA_UPLOAD_MAX_MEMORY_SIZE anywhere else; Django caps only the form fields it reads, never
    a file's size, so without this a 40 MB "list of names" was read and parsed before its
    refusal. The size a client declares decides; a body sent without one is refused by the view
    that reads it (its file's size).

    Django refuses a urlencoded body that names a charset other than UTF-8 with BadRequest,
    but does not remember the refusal: its 400 view (wrapped in `requires_csrf_token`) reads
    the form again, raises again, and the visitor got a 500 on every POST route. Reading the
    form here first, ahead of the CSRF check, turns that into one clear answer. Django would
    read it there anyway, so this costs nothing; the other unreadable bodies (too many fields,
    too big, a broken multipart) already get Django's own 400 and pass through untouched.
    """

    sync_capable = True
    async_capable = False  # stays in the one sync hop that SyncChainMiddleware makes

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if _declared_length(request) > _largest_body(request.path_info):
            return render(
                request,
                "400.html",
                {"reason": _("What this page sent is larger than this address takes, so it was "
                             "not read. Go back and send a smaller file.")},
                status=413,
            )
        if request.method == "POST":
            try:
                request.POST  # noqa: B018 - parsed now, once
            except BadRequest:
                return render(
                    request,
                    "400.html",
                    {"reason": _("This form was sent in a character set other than UTF-8. "
                                 "Reload the page and send it again.")},
                    status=400,
                )
        return self.get_response(request)


def _largest_body(path):
    if path == IMPORT_PATH:
        return settings.IMPORT_MAX_BYTES + 64 * 1024  # the form around the file: its boundaries
    if path == CLUB_IMPORT_PATH:
        return settings.CLUB_IMPORT_MAX_BYTES + 64 * 1024
    return settings.DATA_UPLOAD_MAX_MEMORY_SIZE


IMPORT_PATH = "/parties/import/"
CLUB_IMPORT_PATH = "/clubs/import/"  # a club's seasons of nights, read whole (clubs.services)


def _declared_length(request):
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


def security_headers(*, secure):
    """The security headers of every answer, as (name, value) pairs, from the settings: our
    Content-Security-Policy, and what Django's SecurityMiddleware and XFrameOptionsMiddleware add
    (Strict-Transport-Security only to a request that came over HTTPS, `secure`).

    One list for both doors: ContentSecurityPolicyMiddleware puts it on Django's answers, and
    bunco_site.fast.tap_path on the lean door's (made once, as bytes). Django's two middleware stay
    in settings.MIDDLEWARE (SecurityMiddleware also redirects to HTTPS), and find these headers
    already set, with the values they would have set.
    """
    headers = []
    if settings.CONTENT_SECURITY_POLICY:
        headers.append(("Content-Security-Policy", settings.CONTENT_SECURITY_POLICY))
    headers.append(("X-Frame-Options", settings.X_FRAME_OPTIONS.upper()))
    if secure and settings.SECURE_HSTS_SECONDS:
        hsts = f"max-age={settings.SECURE_HSTS_SECONDS}"
        if settings.SECURE_HSTS_INCLUDE_SUBDOMAINS:
            hsts += "; includeSubDomains"
        if settings.SECURE_HSTS_PRELOAD:
            hsts += "; preload"
        headers.append(("Strict-Transport-Security", hsts))
    if settings.SECURE_CONTENT_TYPE_NOSNIFF:
        headers.append(("X-Content-Type-Options", "nosniff"))
    referrer = settings.SECURE_REFERRER_POLICY
    if referrer:
        # A comma-separated string or a list of fallbacks, as Django's SecurityMiddleware takes it.
        values = [v.strip() for v in referrer.split(",")] if isinstance(referrer, str) else referrer
        headers.append(("Referrer-Policy", ",".join(values)))
    if settings.SECURE_CROSS_ORIGIN_OPENER_POLICY:
        headers.append(("Cross-Origin-Opener-Policy", settings.SECURE_CROSS_ORIGIN_OPENER_POLICY))
    return headers


class ContentSecurityPolicyMiddleware:
    """Sends the security headers (`security_headers`: settings.CONTENT_SECURITY_POLICY and the
    rest) with every response, each unless the response has one of its own; X-Frame-Options not
    on a view marked `xframe_options_exempt`, as Django's XFrameOptionsMiddleware.

    Our own CSP rather than django-csp: the pages need one fixed policy and no nonces (no
    template has an inline script or style), which is one header; Django 6.0 brings its own, and
    the policy goes there then (the other headers stay one list with the lean door's).
    """

    sync_capable = True
    async_capable = False  # as UnreadableFormMiddleware

    def __init__(self, get_response):
        self.get_response = get_response
        self.headers = {secure: security_headers(secure=secure) for secure in (False, True)}

    def __call__(self, request):
        response = self.get_response(request)
        exempt = getattr(response, "xframe_options_exempt", False)
        for name, value in self.headers[request.is_secure()]:
            if not (exempt and name == "X-Frame-Options"):
                response.headers.setdefault(name, value)
        return response
