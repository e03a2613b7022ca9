"""A test phone: a phone's HTTP side (its own session from a redeemed link, its CSRF cookie),
sending what the pages send, header for header and field for field, as bench/phone writes it
down (checked against Chromium by tests/e2e/test_page_protocol.py): a scorekeeper's tap as
static/parties/table.js's outbox sends it, and the host's buttons as their forms post. This is
the synchronous shell (urllib) around bench/phone's pieces."""

import html
import http.client
import random
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from http.cookiejar import CookieJar

from bench.phone import (
    body_attribute,
    busy_wait,
    fetch_headers,
    form_headers,
    offline_wait,
    parse_answer,
    refetch_headers,
    table_page,
    table_shown,
    tap_form,
    tap_path,
)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


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
        # What live.js reads off <body>: the view a round's close pushes to this page, and
        # whether a table's update makes the page refetch (the host's roll list follows).
        self.view = body_attribute(opened.body, "data-view")
        self.refetch_on_table = bool(body_attribute(opened.body, "data-refetch-on-table"))
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
                return parse_answer(response.status, response.read(), response.headers)
        except urllib.error.HTTPError as error:
            try:
                text = error.read().decode(errors="replace")
            except http.client.HTTPException as cut:  # the server died mid-answer (below)
                raise ConnectionError(f"{type(cut).__name__}: {cut}") from cut
            return parse_answer(error.code, text, error.headers)
        except http.client.HTTPException as error:
            # The server died mid-answer (IncompleteRead, a bad status line): to the page's
            # fetch() that is a network error, as a reset connection is, and it sends again.
            raise ConnectionError(f"{type(error).__name__}: {error}") from error

    def post(self, path, data, page="/"):
        """A page's fetch() POST, header for header (bench/phone/fetch.py)."""
        return self.request("POST", path, data,
                            fetch_headers(self.server.url, self.cookie("csrftoken"), page))

    def press(self, path, page):
        """A host's (or the head table's) button on `page`: a plain form post, as the page's
        <form method=post> sends it (bench/phone/fetch.py), answered with a redirect to a
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
        view = table_shown(self.live_region(table), table)
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
        fields = tap_form(tap_id, seen, dice=dice, outcome=outcome, face=face,
                          round_id=self.round_id, bell_seen=bell_seen, called=called)
        return self.post(tap_path(self.party.id, table), fields,
                         page=table_page(self.party.id, table))

    def tap(self, table, tap_id, seen, timeout=30, **fields):
        """The outbox's way (table.js flush()): send the same tap (same id, same seen) again
        while the network fails or the server's answer is lost (a 5xx without JSON: a server
        restarting), or the server turns it away busy (503, nothing read or written),
        waiting as the outbox does (bench/phone/answers.py); any other answer is the tap's.
        The answer's `tries`, and `failures` (what each failed try met)."""
        deadline = time.monotonic() + timeout
        tries, failures, offline_in_a_row = 0, [], 0
        while True:
            tries += 1
            answer = None
            try:
                answer = self.tap_once(table, tap_id, seen, **fields)
                if not (answer.busy or answer.lost):
                    answer.tries, answer.failures = tries, failures
                    return answer
                failures.append("busy" if answer.busy else answer.status)
            except (OSError, urllib.error.URLError, ConnectionError) as error:
                failures.append(type(error).__name__)
            if time.monotonic() > deadline:
                raise AssertionError(f"tap {tap_id} got no answer within {timeout} s")
            if answer is not None and answer.busy:
                time.sleep(busy_wait(answer, random.random()))
                offline_in_a_row = 0  # an answer: the page's back-off starts again
            else:
                time.sleep(offline_wait(offline_in_a_row))
                offline_in_a_row += 1

    def live_region(self, table):
        """The table page's live region, as htmx fetches it on a resync."""
        return self.refetch(table_page(self.party.id, table))

    def refetch(self, page):
        """`page`'s live region, as live.js's resync fetches it (htmx.ajax into #live)."""
        answer = self.request("GET", page, headers=refetch_headers(self.server.url, page))
        assert answer.status == 200, answer
        return answer.body


MESSAGE = re.compile(r'<li class="message ([^"]*)">(.*?)</li>', re.S)
