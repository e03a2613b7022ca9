"""What a phone's page sends, written down once: the fault tests' phone and the bench's
generator send exactly this, and tests/e2e/test_page_protocol.py checks it against what
Chromium sends from the real page, so no client of ours drifts from the page unnoticed.

A scorekeeper's tap or undo is a `fetch()` (static/parties/table.js; live.js's report that a
timed round's clock ran out too): a same-origin POST with the CSRF header, wanting JSON, its
body a URLSearchParams form (a tap: the roll, seen, tap_id, round, bell_seen, and called once
asked; an undo: seen and round), and the session and CSRF cookies. The host's buttons (start,
bell, pause, resume, void, end) and the head table's start are plain `<form method=post>`
submissions: the CSRF token in the body, wanting a page, answered with a redirect. A resync
(live.js) is htmx fetching the page's live region.
"""

from urllib.parse import urlencode

# The headers a page's fetch() sends that the server reads (beside the cookies).
FETCH_HEADER_NAMES = ("origin", "x-csrftoken", "accept", "content-type", "referer")
FORM_CONTENT_TYPE = "application/x-www-form-urlencoded;charset=UTF-8"  # URLSearchParams
URI_COMPONENT_SAFE = "-_.!~*'()"  # what encodeURIComponent leaves as it is (quote()'s `safe`)


def table_page(party_id, table):
    """A table's page, which its scorekeeper's link opens."""
    return f"/parties/{party_id}/table/{table}/"


def tap_path(party_id, table):
    """Where a table's taps go (the entry's data-roll-url)."""
    return table_page(party_id, table) + "rolls/"


def undo_path(party_id, table):
    """Where a table's undo goes (the entry's data-undo-url)."""
    return table_page(party_id, table) + "undo/"


def fetch_headers(origin, csrf_token, page_path="/"):
    """The headers of a page's fetch() POST from `origin` + `page_path`."""
    return {
        "Origin": origin,
        "X-CSRFToken": csrf_token,
        "Accept": "application/json",
        "Content-Type": FORM_CONTENT_TYPE,
        "Referer": origin + page_path,
    }


def form_headers(origin, page_path):
    """The headers of a page's plain <form method=post> submission (no charset, no CSRF
    header: the token is the body's csrfmiddlewaretoken)."""
    return {
        "Origin": origin,
        "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
        "Content-Type": "application/x-www-form-urlencoded",
        "Referer": origin + page_path,
    }


def refetch_headers(origin, page_path):
    """The headers of a resync: htmx fetching `page_path`'s live region (live.js)."""
    return {"HX-Request": "true", "HX-Current-URL": origin + page_path, "HX-Target": "live"}


def tap_form(tap_id, seen, *, dice=None, outcome=None, face=None, round_id=None,
             bell_seen=None, called=None):
    """A tap's fields, all strings, in the order the outbox builds them (enqueue()): the roll
    (`dice` faces, or a quick button's `outcome` and a mini Bunco's `face`), then the version
    the roll was begun on, the tap's id, the round and whether the bell was shown ("1"/"0"),
    and `called` ("yes"/"no") once the server asked. A field left None is not sent (the
    bench knows no round: the server then takes the round in play)."""
    roll = {"dice": ",".join(str(d) for d in dice)} if dice is not None else {}
    fields = {**roll, "outcome": outcome, "face": face, "seen": seen, "tap_id": tap_id,
              "round": round_id, "bell_seen": bell_seen, "called": called}
    return {name: str(value) for name, value in fields.items() if value is not None}


def undo_form(seen, round_id):
    """An undo's fields: the version it was begun on, and its round (an undo queued in one
    round never undoes another's)."""
    return {"seen": str(seen), "round": str(round_id)}


def encode_form(fields):
    """A form's body as URLSearchParams writes it (its fields are digits, words and ids)."""
    return urlencode(fields)
