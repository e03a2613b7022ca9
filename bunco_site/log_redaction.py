"""Link tokens kept out of every log: daphne's access log and Django's own log records.

A link's token is the whole of its secret (parties.access), and it travels in the path of the
link (`/l/<token>/`). Logs are read, shipped and kept by more people and for longer than the
database, so every line that would print such a path prints `/l/[redacted]/` instead.

This is not server tuning: it has no switch, and nothing here is measured. Two halves:

- `RedactTokens`, a logging filter, named in settings.LOGGING on the console handler and on the
  loggers that print request paths (django.request's "Not Found: /l/…", daphne's runserver).
- `install()`, for daphne's access log, which daphne writes to a stream itself, not through
  logging: it wraps `daphne.access.AccessLogGenerator.__call__`, so every generator, made before
  or after, redacts. The server's launcher (bunco_site/serve.py) calls it once the app is
  loaded; importing the app patches nothing. It is idempotent.

And one thing more a log should not carry, for the same readers: `OneLineRefusals`, a filter
beside `RedactTokens`, logs a refused request (a 4xx: a 403 for a link that does not open the
page, a 400 for a Host not allowed) in Django's one line, without the traceback Django attaches
to a PermissionDenied or a SuspiciousOperation (about 45 lines each: a probe of a party's pages
filled the log with them). A server error (5xx) keeps its traceback.
"""

import logging
import re

# `/l/` followed by the token (base64url here, but anything up to the next separator, so an
# unusual or mistyped token is not printed either).
_TOKEN_PATH = re.compile(r"/l/[^/\s?#\"']+")
REDACTED = "/l/[redacted]"


def redact(text):
    """`text` with the token of every `/l/<token>` path replaced."""
    if "/l/" not in text:
        return text
    return _TOKEN_PATH.sub(REDACTED, text)


class RedactTokens(logging.Filter):
    """A logging filter that rewrites a record's message with its tokens redacted (it never
    drops a record)."""

    def filter(self, record):
        message = record.getMessage()
        redacted = redact(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        return True


def _redacting(call):
    def __call__(self, protocol, action, details):
        path = details.get("path")
        if isinstance(path, str) and "/l/" in path:
            details = {**details, "path": redact(path)}
        return call(self, protocol, action, details)

    __call__.redacts_tokens = True
    return __call__


def install():
    """Make daphne's access log redact tokens (every AccessLogGenerator, from now on)."""
    from daphne.access import AccessLogGenerator

    if not getattr(AccessLogGenerator.__call__, "redacts_tokens", False):
        AccessLogGenerator.__call__ = _redacting(AccessLogGenerator.__call__)


class OneLineRefusals(logging.Filter):
    """A logging filter that takes the traceback off the record of a refused request (Django's
    records of an answer carry its `status_code`: 400 to 499 here), leaving its one line
    ("Forbidden (Permission denied): /parties/12/host/"). It never drops a record; a 5xx, and
    any record without a status, keeps its traceback."""

    def filter(self, record):
        status = getattr(record, "status_code", None)
        if isinstance(status, int) and 400 <= status < 500 and record.exc_info:
            record.exc_info = record.exc_text = None
        return True
