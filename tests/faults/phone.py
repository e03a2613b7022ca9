"""A test phone: a phone's HTTP side (its own session from a redeemed link, its CSRF cookie),
sending what the pages send, header for header and field for field (tests/page_protocol.py,
checked against Chromium by tests/e2e/test_page_protocol.py): a scorekeeper's tap as
static/parties/table.js's outbox sends it, and the host's buttons as their forms post.
`shown` reads what a page's live region (or a pushed table fragment) shows."""

import html
import http.client
import json
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from http.cookiejar import CookieJar

from tests.page_protocol import fetch_headers, form_headers


class Answer:
    def __init__(self, status, body, headers=None):
        self.status = status
        self.body = body
        self.headers = {k.lower(): v for k, v in (headers or {}).items()}
        try:
            self.json = json.loads(body)
        except ValueError:
            self.json = None

    def __repr__(self):
        return f"<{self.status} {self.json if self.json is not None else self.body[:200]!r}>"


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


# table.js's outbox: after a failed send it waits 1 s, doubling up to 15 s, and it also sends
# every 5 s whatever the wait: so at most 5 s between tries.
RETRY_FIRST, RETRY_MOST = 1.0, 5.0


class Phone:
    """A phone's HTTP side: its own session and CSRF cookie, from the page its link opened
    (a table's page, or the host's dashboard), as a browser following the link gets them."""

    def __init__(self, server, party, token=None):
        self.server = server
        self.party = party
        self.round_id = None  # the round of the table page it shows (sent with each roll)
        self.jar = CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.jar), NoRedirect)
        self.page = "/join/"  # a stranger's phone: the page to join a party with a code
        if token:
            answer = self.request("GET", f"/l/{token}/")
            assert answer.status == 302, answer
            self.page = urllib.parse.urlsplit(answer.headers["location"]).path
        opened = self.request("GET", self.page)
        assert opened.status == 200, opened
        body = BODY.search(opened.body)
        # What live.js reads off <body>: the view a round's close pushes to this page, and
        # whether a table's update makes the page refetch (the host's roll list follows).
        self.view = _attribute(body.group(1), "data-view") if body else None
        self.refetch_on_table = bool(body and _attribute(body.group(1), "data-refetch-on-table"))
        assert self.cookie("csrftoken"), "no csrftoken cookie was set"

    def cookie(self, name):
        return next((c.value for c in self.jar if c.name == name), None)

    def cookie_header(self):
        """The Cookie header the browser sends with the page's websocket: every cookie."""
        return "; ".join(f"{c.name}={c.value}" for c in self.jar)

    def request(self, method, path, data=None, headers=None, timeout=15):
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        req = urllib.request.Request(self.server.url + path, data=body, method=method,
                                     headers=dict(headers or {}))
        try:
            with self.opener.open(req, timeout=timeout) as response:
                return Answer(response.status, response.read().decode(), response.headers)
        except urllib.error.HTTPError as error:
            try:
                text = error.read().decode(errors="replace")
            except http.client.HTTPException as cut:  # the server died mid-answer (below)
                raise ConnectionError(f"{type(cut).__name__}: {cut}") from cut
            return Answer(error.code, text, error.headers)
        except http.client.HTTPException as error:
            # The server died mid-answer (IncompleteRead, a bad status line): to the page's
            # fetch() that is a network error, as a reset connection is, and it sends again.
            raise ConnectionError(f"{type(error).__name__}: {error}") from error

    def post(self, path, data, page="/"):
        """A page's fetch() POST, header for header (tests/page_protocol.py)."""
        return self.request("POST", path, data,
                            fetch_headers(self.server.url, self.cookie("csrftoken"), page))

    def press(self, path, page):
        """A host's (or the head table's) button on `page`: a plain form post, as the page's
        <form method=post> sends it (tests/page_protocol.py), answered with a redirect to a
        page showing what happened. The answer's `message` is that page's flash message
        ("ok" words or the refusal), and `ok` whether it was a success."""
        answer = self.request("POST", path, {"csrfmiddlewaretoken": self.cookie("csrftoken")},
                              form_headers(self.server.url, page))
        answer.ok, answer.message = False, ""
        if answer.status == 302:
            shown_page = self.request("GET", page)
            found = MESSAGE.search(shown_page.body)
            if found:
                answer.ok = "success" in found.group(1)
                answer.message = html.unescape(found.group(2))
        return answer

    def start_round(self):
        """The host's "Start round" button on the dashboard."""
        answer = self.press(f"/parties/{self.party.id}/start/",
                            f"/parties/{self.party.id}/host/")
        assert answer.ok, answer
        return answer

    def host_button(self, action):
        """A button of the host's dashboard: bell, pause, resume, or rolls/<id>/void."""
        return self.press(f"/parties/{self.party.id}/host/{action}/",
                          f"/parties/{self.party.id}/host/")

    def learn(self, table):
        """What the table's page shows (as the page loads or refetches it): remembers its
        round, which the page sends with every roll."""
        view = shown(self.live_region(table), table)
        self.round_id = view["round"] if view else None
        return view

    def tap_once(self, table, tap_id, seen, dice=None, outcome=None, called=None,
                 bell_seen="1", face=None):
        """One tap as the page sends it. `bell_seen`: whether the page showed the bell when
        the roll was begun; "1" (the default) is a phone that has heard everything the server
        has, "0" one a moment behind the bell. `face`: a mini Bunco's face, where the rules
        ask for it."""
        if self.round_id is None:
            self.learn(table)
        data = {"tap_id": str(tap_id), "seen": str(seen), "round": str(self.round_id),
                "bell_seen": bell_seen}
        if dice is not None:
            data["dice"] = ",".join(str(d) for d in dice)
        if outcome is not None:
            data["outcome"] = outcome
        if face is not None:
            data["face"] = str(face)
        if called is not None:
            data["called"] = called
        return self.post(f"/parties/{self.party.id}/table/{table}/rolls/", data,
                         page=f"/parties/{self.party.id}/table/{table}/")

    def tap(self, table, tap_id, seen, timeout=30, **fields):
        """The outbox's way (table.js flush()): send the same tap (same id, same seen) again
        while the network fails, the server answers a 5xx without JSON (a server restarting) or
        turns the tap away busy (503, bunco_site/fast/admission.py), waiting as the outbox does: the
        wait a busy answer asks (its table's turn in the line), else 1 s doubled per failure;
        any other answer is the tap's."""
        deadline = time.monotonic() + timeout
        tries, failures, wait = 0, [], RETRY_FIRST
        while True:
            tries += 1
            busy = False
            try:
                answer = self.tap_once(table, tap_id, seen, **fields)
                busy = answer.status == 503 and (answer.json or {}).get("status") == "busy"
                if not busy and (answer.json is not None or answer.status < 500):
                    answer.tries, answer.failures = tries, failures
                    return answer
                failures.append("busy" if busy else answer.status)
            except (OSError, urllib.error.URLError, ConnectionError) as error:
                failures.append(type(error).__name__)
            if time.monotonic() > deadline:
                raise AssertionError(f"tap {tap_id} got no answer within {timeout} s")
            if busy:
                time.sleep(answer.json["retry_after"])
            else:
                time.sleep(min(wait, RETRY_MOST))
                wait *= 2

    def live_region(self, table):
        """The table page's live region, as htmx fetches it on a resync."""
        return self.refetch(f"/parties/{self.party.id}/table/{table}/")

    def refetch(self, page):
        """`page`'s live region, as live.js's resync fetches it (htmx.ajax into #live)."""
        answer = self.request("GET", page, headers={
            "HX-Request": "true", "HX-Current-URL": self.server.url + page, "HX-Target": "live",
        })
        assert answer.status == 200, answer
        return answer.body


BODY = re.compile(r"<body([^>]*)>")


def _attribute(tag, name):
    found = re.search(rf'\s{name}="([^"]*)"', tag)
    return html.unescape(found.group(1)) if found else None


MESSAGE = re.compile(r'<li class="message ([^"]*)">(.*?)</li>', re.S)
SECTION = re.compile(r'<section id="table-(\d+)"[^>]*>.*?</section>', re.S)


def shown(html, table):
    """What the live region or pushed fragment `html` shows for `table`: version, round, points."""
    for match in SECTION.finditer(html):
        if int(match.group(1)) == table:
            section = match.group(0)
            head = section[: section.index(">")]
            return {
                "round": int(re.search(r'data-round="(\d+)"', head).group(1)),
                "version": int(re.search(r'data-version="(\d+)"', head).group(1)),
                "points": [int(p) for p in re.findall(r'class="side-points" data-points="(\d+)"',
                                                       section)],
                "phase": re.search(r'data-phase="(\w+)"', head).group(1),
                "bell": re.search(r'data-bell="(\d)"', head).group(1) == "1",
            }
    return None

