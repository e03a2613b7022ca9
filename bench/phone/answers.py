"""What the server's answer to a request of the outbox means to the phone
(static/parties/table.js flush(), serverBusy(), answered()), and when to send again.

A network failure, or a 5xx without JSON (a server restarting), is "offline": the same taps go
again after 1 s, doubled per failure in a row up to 15 s, and the page's 5 s timer sends
meanwhile. A busy answer (503: no room on the server) turned the taps away unstarted: they go
again, same ids, after the wait it asks (`retry_after`, else the Retry-After header) at the
table's turn in the server's line, stretched at random so phones given close turns do not
come back in one wave. Any other answer is the first tap's, and its `more` holds those of the
taps sent behind it that the server took, in order. A saved tap's answer carries the table's
new `version` (and the party's `seq`, which the page leaves to the socket); a stale one (409)
the version the table is at; a stale or refused tap makes the page resync.
"""

import json
from typing import NamedTuple

from bench.phone.outbox import ASKING, HELD, REFUSED, SAVED, STALE

MAX_BUSY_WAIT = 30.0  # seconds: the longest a busy answer is taken at its word
LEAST_BUSY_WAIT = 0.2  # seconds
BUSY_JITTER = 0.2  # the wait is stretched by up to this share, at random
RETRY_FIRST, RETRY_MOST = 1.0, 15.0  # seconds: the offline back-off, doubling
FLUSH_EVERY = 5.0  # seconds: the outbox also sends every 5 s, whatever the back-off


class Answer:
    """One HTTP answer as the phone reads it: status, body (text), headers (names in lower
    case), and `json`, the body read as JSON (None if it is not)."""

    def __init__(self, status, body, headers=None):
        self.status = status
        self.body = body.decode(errors="replace") if isinstance(body, bytes) else body
        self.headers = {k.lower(): v for k, v in (headers or {}).items()}
        try:
            self.json = json.loads(self.body)
        except ValueError:
            self.json = None

    @property
    def busy(self):
        """Turned away unstarted: send the same taps again after busy_wait()."""
        return self.status == 503 and _field(self.json, "status") == "busy"

    @property
    def lost(self):
        """No answer the page can read (a server restarting): the page goes offline."""
        return self.json is None and self.status >= 500

    def __repr__(self):
        return f"<{self.status} {self.json if self.json is not None else self.body[:200]!r}>"


def parse_answer(status, body, headers=None):
    """The Answer of a request: its status, body (bytes or text) and headers."""
    return Answer(status, body, headers)


def _field(data, name):
    return data.get(name) if isinstance(data, dict) else None


def _number(value):
    """JavaScript's Number(value), where NaN and nothing count as 0 (falsy)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return 0.0
    return 0.0 if number != number else number


def busy_wait(answer, jitter):
    """Seconds to wait before sending again what a busy `answer` turned away; `jitter` is a
    random number in [0, 1) (the page's Math.random())."""
    asked = (_number(_field(answer.json, "retry_after"))
             or _number(answer.headers.get("retry-after")) or 1.0)
    return min(max(asked, LEAST_BUSY_WAIT), MAX_BUSY_WAIT) * (1 + BUSY_JITTER * jitter)


def offline_wait(failures_in_a_row):
    """Seconds to wait before sending again after this many failures in a row before this one
    (0 after the first): the page's back-off, cut short by its 5 s timer."""
    return min(RETRY_FIRST * 2**failures_in_a_row, RETRY_MOST, FLUSH_EVERY)


class TapAnswer(NamedTuple):
    """One tap's answer: its HTTP status, and what the server said of it."""

    http: int
    data: dict

    @property
    def ok(self):
        return 200 <= self.http < 300

    @property
    def status(self):
        return self.data.get("status")

    @property
    def version(self):
        """The table's version: after the tap (saved), or as it is (stale); else None."""
        version = self.data.get("version")
        return int(version) if version is not None else None


def tap_answers(answer, carried):
    """The answers of the `carried` taps a request sent (an answer neither busy nor lost),
    in order: the first's, then those behind it the server took. The taps after the last
    answered stay queued and go with the next request."""
    data = answer.json if isinstance(answer.json, dict) else None
    first = TapAnswer(answer.status, data or {"message": f"The server answered {answer.status}."})
    more = data.get("more") if first.ok and data else None
    behind = more[: carried - 1] if isinstance(more, list) else []
    return [first, *(TapAnswer(one.get("http", 0), one) for one in behind)]


def outcome(one, called_sent=False):
    """The outbox state a tap's answer gives it (table.js answered()): SAVED (saved, or a
    duplicate of one saved: it leaves the outbox), ASKING ("did they call it?", unless
    `called` was sent), HELD (kept for the host), STALE (the table changed since the roll was
    begun) or REFUSED; what is queued behind a stale or refused tap is HELD_BACK."""
    if one.ok and one.status in ("saved", "duplicate"):
        return SAVED
    if one.ok and one.status == "ask_call" and not called_sent:
        return ASKING
    if one.ok and one.status == "held":
        return HELD
    return STALE if one.status == "stale" else REFUSED


def needs_resync(result):
    """Whether the page refetches its live region after a tap's outcome: a stale or refused
    tap shows the table as it really is."""
    return result in (STALE, REFUSED)
