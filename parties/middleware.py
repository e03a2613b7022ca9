"""Middleware of the app's own."""

from django.conf import settings
from django.core.exceptions import BadRequest
from django.shortcuts import render


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
    """Answers 400 to a POST whose form Django refuses to read, before anything reads it.

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
        if request.method == "POST":
            try:
                request.POST  # noqa: B018 - parsed now, once
            except BadRequest:
                return render(
                    request,
                    "400.html",
                    {"reason": "This form was sent in a character set other than UTF-8. "
                     "Reload the page and send it again."},
                    status=400,
                )
        return self.get_response(request)


class ContentSecurityPolicyMiddleware:
    """Sends settings.CONTENT_SECURITY_POLICY with every response that has none of its own.

    Our own rather than django-csp: the pages need one fixed policy and no nonces (no template
    has an inline script or style), which is one header; Django 6.0 brings its own, and this
    goes then.
    """

    sync_capable = True
    async_capable = False  # as UnreadableFormMiddleware

    def __init__(self, get_response):
        self.get_response = get_response
        self.policy = settings.CONTENT_SECURITY_POLICY

    def __call__(self, request):
        response = self.get_response(request)
        if self.policy:
            response.headers.setdefault("Content-Security-Policy", self.policy)
        return response
