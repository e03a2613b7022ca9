"""What the app's pages send, written down once: the fault tests' phones send exactly this,
and tests/e2e/test_page_protocol.py checks it against what Chromium sends from the real page
(so the test phone cannot drift from the page unnoticed).

A tap, an undo, a bell or any other write from a page is a `fetch()` (static/parties/table.js
and live.js): a same-origin POST with the CSRF header, wanting JSON, its body a
URLSearchParams form, and the session and CSRF cookies.
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
