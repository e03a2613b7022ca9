"""Daphne's requests without Twisted's form parsing, which nothing reads.

Twisted's `Request` parses every POST body that is a form into `request.args`, and to tell
whether it is one it builds an `email.message.EmailMessage` to read the Content-Type header.
Daphne hands the raw body to the ASGI app and never reads `args`, so that work is thrown away:
measured in bench/ S2, about 5% of the interpreter's time at 250 parties, for the phones' taps
(form posts). Twisted has a switch for it, `parsePOSTFormSubmission`; daphne does not pass it.
"""

import sys


def install_on_running_server():
    """Under daphne, which has imported its protocol module before it loads the app; a no-op
    elsewhere (tests and management commands do not import daphne's server)."""
    module = sys.modules.get("daphne.http_protocol")
    return module is not None and install(module)


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
