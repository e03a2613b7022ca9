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
    def __init__(self, status, body):
        self.status = status
        self.body = body
        try:
            self.json = json.loads(body)
        except ValueError:
            self.json = None

    def __repr__(self):
        return f"<{self.status} {self.json if self.json is not None else self.body[:200]!r}>"


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Phone:
    """A phone's HTTP side: its own session (a redeemed link) and CSRF cookie."""

    def __init__(self, server, party, token=None):
        self.server = server
        self.party = party
        self.round_id = None  # the round of the table page it shows (sent with each roll)
        self.jar = CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.jar), NoRedirect)
        if token:
            answer = self.request("GET", f"/l/{token}/")
            assert answer.status == 302, answer
        self.request("GET", "/join/")
        assert self.cookie("csrftoken"), "no csrftoken cookie was set"

    def cookie(self, name):
        return next((c.value for c in self.jar if c.name == name), None)

    def request(self, method, path, data=None, headers=None, timeout=15):
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        req = urllib.request.Request(self.server.url + path, data=body, method=method,
                                     headers=dict(headers or {}))
        try:
            with self.opener.open(req, timeout=timeout) as response:
                return Answer(response.status, response.read().decode())
        except urllib.error.HTTPError as error:
            return Answer(error.code, error.read().decode(errors="replace"))
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
                 bell_seen="1"):
        """One tap as the page sends it. `bell_seen`: whether the page showed the bell when
        the roll was begun; "1" (the default) is a phone that has heard everything the server
        has, "0" one a moment behind the bell."""
        if self.round_id is None:
            self.learn(table)
        data = {"tap_id": str(tap_id), "seen": str(seen), "round": str(self.round_id),
                "bell_seen": bell_seen}
        if dice is not None:
            data["dice"] = ",".join(str(d) for d in dice)
        if outcome is not None:
            data["outcome"] = outcome
        if called is not None:
            data["called"] = called
        return self.post(f"/parties/{self.party.id}/table/{table}/rolls/", data,
                         page=f"/parties/{self.party.id}/table/{table}/")

    def tap(self, table, tap_id, seen, timeout=30, **fields):
        """The outbox's way: send the same tap (same id, same seen) until the server gives a
        JSON answer; a dead server, a reset connection or a 5xx page is tried again."""
        deadline = time.monotonic() + timeout
        tries, failures = 0, []
        while True:
            tries += 1
            try:
                answer = self.tap_once(table, tap_id, seen, **fields)
                if answer.status < 500 and answer.json is not None:
                    answer.tries, answer.failures = tries, failures
                    return answer
                failures.append(answer.status)
            except (OSError, urllib.error.URLError, ConnectionError) as error:
                failures.append(type(error).__name__)
            if time.monotonic() > deadline:
                raise AssertionError(f"tap {tap_id} got no answer within {timeout} s")
            time.sleep(0.1)

    def live_region(self, table):
        """The table page's live region, as htmx fetches it on a resync."""
        answer = self.request("GET", f"/parties/{self.party.id}/table/{table}/",
                              headers={"HX-Request": "true"})
        assert answer.status == 200, answer
        return answer.body


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

