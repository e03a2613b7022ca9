"""Daphne's requests without Twisted's form parsing, which nothing reads.

Twisted's `Request` parses every POST body that is a form into `request.args`, and to tell
whether it is one it builds an `email.message.EmailMessage` to read the Content-Type header.
Daphne hands the raw body to the ASGI app and never reads `args`, so that work is thrown away:
in bench/ S2 it was a measurable share of the interpreter's time, for the phones' taps (form
posts). Twisted has a switch for it, `parsePOSTFormSubmission`; daphne does not pass it.

Touches: `daphne.http_protocol.WebRequest`, replaced by a subclass that passes the switch (what
daphne's HTTPFactory builds each request from). Version check: `check()` (Twisted's Request takes
the switch: 25.5.0 and later; daphne builds WebRequest by name), `MEASURED_WITH`.
Switch: on unless BUNCO_SERVER_TUNING is "0" or a list without `request_bodies`.
"""

import inspect
import sys

from bunco_site.fast.server_tuning import Skip, running, versions_of

# Twisted grew the switch in 25.5.0; on 24.x every request's WebRequest raised a TypeError.
MEASURED_WITH = {"Twisted": "26.10.0", "daphne": "4.2.3"}


def apply():
    """Under daphne, which has imported its protocol module before it loads the app; skipped
    elsewhere (tests and management commands do not import daphne's server)."""
    http_protocol = sys.modules.get("daphne.http_protocol")
    if http_protocol is None:
        raise Skip("daphne's server is not running")
    check(http_protocol)
    install(http_protocol)
    return versions_of(MEASURED_WITH)


def check(http_protocol):
    """Raise Skip unless daphne's request class is Twisted's and takes the switch, and daphne's
    factory builds its requests from the module's name, which install() replaces."""
    from twisted.web.http import Request

    twisted, daphne = running("Twisted"), running("daphne")
    base = getattr(http_protocol, "WebRequest", None)
    if getattr(base, "parses_forms", True) is False:
        return  # installed already
    if not (isinstance(base, type) and issubclass(base, Request)):
        raise Skip(f"{daphne}'s WebRequest is not a twisted.web.http.Request")
    try:
        inspect.signature(Request.__init__).bind(None, None, parsePOSTFormSubmission=False)
    except TypeError:
        raise Skip(f"{twisted}'s Request takes no parsePOSTFormSubmission") from None
    if "_parsePOSTFormSubmission" not in Request.requestReceived.__code__.co_names:
        raise Skip(f"{twisted}'s Request.requestReceived does not read parsePOSTFormSubmission")
    kinds = {p.kind for p in inspect.signature(base.__init__).parameters.values()}
    if inspect.Parameter.VAR_KEYWORD not in kinds:
        raise Skip(f"{daphne}'s WebRequest does not pass keyword arguments on to Twisted's")
    build = getattr(getattr(http_protocol, "HTTPFactory", None), "buildProtocol", None)
    if "WebRequest" not in getattr(getattr(build, "__code__", None), "co_names", ()):
        raise Skip(f"{daphne}'s HTTPFactory.buildProtocol does not build WebRequest by name")


def install(http_protocol):
    base = http_protocol.WebRequest
    if getattr(base, "parses_forms", True) is False:
        return True  # already installed

    class WebRequest(base):
        parses_forms = False

        def __init__(self, *args, **kwargs):
            super().__init__(*args, parsePOSTFormSubmission=False, **kwargs)

    WebRequest.__qualname__ = base.__qualname__
    http_protocol.WebRequest = WebRequest  # what daphne's HTTPFactory hands each connection
    return True
