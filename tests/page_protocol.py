"""What the app's pages send, written down once: the fault tests' phones send exactly this,
and tests/e2e/test_page_protocol.py checks it against what Chromium sends from the real page
(so the test phone cannot drift from the page unnoticed).

A scorekeeper's tap or undo is a `fetch()` (static/parties/table.js; live.js's report that a
timed round's clock ran out too): a same-origin POST with the CSRF header, wanting JSON, its
body a URLSearchParams form (a tap: tap_id, seen, round, and outcome or dice, and called once
asked; with `more`, a JSON list of the same fields of the taps queued behind it, when the
outbox holds several), and the session and CSRF cookies. The host's buttons (start, bell, pause, resume,
void, end) and the head table's start are plain `<form method=post>` submissions: the CSRF
token in the body, wanting a page, answered with a redirect and a flash message.
"""

# The headers a page's fetch() sends that the server reads (beside the cookies).
FETCH_HEADER_NAMES = ("origin", "x-csrftoken", "accept", "content-type", "referer")
FORM_CONTENT_TYPE = "application/x-www-form-urlencoded;charset=UTF-8"  # URLSearchParams


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
