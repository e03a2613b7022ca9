"""The lean tap entry (bunco_site.fast.tap_path) in front of Django, through the real ASGI app: for a
phone's ordinary request it calls the same tap as Django's view (parties.taps ->
roll_record) and answers as the view does, and it hands every request it cannot vouch
for (headers, charset, session, a right it lacks) to Django, which answers and changes
nothing."""

import asyncio
import json
import random
import uuid
from urllib.parse import urlencode

import pytest
from asgiref.sync import sync_to_async
from channels.testing import HttpCommunicator, WebsocketCommunicator
from django.conf import settings
from django.urls import reverse
from django.utils import translation

from bunco_site.asgi import application, django_asgi_app
from bunco_site.fast import tap_path
from bunco_site.fast.kept_threads import GatedASGIHandler
from parties import state
from parties.live import announce
from parties.models import AccessLink, Party, Roll, Round
from parties.services.link import link_reissue
from parties.services.party import party_pause
from parties.services.roll import roll_record
from parties.services.round import bell_ring, round_start
from tests.parties.conftest import Browser, create_party, redeem

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


class CountingDjango:
    """Django's own app, counting the requests the lean path handed it and it answered: one it
    turned away busy (503) comes again (`sent`, as the phone's outbox sends it) and counts once."""

    def __init__(self):
        self.calls = 0

    async def __call__(self, scope, receive, send):
        async def watched(message):
            # Counted as the answer starts: the test reads it before Django's app returns.
            if message["type"] == "http.response.start" and message["status"] != 503:
                self.calls += 1
            await send(message)

        await django_asgi_app(scope, receive, watched)


class Phone:
    """A browser holding one link, speaking to the ASGI app as table.js does."""

    def __init__(self, party, **link):
        self.browser = browser = Browser()
        if link:
            redeem(browser, AccessLink.objects.get(party=party, **link))
        self.csrf = browser.csrf_token()
        self.session = browser.cookies["sessionid"].value if "sessionid" in browser.cookies else ""
        self.party = party

    def headers(self, **changes):
        headers = {
            "host": "localhost",
            "origin": "http://localhost",
            "cookie": f"csrftoken={self.csrf}; sessionid={self.session}",
            "x-csrftoken": self.csrf,
            "accept": "application/json",
            "content-type": "application/x-www-form-urlencoded",
        }
        headers.update(changes)
        return [(k.encode(), v.encode()) for k, v in headers.items() if v is not None]


def _setup(**link):
    """A party in play, its host having opened the dashboard, and a phone."""
    host = Browser()
    party = create_party(host)
    round_start(party=party)
    assert host.get(reverse("parties:host", args=[party.id])).status_code == 200
    return party, Phone(party, **link)


async def post(app, phone, table, fields, body=None, **headers):
    path = f"/parties/{phone.party.id}/table/{table}/rolls/"
    body = urlencode(fields).encode() if body is None else body
    headers.setdefault("content-length", str(len(body)))
    communicator = HttpCommunicator(app, "POST", path, body, phone.headers(**headers))
    response = await communicator.get_response(timeout=20)
    if response["body"].startswith(b"{"):
        response["json"] = json.loads(response["body"])
    return response


async def sent(app, phone, table, fields, body=None, **headers):
    """The tap as the phone sends it: again while the answer is busy (503), as the phone's
    outbox does. In CI, with both cores busy, a first tap waited past its 0.3 s and was turned
    away; no test here is about a busy answer (test_tap_admission's are)."""
    for _attempt in range(50):
        response = await post(app, phone, table, fields, body, **headers)
        if response["status"] != 503:
            return response
        await asyncio.sleep(0.1)
    return response


async def watching(party, phone, table):
    """The phone's websocket, connected and watching `table`."""
    cookie = f"sessionid={phone.session}".encode()
    socket = WebsocketCommunicator(
        application,
        f"/ws/parties/{party.id}/?tables={table}",
        headers=[(b"origin", b"http://localhost"), (b"cookie", cookie), (b"host", b"localhost")],
    )
    assert (await socket.connect())[0]
    assert json.loads(await socket.receive_from())["type"] == "hello"
    return socket


def tap(seen, outcome="miss", **more):
    return {"tap_id": str(uuid.uuid4()), "seen": seen, "outcome": outcome, **more}


@sync_to_async
def rolls_at(party, table):
    return list(
        Roll.objects.filter(round__party=party, table__number=table)
        .order_by("id")
        .values_list("die1", "die2", "die3", "entered_by", "outcome")
    )


@sync_to_async
def replayed_table(party, number):
    """The table as a cold replay of the database rows shows it (no cache)."""
    state.forget_all()
    party = Party.objects.get(pk=party.pk)
    round_ = Round.objects.get(party=party, status="playing")
    live = state.load(round_, party.rules)
    return live, announce.table_push(party.id, party.seq, live, number)


async def test_an_ordinary_tap_is_saved_by_the_lean_path_and_pushed_to_the_table():
    party, keeper = await sync_to_async(_setup)(role="table", table__number=2)
    phone = await watching(party, keeper, 2)
    django = CountingDjango()
    app = tap_path.TapPath(django)

    answer = await sent(app, keeper, 2, tap(0, "one"))

    assert django.calls == 0
    assert answer["status"] == 200 and answer["json"] == {"status": "saved", "version": 1, "seq": 1}
    assert dict(answer["headers"])[b"x-content-type-options"] == b"nosniff"
    pushed = json.loads(await phone.receive_from(timeout=5))
    live, (group, text) = await replayed_table(party, 2)
    assert pushed == json.loads(text) and group == announce.table_group(party.id, 2)
    assert live.extras[1].version == 1 and live.table(2).points[0] == 1
    (dice,) = await rolls_at(party, 2)
    assert dice == (None, None, None, "table 2", "one")  # stored as entered: "1 point"
    await phone.disconnect()


async def test_taps_through_both_paths_leave_what_a_replay_of_the_rows_shows():
    party, keeper = await sync_to_async(_setup)(role="table", table__number=2)
    django = CountingDjango()
    app = tap_path.TapPath(django)
    rng = random.Random(7)
    version = 0
    for i in range(30):
        dice = ",".join(str(rng.choice([1, 2, 3, 4, 5, 6])) for _ in range(3))
        fields = {"tap_id": str(uuid.uuid4()), "seen": version, "dice": dice, "called": "yes"}
        if i % 3 == 2:
            answer = await sent(app, keeper, 2, {}, body=_multipart(fields),
                                **{"content-type": "multipart/form-data; boundary=XyZ"})
        else:
            answer = await sent(app, keeper, 2, fields)
        assert answer["status"] == 200, answer["body"]
        if answer["json"]["status"] != "saved":
            break  # the table's round is over
        version = answer["json"]["version"]
    assert django.calls >= 10  # every third tap went the full way (a multipart form)
    cached = state.cached(*(await _round_key(party)))
    live, _ = await replayed_table(party, 2)
    assert cached is not None and cached.state == live.state and cached.extras == live.extras


@sync_to_async
def _round_key(party):
    round_ = Round.objects.get(party=party, status="playing")
    return round_.id, round_.version, round_.started_at


def _multipart(fields):
    parts = [
        f'--XyZ\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'
        for k, v in fields.items()
    ]
    return ("".join(parts) + "--XyZ--\r\n").encode()


REFUSED = [
    ("another origin", {"origin": "http://evil.example"}, 403),
    ("a wrong csrf token", {"x-csrftoken": "x" * 32}, 403),
    ("no csrf token", {"x-csrftoken": None}, 403),
    ("a host not allowed", {"host": "evil.example", "origin": "http://evil.example"}, 400),
    ("no session", {"cookie": None}, 403),
]


@pytest.mark.parametrize(("what", "headers", "status"), REFUSED, ids=[r[0] for r in REFUSED])
async def test_a_tap_the_lean_path_cannot_vouch_for_gets_djangos_refusal(what, headers, status):
    party, keeper = await sync_to_async(_setup)(role="table", table__number=2)
    if "cookie" in headers:
        headers = {"cookie": f"csrftoken={keeper.csrf}"}
    django = CountingDjango()
    answer = await sent(tap_path.TapPath(django), keeper, 2, tap(0), **headers)
    assert (django.calls, answer["status"]) == (1, status)
    assert await rolls_at(party, 2) == []


async def test_a_tap_without_an_origin_header_is_judged_by_djangos_own_csrf_rule():
    # Django's CSRF check accepts a plain-HTTP post without Origin when the token matches; the
    # lean door asks that same check, so it takes the tap itself, as Django would.
    party, keeper = await sync_to_async(_setup)(role="table", table__number=2)
    django = CountingDjango()
    answer = await sent(tap_path.TapPath(django), keeper, 2, tap(0), origin=None)
    assert (django.calls, answer["status"], answer["json"]["status"]) == (0, 200, "saved")


@pytest.mark.parametrize("link", [{"role": "player", "player__name": "Ann"},
                                  {"role": "table", "table__number": 3}, {}])
async def test_a_phone_without_a_right_to_score_here_is_refused(link):
    party, phone = await sync_to_async(_setup)(**link)
    django = CountingDjango()
    answer = await sent(tap_path.TapPath(django), phone, 2, tap(0))
    assert (django.calls, answer["status"]) == (1, 403)
    assert await rolls_at(party, 2) == []


async def test_a_reissued_link_stops_scoring_at_once():
    party, keeper = await sync_to_async(_setup)(role="table", table__number=2)
    app = tap_path.TapPath(CountingDjango())
    assert (await sent(app, keeper, 2, tap(0)))["status"] == 200
    link = await sync_to_async(AccessLink.objects.get)(party=party, role="table", table__number=2)
    await sync_to_async(link_reissue)(party=party, link_id=link.id)
    answer = await sent(app, keeper, 2, tap(1))
    assert answer["status"] == 403
    assert len(await rolls_at(party, 2)) == 1


async def test_a_link_redeemed_after_a_tap_scores_at_once():
    party, keeper = await sync_to_async(_setup)(role="table", table__number=2)
    django = CountingDjango()
    app = tap_path.TapPath(django)
    assert (await sent(app, keeper, 3, tap(0)))["status"] == 403  # not yet its table
    assert (await sent(app, keeper, 2, tap(0)))["json"]["status"] == "saved"
    link = await sync_to_async(AccessLink.objects.get)(party=party, role="table", table__number=3)
    await sync_to_async(redeem)(keeper.browser, link)
    keeper.session = keeper.browser.cookies["sessionid"].value  # redeeming gave it a new key
    answer = await sent(app, keeper, 3, tap(0))
    assert answer["json"]["status"] == "saved" and django.calls == 1  # only the refusal (403)
    assert (await rolls_at(party, 3))[0][3] == "table 3"  # the link that scores there


async def test_stale_and_retried_taps_get_the_views_answers_from_the_lean_entry():
    party, keeper = await sync_to_async(_setup)(role="table", table__number=2)
    django = CountingDjango()
    app = tap_path.TapPath(django)
    first = tap(0)
    assert (await sent(app, keeper, 2, first))["json"]["status"] == "saved"
    again = await sent(app, keeper, 2, first)
    assert again["json"] == {"status": "duplicate", "version": 1, "seq": 1}
    stale = await sent(app, keeper, 2, tap(0))
    assert stale["status"] == 409 and stale["json"]["version"] == 1
    assert stale["json"]["status"] == "stale" and "Another phone" in stale["json"]["message"]
    assert django.calls == 0
    assert len(await rolls_at(party, 2)) == 1


async def test_a_bunco_asks_and_rings_the_bell_through_the_same_tap():
    party, head = await sync_to_async(_setup)(role="table", table__number=1)
    django = CountingDjango()
    app = tap_path.TapPath(django)
    asked = await sent(app, head, 1, tap(0, "bunco"))
    assert asked["json"] == {"status": "ask_call", "version": 0, "seq": 1, "ask": "bunco"}
    rung = await sent(app, head, 1, tap(0, "bunco", called="yes"))
    assert rung["json"]["status"] == "saved" and rung["json"]["seq"] == 2  # the bell
    assert django.calls == 0
    bell = await sync_to_async(Round.objects.get)(party=party, status="playing")
    assert bell.bell_at is not None


async def test_the_lean_entry_and_djangos_view_give_the_same_refusal():
    party, keeper = await sync_to_async(_setup)(role="table", table__number=2)
    await sync_to_async(party_pause)(party=party)
    lean = await sent(tap_path.TapPath(CountingDjango()), keeper, 2, tap(0))
    view = await sent(django_asgi_app, keeper, 2, tap(0))
    assert lean["status"] == view["status"] == 400
    assert lean["json"] == view["json"] == {
        "status": "refused",
        "message": "The host has paused the game; wait for the host to resume it.",
    }
    assert header_set(lean) == header_set(view)
    assert await rolls_at(party, 2) == []


def header_set(answer):
    """An answer's headers as a browser reads them: names in any case, in any order (daphne
    writes both doors' names the same way)."""
    return sorted((name.lower(), value) for name, value in answer["headers"])


async def test_both_doors_answer_the_same_tap_with_the_same_status_json_and_headers():
    """The lean door's answer is Django's, headers and all: the Content-Security-Policy and the
    other security headers come from one function (parties.middleware.security_headers)."""
    party, keeper = await sync_to_async(_setup)(role="table", table__number=2)
    other_party, other_keeper = await sync_to_async(_setup)(role="table", table__number=2)
    django = CountingDjango()
    lean_door = tap_path.TapPath(django)
    first, stale = tap(0), tap(0)
    answers = [
        # a party's first tap, each door at a party of its own (a tap's id is for one table)
        (await sent(lean_door, keeper, 2, first), await sent(django_asgi_app, other_keeper, 2,
                                                              tap(0))),
        # then the same taps at one party: sent again, and stale
        (await sent(lean_door, keeper, 2, first), await sent(django_asgi_app, keeper, 2, first)),
        (await sent(lean_door, keeper, 2, stale), await sent(django_asgi_app, keeper, 2, stale)),
    ]
    assert django.calls == 0  # the lean door answered every one of its taps itself
    for lean, view in answers:
        assert (lean["status"], lean["json"]) == (view["status"], view["json"])
        assert header_set(lean) == header_set(view)
    assert [lean["json"]["status"] for lean, _ in answers] == ["saved", "duplicate", "stale"]
    policy = settings.CONTENT_SECURITY_POLICY.encode()
    assert (b"content-security-policy", policy) in header_set(answers[0][0])
    assert len(await rolls_at(party, 2)) == len(await rolls_at(other_party, 2)) == 1


async def test_both_doors_send_the_same_security_headers_over_https_and_other_settings(
    settings,
):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.SECURE_HSTS_SECONDS = 3600
    settings.SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    settings.SECURE_HSTS_PRELOAD = True
    settings.SECURE_REFERRER_POLICY = ["same-origin", "strict-origin"]  # Django joins a list
    settings.X_FRAME_OPTIONS = "sameorigin"  # and sends it in capitals
    # Both doors made now: Django's middleware reads its settings once, as the lean door does.
    django_door = GatedASGIHandler()
    party, keeper = await sync_to_async(_setup)(role="table", table__number=2)
    django = CountingDjango()
    lean_door = tap_path.TapPath(django)
    https = {"x-forwarded-proto": "https", "origin": "https://localhost"}
    first = tap(0)
    assert (await sent(lean_door, keeper, 2, first, **https))["json"]["status"] == "saved"
    lean = await sent(lean_door, keeper, 2, first, **https)
    view = await sent(django_door, keeper, 2, first, **https)
    assert django.calls == 0
    assert (lean["status"], lean["json"]) == (view["status"], view["json"])
    assert header_set(lean) == header_set(view)
    headers = dict(header_set(lean))
    assert headers[b"strict-transport-security"] == b"max-age=3600; includeSubDomains; preload"
    assert headers[b"referrer-policy"] == b"same-origin,strict-origin"
    assert headers[b"x-frame-options"] == b"SAMEORIGIN"


def _with_duplicate(phone, name, first, then):
    headers = [h for h in phone.headers() if h[0] != name.encode()]
    return headers + [(name.encode(), first.encode()), (name.encode(), then.encode())]


DUPLICATED = [
    ("host", "evil.example", "localhost", 400),
    ("origin", "http://evil.example", "http://localhost", 403),
]


@pytest.mark.parametrize(("name", "first", "then", "status"), DUPLICATED,
                         ids=[d[0] for d in DUPLICATED])
async def test_a_header_sent_twice_with_a_bad_value_first_is_refused(name, first, then, status):
    party, keeper = await sync_to_async(_setup)(role="table", table__number=2)
    django = CountingDjango()
    body = urlencode(tap(0)).encode()
    headers = _with_duplicate(keeper, name, first, then) + [(b"content-length", b"%d" % len(body))]
    path = f"/parties/{party.id}/table/2/rolls/"
    communicator = HttpCommunicator(tap_path.TapPath(django), "POST", path, body, headers)
    answer = await communicator.get_response(timeout=20)
    assert (django.calls, answer["status"]) == (1, status)
    assert await rolls_at(party, 2) == []


@pytest.mark.parametrize("charset", ["latin-1", "utf-16"])
async def test_a_body_in_another_charset_is_djangos_to_judge(charset):
    party, keeper = await sync_to_async(_setup)(role="table", table__number=2)
    django = CountingDjango()
    body = urlencode(tap(0)).encode(charset)
    answer = await sent(tap_path.TapPath(django), keeper, 2, {}, body=body,
                        **{"content-type": f"application/x-www-form-urlencoded; charset={charset}"})
    assert django.calls == 1 and answer["status"] == 400
    assert await rolls_at(party, 2) == []


async def test_a_session_deleted_on_the_server_stops_scoring_at_once():
    from django.contrib.sessions.models import Session

    party, keeper = await sync_to_async(_setup)(role="table", table__number=2)
    app = tap_path.TapPath(CountingDjango())
    assert (await sent(app, keeper, 2, tap(0)))["json"]["status"] == "saved"
    await sync_to_async(Session.objects.filter(session_key=keeper.session).delete)()
    assert (await sent(app, keeper, 2, tap(1)))["status"] == 403
    assert len(await rolls_at(party, 2)) == 1


@pytest.mark.parametrize("party_id", ["9223372036854775808", "99999999999999999999"])
async def test_an_id_too_big_for_the_database_is_not_found(party_id):
    party, keeper = await sync_to_async(_setup)(role="table", table__number=2)
    django = CountingDjango()
    body = urlencode(tap(0)).encode()
    headers = keeper.headers() + [(b"content-length", b"%d" % len(body))]
    path = f"/parties/{party_id}/table/2/rolls/"
    answer = await HttpCommunicator(tap_path.TapPath(django), "POST", path, body,
                                    headers).get_response(timeout=20)
    assert (django.calls, answer["status"]) == (1, 404)


async def test_a_form_post_without_javascript_is_answered_by_django_with_a_redirect():
    party, keeper = await sync_to_async(_setup)(role="table", table__number=2)
    django = CountingDjango()
    answer = await sent(tap_path.TapPath(django), keeper, 2, tap(0), accept="text/html")
    assert (django.calls, answer["status"]) == (1, 302)
    assert len(await rolls_at(party, 2)) == 1


async def test_a_body_too_big_for_a_tap_reaches_django_whole():
    sent = [{"type": "http.request", "body": b"a" * 3000, "more_body": True},
            {"type": "http.request", "body": b"b" * 3000, "more_body": True},
            {"type": "http.request", "body": b"c" * 10, "more_body": False}]
    stream = iter(sent)

    async def receive():
        return next(stream)

    body, whole = await tap_path._read_body(receive)
    assert (len(body), whole) == (6000, False)
    replayed = tap_path._replay(body, whole, receive)
    got = [await replayed(), await replayed()]
    assert got[0]["body"] + got[1]["body"] == b"a" * 3000 + b"b" * 3000 + b"c" * 10
    assert [m["more_body"] for m in got] == [True, False]


def _one_miss_from_closing(party):
    """Tables 1 and 3 at 1-0 and done after the bell, table 2 at 1-0 mid-turn: table 2's next
    miss closes the round."""
    def scorer(n):
        return [AccessLink.objects.get(party=party, role="table", table__number=n).id]

    for n in (1, 2, 3):
        roll_record(party_id=party.id, table_number=n, link_ids=scorer(n),
                    tap_id=uuid.uuid4(), dice=(1, 2, 3), called=None, seen=0)
    for n in (1, 3):
        roll_record(party_id=party.id, table_number=n, link_ids=scorer(n),
                    tap_id=uuid.uuid4(), dice=(2, 3, 4), called=None, seen=1)
    bell_ring(party=Party.objects.get(pk=party.pk), by="host")
    for n in (1, 3):  # whoever held the dice there at the bell finishes with a miss
        roll_record(party_id=party.id, table_number=n, link_ids=scorer(n),
                    tap_id=uuid.uuid4(), dice=(2, 3, 4), called=None, seen=2)


async def test_the_closing_taps_table_update_reaches_phones_before_the_round_closes():
    party, keeper = await sync_to_async(_setup)(role="table", table__number=2)
    await sync_to_async(_one_miss_from_closing)(party)
    phone = await watching(party, keeper, 2)
    django = CountingDjango()

    answer = await sent(tap_path.TapPath(django), keeper, 2, tap(1))

    assert django.calls == 0 and answer["json"]["status"] == "saved", answer
    first = json.loads(await phone.receive_from(timeout=5))
    second = json.loads(await phone.receive_from(timeout=5))
    assert (first["type"], first["table"], first["version"]) == ("table", 2, 2)
    assert (second["type"], second["what"]) == ("round", "closed")
    closed = await sync_to_async(Round.objects.filter(party=party, status="closed").count)()
    assert closed == 1
    await phone.disconnect()


@pytest.mark.parametrize("language", ["es", "fr"])
async def test_both_doors_refuse_in_the_phones_language_and_say_which(language):
    """A refusal reaches the scorekeeper in the phone's language, from either door, with the
    Content-Language Django's LocaleMiddleware sends."""
    party, keeper = await sync_to_async(_setup)(role="table", table__number=2)
    await sync_to_async(party_pause)(party=party)
    asked = {"accept-language": f"{language},en;q=0.5"}
    lean = await sent(tap_path.TapPath(CountingDjango()), keeper, 2, tap(0), **asked)
    view = await sent(django_asgi_app, keeper, 2, tap(0), **asked)
    with translation.override(language):
        said = translation.gettext("The host has paused the game; wait for the host to resume it.")
    assert said != "The host has paused the game; wait for the host to resume it."
    assert lean["json"] == view["json"] == {"status": "refused", "message": said}
    assert (b"content-language", language.encode()) in header_set(lean)
    assert header_set(lean) == header_set(view)
