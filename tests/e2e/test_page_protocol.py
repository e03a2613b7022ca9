"""What the real pages send, recorded in Chromium, against bench/phone (the one written-down
protocol, which the bench's generator sends too) and the fault tests' phone
(tests/faults/phone.py `Phone.post` / `tap_once`, built on it), which must send the same.

A twelve-player party; the host (a laptop) starts round 1; table 2's scorekeeper (a phone) taps
"2 points" and waits until it is saved; the host rings the bell. Every request of both pages is
recorded (headers and body), and:

- the tap's POST to /parties/<id>/table/2/rolls/ is a fetch() whose headers named in
  FETCH_HEADER_NAMES are exactly `fetch_headers(origin, csrftoken cookie, table page path)`,
  which are also exactly what `Phone.tap_once` would send;
- its body's field names are exactly those `Phone.tap_once` sends for the same tap;
- the host's buttons (Start round, Ring the bell) are what they are: plain HTML form posts,
  a page navigation, not fetch(): their headers and body are checked for what holds of them.
"""

import re
import uuid
from types import SimpleNamespace
from urllib.parse import parse_qsl, urlsplit

import pytest
from playwright.sync_api import expect

from bench.phone import FETCH_HEADER_NAMES, FORM_CONTENT_TYPE, fetch_headers, form_headers
from tests.devices import LAPTOP, PHONE, Shots
from tests.e2e.test_party_setup import TWELVE, create_party, link_url

pytestmark = pytest.mark.e2e


class Recorded(SimpleNamespace):
    def __repr__(self):
        return f"<recorded party {self.party_id}: {len(self.tap_posts)} tap POST(s)>"


def recorder(page):
    """Every request `page` sends, as Playwright reports them."""
    seen = []
    page.on("request", lambda request: seen.append(request))
    return seen


def posts_to(requests, path):
    return [r for r in requests if r.method == "POST" and urlsplit(r.url).path == path]


def form_fields(request):
    """The POST body's fields, in order, as (name, value) pairs."""
    return parse_qsl(request.post_data or "", keep_blank_values=True)


def cookie(context, name):
    return next((c["value"] for c in context.cookies() if c["name"] == name), None)


def phone_would_send(origin, csrf, party_id, table, fields):
    """What the fault tests' Phone would send for the tap the page sent (same tap id, seen,
    outcome or dice, called): its path, its headers and its form, captured without a server."""
    from tests.faults.phone import Phone

    sent = {}

    class Fake:
        server = SimpleNamespace(url=origin)
        party = SimpleNamespace(id=party_id)
        round_id = fields.get("round")  # the round the page shows, as the test phone learns it

        def cookie(self, name):
            return csrf if name == "csrftoken" else None

        def post(self, path, data, page="/"):
            return Phone.post(self, path, data, page=page)

        def request(self, method, path, data=None, headers=None, timeout=15):
            sent.update(
                method=method, path=path, data=dict(data or {}), headers=dict(headers or {})
            )

    dice = [int(d) for d in fields["dice"].split(",")] if "dice" in fields else None
    Phone.tap_once(
        Fake(),
        table,
        fields.get("tap_id", "x"),
        fields.get("seen", "0"),
        dice=dice,
        outcome=fields.get("outcome"),
        called=fields.get("called"),
        bell_seen=fields.get("bell_seen", "1"),
        face=fields.get("face"),
    )
    return sent


@pytest.fixture(scope="module")
def recorded(chromium, server):
    """The party played as far as one tap and the host's bell, every request recorded."""
    contexts = []
    try:
        laptop = chromium.new_context(**LAPTOP)
        contexts.append(laptop)
        host = laptop.new_page()
        host_requests = recorder(host)
        create_party(host, server, "Protocol night", TWELVE)
        party_id = int(re.search(r"/parties/(\d+)/host/$", host.url).group(1))
        table_url = link_url(host, "Table 2")
        expect(host.locator("body")).to_have_attribute("data-socket", "open")
        host.get_by_role("button", name="Start round 1").click()
        expect(host.locator(".controls .set-round")).to_contain_text("round 1 · target 1 · Playing")

        phone = chromium.new_context(**PHONE)
        contexts.append(phone)
        keeper = phone.new_page()
        tap_requests = recorder(keeper)
        keeper.goto(table_url)
        expect(keeper).to_have_url(re.compile(rf"/parties/{party_id}/table/2/$"))
        live = keeper.locator("section#table-2")
        expect(live).to_have_attribute("data-phase", "playing")
        expect(keeper.locator("body")).to_have_attribute("data-socket", "open")
        before = int(live.get_attribute("data-version"))
        keeper.get_by_role("button", name="2 points", exact=True).click()
        # Saved: the new version arrived, and the outbox holds nothing still being sent.
        expect(live).to_have_attribute("data-version", str(before + 1))
        expect(keeper.locator(".outbox .tap.pending")).to_have_count(0)
        expect(keeper.locator(".outbox .tap.saved")).to_have_text(["2 points: saved"])
        expect(live.locator(".side-points")).to_have_text(["2", "0"])
        shot = Shots("test_page_protocol")(keeper, "table-2-after-tap")

        host.get_by_role("button", name="Ring the bell", exact=True).click()
        expect(host.get_by_role("button", name="Ring the bell", exact=True)).to_have_count(0)
        expect(host.locator("#table-2 .phase")).to_have_text("Bell! Finish your turn")

        tap_posts = posts_to(tap_requests, f"/parties/{party_id}/table/2/rolls/")
        host_posts = {
            action: posts_to(host_requests, f"/parties/{party_id}/{path}")
            for action, path in (("start", "start/"), ("bell", "host/bell/"))
        }
        # all_headers() while the pages are still open (it may ask the browser).
        yield Recorded(
            party_id=party_id,
            origin=f"{urlsplit(keeper.url).scheme}://{urlsplit(keeper.url).netloc}",
            host_origin=f"{urlsplit(host.url).scheme}://{urlsplit(host.url).netloc}",
            table_path=f"/parties/{party_id}/table/2/",
            table_link=urlsplit(table_url).path,
            host_path=f"/parties/{party_id}/host/",
            phone_csrf=cookie(phone, "csrftoken"),
            phone_session=cookie(phone, "sessionid"),
            host_csrf=cookie(laptop, "csrftoken"),
            tap_posts=tap_posts,
            tap_headers=[r.all_headers() for r in tap_posts],
            tap_answer_headers=[r.response().all_headers() for r in tap_posts],
            host_posts=host_posts,
            host_headers={a: [r.all_headers() for r in rs] for a, rs in host_posts.items()},
            shot=shot,
        )
    finally:
        for context in contexts:
            context.close()


def the_tap(recorded):
    assert len(recorded.tap_posts) == 1, (
        f"one tap, one POST expected; the page sent {len(recorded.tap_posts)}"
    )
    return recorded.tap_posts[0], recorded.tap_headers[0]


def test_the_description_is_consistent():
    """FETCH_HEADER_NAMES are the names fetch_headers() gives, and its Content-Type is the form's."""
    headers = {k.lower(): v for k, v in fetch_headers("http://x", "t", "/p/").items()}
    assert sorted(headers) == sorted(FETCH_HEADER_NAMES)
    assert headers["content-type"] == FORM_CONTENT_TYPE


def test_a_tap_is_a_fetch_with_exactly_the_described_headers(recorded):
    tap, headers = the_tap(recorded)
    assert tap.resource_type == "fetch", f"the tap went as a {tap.resource_type}, not a fetch()"
    assert not tap.is_navigation_request()
    assert recorded.phone_csrf, "the table page has no csrftoken cookie"
    expected = {
        k.lower(): v
        for k, v in fetch_headers(recorded.origin, recorded.phone_csrf, recorded.table_path).items()
    }
    sent = {name: headers.get(name) for name in FETCH_HEADER_NAMES}
    wanted = {name: expected[name] for name in FETCH_HEADER_NAMES}
    assert sent == wanted, (
        "bench/phone fetch_headers() is not what the table page's tap sends: "
        + "; ".join(
            f"{n}: page sends {sent[n]!r}, described {wanted[n]!r}"
            for n in FETCH_HEADER_NAMES
            if sent[n] != wanted[n]
        )
    )
    # The session and CSRF cookies go with it (the test phone's jar sends both).
    cookies = dict(c.split("=", 1) for c in headers.get("cookie", "").split("; ") if "=" in c)
    assert cookies.get("csrftoken") == recorded.phone_csrf
    assert cookies.get("sessionid") == recorded.phone_session


def test_the_test_phone_sends_the_same_headers(recorded):
    tap, headers = the_tap(recorded)
    fields = dict(form_fields(tap))
    phone = phone_would_send(recorded.origin, recorded.phone_csrf, recorded.party_id, 2, fields)
    assert phone["method"] == "POST"
    assert phone["path"] == urlsplit(tap.url).path
    phone_headers = {k.lower(): v for k, v in phone["headers"].items()}
    assert {n: phone_headers.get(n) for n in FETCH_HEADER_NAMES} == {
        n: headers.get(n) for n in FETCH_HEADER_NAMES
    }


def test_a_tap_sends_the_fields_the_test_phone_sends(recorded):
    tap, headers = the_tap(recorded)
    pairs = form_fields(tap)
    names = [name for name, _ in pairs]
    assert len(names) == len(set(names)), f"a field sent twice: {names}"
    fields = dict(pairs)
    assert fields.get("outcome") == "two", fields  # the "2 points" button
    assert re.fullmatch(
        r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}",
        fields.get("tap_id", ""),
    ), fields
    assert fields.get("seen", "").isdigit(), fields
    phone = phone_would_send(recorded.origin, recorded.phone_csrf, recorded.party_id, 2, fields)
    page_only = sorted(set(fields) - set(phone["data"]))
    phone_only = sorted(set(phone["data"]) - set(fields))
    assert not page_only and not phone_only, (
        f"the table page's tap sends {sorted(fields)}, tests/faults/phone.py Phone.tap_once "
        f"sends {sorted(phone['data'])}: "
        + (
            f"the page sends {page_only} (values {[fields[n] for n in page_only]}) which the "
            f"test phone does not; "
            if page_only
            else ""
        )
        + (f"the test phone sends {phone_only} which the page does not" if phone_only else "")
    )
    # The values the test phone would send for this tap are the page's, field for field.
    assert phone["data"] == fields


def test_the_test_phone_s_tap_is_answered_as_the_page_s(recorded, server):
    """The page's tap takes the server's lean tap path (bunco_site/fast/tap_path.py) and so must the
    test phone's, or the fault tests would try Django's view instead of the path phones use:
    the same answer headers, each path having its own (Django's middleware adds its own)."""
    from tests.faults.phone import Phone

    _tap, _headers = the_tap(recorded)
    token = recorded.table_link.strip("/").split("/")[-1]
    phone = Phone(server, SimpleNamespace(id=recorded.party_id), token)
    assert phone.page == recorded.table_path  # the link opens the table's page, as in Chromium
    view = phone.learn(2)
    answer = phone.tap(2, uuid.uuid4(), view["version"], outcome="miss")
    assert answer.json is not None, answer
    hop_by_hop = {"connection", "keep-alive", "date", "server", "transfer-encoding"}
    page_said = sorted(set(recorded.tap_answer_headers[0]) - hop_by_hop)
    phone_got = sorted(set(answer.headers) - hop_by_hop)
    assert phone_got == page_said, (answer, answer.headers)


@pytest.mark.parametrize("action", ["start", "bell"])
def test_a_host_button_is_a_plain_form_post(recorded, action):
    """The host's Start round and Ring the bell are <form method=post>: a navigation, not a
    fetch(). What they send: Origin and Referer as a fetch's, an urlencoded body without a
    charset, the token in the body (csrfmiddlewaretoken), no X-CSRFToken header, and an HTML
    Accept, so the server answers with a redirect back to the host page."""
    from django.middleware.csrf import _unmask_cipher_token

    posts, all_headers = recorded.host_posts[action], recorded.host_headers[action]
    assert len(posts) == 1, f"one {action} click, one POST expected; got {len(posts)}"
    post, headers = posts[0], all_headers[0]
    assert post.resource_type == "document" and post.is_navigation_request(), (
        f"the host's {action} button is now a {post.resource_type} request: check it as a fetch()"
    )
    described = {
        k.lower(): v
        for k, v in fetch_headers(
            recorded.host_origin, recorded.host_csrf, recorded.host_path
        ).items()
    }
    assert headers.get("origin") == described["origin"]
    assert headers.get("referer") == described["referer"]
    assert "x-csrftoken" not in headers
    assert headers.get("content-type") == "application/x-www-form-urlencoded"
    pressed = {k.lower(): v for k, v in form_headers(recorded.host_origin,
                                                      recorded.host_path).items()}
    for name in ("origin", "referer", "content-type"):  # what the test phone's press() sends
        assert headers.get(name) == pressed[name], (name, headers.get(name), pressed[name])
    assert "application/json" not in headers.get("accept", "")
    assert headers.get("accept", "").startswith("text/html")
    fields = dict(form_fields(post))
    assert sorted(fields) == ["csrfmiddlewaretoken"], fields
    # The form's token is the masked CSRF secret of the host's cookie.
    assert _unmask_cipher_token(fields["csrfmiddlewaretoken"]) == recorded.host_csrf
    # Answered by a redirect to the host page (a JSON answer would mean Accept changed).
    response = post.response()
    assert response.status == 302
    assert urlsplit(response.headers["location"]).path == recorded.host_path
