"""What the security review found, each as what a visitor (or an attacker) would see."""

import os
import threading
import time
from unittest import mock

import pytest
from django.core.cache import caches
from django.db import connections
from django.test import override_settings
from django.urls import reverse

from parties import access
from parties.models import AccessLink, Party, Roll, Round, Seat
from parties.party_codes import CODE_LENGTH, party_code_shown
from tests.parties.conftest import Browser, create_form, create_party, redeem

pytestmark = pytest.mark.django_db


def snapshot_of(party=None):
    """Everything a refused request must leave as it was (all parties, when `party` is None)."""
    return (
        sorted(Party.objects.values_list("id", "code", "status", "seq", "paused_at")),
        sorted(Round.objects.values_list("id", "status", "started_at", "bell_at", "closed_at")),
        sorted(Seat.objects.values_list("round_id", "player_id", "table_id", "position")),
        sorted(AccessLink.objects.values_list("id", "token_hash", "revoked_at")),
        sorted(Roll.objects.values_list("id", "voided_by_id")),
    )

HUGE = "99999999999999999999"  # above 2**63 - 1: SQLite cannot hold it
TOO_BIG = str(2**63)


@pytest.mark.parametrize(
    "path",
    [
        f"/parties/{HUGE}/",
        f"/parties/{TOO_BIG}/host/",
        f"/parties/{HUGE}/results/",
        "/parties/0/",
        "/parties/{party}/table/" + HUGE + "/",
        "/parties/{party}/players/" + HUGE + "/",
    ],
)
def test_a_huge_id_in_a_page_address_is_not_found(host, party, path):
    response = host.get(path.format(party=party.id))
    assert response.status_code == 404


@pytest.mark.parametrize(
    "path",
    [
        f"/parties/{HUGE}/host/reshuffle/",
        "/parties/{party}/host/links/" + HUGE + "/reissue/",
        "/parties/{party}/host/rolls/" + HUGE + "/void/",
        "/parties/{party}/table/" + TOO_BIG + "/undo/",
        f"/parties/{HUGE}/start/",
    ],
)
def test_a_huge_id_in_a_post_address_is_not_found_and_changes_nothing(host, party, path):
    before = snapshot_of(party)
    response = host.post(path.format(party=party.id))
    assert response.status_code == 404
    assert snapshot_of(party) == before


def test_the_largest_id_the_database_holds_is_still_an_id(host, party):
    # 2**63 - 1 is a valid bigint: the party does not exist, so the guard says so (404).
    assert host.get(f"/parties/{2**63 - 1}/").status_code == 404
    assert host.get(reverse("parties:party", args=[party.id])).status_code == 200
    link = AccessLink.objects.filter(party=party, role="table").first()
    assert str(link.id) in reverse("parties:link_reissue", args=[party.id, link.id])


def test_a_browser_can_reach_every_page_of_its_party_with_ordinary_ids(host, party):
    ann = party.players.get(name="Ann")
    for url in (
        reverse("parties:host", args=[party.id]),
        reverse("parties:table", args=[party.id, 1]),
        reverse("parties:player", args=[party.id, ann.id]),
        reverse("parties:results", args=[party.id]),
    ):
        assert host.get(url).status_code == 200, url



def post_routes(party):
    """Every POST route of the app, by name, at party A (a real link, a real table)."""
    link = AccessLink.objects.filter(party=party, role="table").first()
    at_party = ["reshuffle", "swap", "start", "clock", "bell", "pause", "resume", "end",
                "leave", "arrive", "pot_set", "paper_language", "host_plays"]
    routes = {name: reverse(f"parties:{name}", args=[party.id]) for name in at_party}
    routes.update(
        create=reverse("parties:create"),
        create_plan=reverse("parties:create_plan"),
        join=reverse("parties:join"),
        link_reissue=reverse("parties:link_reissue", args=[party.id, link.id]),
        roll=reverse("parties:roll", args=[party.id, 1]),
        undo=reverse("parties:undo", args=[party.id, 1]),
        keep_score=reverse("parties:keep_score", args=[party.id, 1]),
        prize_rolloff=reverse("parties:prize_rolloff", args=[party.id, "most_buncos"]),
        void=reverse("parties:void", args=[party.id, 1]),
        correct=reverse("parties:correct", args=[party.id, 1]),
        late_apply=reverse("parties:late_apply", args=[party.id, 1]),
        late_dismiss=reverse("parties:late_dismiss", args=[party.id, 1]),
        guest_seat=reverse("parties:guest_seat", args=[party.id, 1]),
        guest_merge=reverse("parties:guest_merge", args=[party.id, 1]),
        guest_turn_away=reverse("parties:guest_turn_away", args=[party.id, 1]),
    )
    routes["import"] = reverse("parties:import")
    return routes


def test_the_list_of_post_routes_names_every_route_that_takes_a_post(party):
    from parties.urls import urlpatterns

    pages = {"landing", "healthz", "redeem", "party", "host", "table_cards", "table", "player",
             "results", "round_rolls", "manifest", "rules_sheet", "score_sheets", "tally_sheets",
             "player_cards", "results_csv", "rolls_csv", "export_json", "tv", "link_qr",
             "waiting"}
    assert {p.name for p in urlpatterns} - pages == set(post_routes(party))


@pytest.mark.parametrize("charset", ["latin-1", "iso-8859-1", "utf-16", "utf8"])
def test_a_form_post_in_another_charset_is_a_clear_400_on_every_route(host, party, charset):
    # The attacker's own CSRF pair: a cookie and the same value in the form and the header.
    token = host.csrf_token()
    before = snapshot_of()
    for path in post_routes(party).values():
        response = host.generic(
            "POST",
            path,
            f"csrfmiddlewaretoken={token}&code={party.code}&name=X&players=A".encode(),
            content_type=f"application/x-www-form-urlencoded; charset={charset}",
            HTTP_X_CSRFTOKEN=token,
        )
        assert response.status_code == 400, (path, response.status_code)
        assert "UTF-8" in response.content.decode(), path
    assert snapshot_of() == before


def test_a_form_post_with_too_many_fields_is_a_clear_400(host, party):
    token = host.csrf_token()
    before = snapshot_of()
    body = "&".join(f"f{i}=1" for i in range(2000)) + f"&csrfmiddlewaretoken={token}"
    response = host.generic(
        "POST", reverse("parties:reshuffle", args=[party.id]), body.encode(),
        content_type="application/x-www-form-urlencoded", HTTP_X_CSRFTOKEN=token,
    )
    assert response.status_code == 400
    assert snapshot_of() == before


def test_a_utf8_form_post_still_works(host, party):
    token = host.csrf_token()
    response = host.generic(
        "POST", reverse("parties:reshuffle", args=[party.id]),
        f"csrfmiddlewaretoken={token}".encode(),
        content_type="application/x-www-form-urlencoded; charset=UTF-8",
    )
    assert response.status_code == 302


def test_a_broken_multipart_post_is_a_clear_400(host, party):
    token = host.csrf_token()
    before = snapshot_of()
    response = host.generic(
        "POST", reverse("parties:reshuffle", args=[party.id]), b"--x\r\nnonsense",
        content_type="multipart/form-data", HTTP_X_CSRFTOKEN=token,
    )
    assert response.status_code == 400
    assert snapshot_of() == before


def test_a_planted_session_cookie_does_not_gain_the_host_link_the_victim_redeems(party):

    attacker = Browser()
    redeem(attacker, AccessLink.objects.get(party=party, role="player", player__name="Ann"))
    planted = attacker.cookies["sessionid"].value

    victim = Browser()
    victim.cookies["sessionid"] = planted  # e.g. set through a sibling subdomain
    redeem(victim, AccessLink.objects.get(party=party, role="host"))

    host_page = reverse("parties:host", args=[party.id])
    assert victim.get(host_page).status_code == 200
    assert victim.cookies["sessionid"].value != planted
    assert attacker.get(host_page).status_code == 403


def test_redeeming_a_link_keeps_the_links_and_codes_the_session_already_held(party):

    browser = Browser()
    other = create_party(browser, names=["Wu", "Xi", "Yan", "Zoe"])  # hosts party B
    assert browser.post(reverse("parties:join"), {"code": party.code}).status_code == 302
    redeem(browser, AccessLink.objects.get(party=party, role="table", table__number=2))
    redeem(browser, AccessLink.objects.get(party=party, role="player", player__name="Ann"))

    assert browser.get(reverse("parties:host", args=[other.id])).status_code == 200
    assert browser.get(reverse("parties:table", args=[party.id, 2])).status_code == 200
    assert browser.get(reverse("parties:party", args=[party.id])).status_code == 200


def test_pages_that_show_links_codes_or_sheets_are_never_stored(host, party):
    ann = party.players.get(name="Ann")
    pages = [
        reverse("parties:host", args=[party.id]),
        reverse("parties:table_cards", args=[party.id]),
        reverse("parties:table", args=[party.id, 1]),
        reverse("parties:player", args=[party.id, ann.id]),
        reverse("parties:party", args=[party.id]),
        reverse("parties:results", args=[party.id]),
        reverse("parties:join"),
        reverse("parties:link_qr", args=[party.id, AccessLink.objects.filter(party=party).first().id]),
    ]
    for url in pages:
        response = host.get(url)
        assert response.status_code == 200, url
        assert "no-store" in response["Cache-Control"], url
    link = AccessLink.objects.get(party=party, role="player", player__name="Ann")
    response = redeem(Browser(), link)
    assert "no-store" in response["Cache-Control"]
    htmx = host.get(reverse("parties:host", args=[party.id]), HTTP_HX_REQUEST="true")
    assert "no-store" in htmx["Cache-Control"]


@override_settings(PARTY_CREATE_MAX_PER_ADDRESS=3)
def test_one_address_may_create_only_so_many_parties_an_hour():
    browser = Browser()
    for _ in range(3):
        create_party(browser)
    before = snapshot_of()
    response = browser.post(reverse("parties:create"), create_form())
    assert response.status_code == 429
    assert "Too many parties were created from this network" in response.content.decode()
    assert "nothing was created" in response.content.decode()
    assert snapshot_of() == before
    # Another address is not held back by this one.
    elsewhere = Browser()
    elsewhere.defaults["REMOTE_ADDR"] = "203.0.113.9"
    create_party(elsewhere)


@override_settings(PARTY_CREATE_MAX_PER_ADDRESS=2)
def test_the_creation_limit_counts_an_ipv6_slash_64_as_one_address():
    browser = Browser()
    for n in range(2):
        browser.defaults["REMOTE_ADDR"] = f"2001:db8:1:2::{n + 1}"
        create_party(browser)
    browser.defaults["REMOTE_ADDR"] = "2001:db8:1:2:ffff::9"
    assert browser.post(reverse("parties:create"), create_form()).status_code == 429
    browser.defaults["REMOTE_ADDR"] = "2001:db8:1:3::1"
    create_party(browser)


def hammer(count, work):
    """Run `work(i)` in `count` threads let go at the same instant; their results."""
    start, results, errors = threading.Barrier(count), [None] * count, []

    def run(i):
        try:
            start.wait(10)
            results[i] = work(i)
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors, errors[:3]
    return results


@pytest.fixture
def slow_cache_reads():
    """Reads from the cache take 50 ms, as a loaded Redis might: wide open for any request that
    decides on a count read before the others counted."""
    backend = type(caches["default"])
    real_get = backend.get

    def slow_get(self, *args, **kwargs):
        time.sleep(0.05)
        return real_get(self, *args, **kwargs)

    with mock.patch.object(backend, "get", slow_get):
        yield


def one_browser_many_times(count):
    """`count` copies of one browser that opened the join page: its cookies, each sent with
    one of `count` requests at once (a script replaying them, or a page's many taps)."""
    browser = Browser()
    assert browser.get(reverse("parties:join")).status_code == 200
    browser.csrf_token()
    copies = []
    for _ in range(count):
        copy = Browser()
        for name, morsel in browser.cookies.items():
            copy.cookies[name] = morsel.value
        copies.append(copy)
    return copies


def wrong_code(browser):
    return browser.post(reverse("parties:join"), {"code": "WRONGWRONG"}).status_code


def judged(statuses):
    return statuses.count(400)  # "No party has that code": the code was looked up


@pytest.mark.django_db(transaction=True)
@override_settings(PARTY_CODE_MAX_FAILURES=10)
def test_forty_wrong_codes_at_once_from_one_browser_get_only_ten_judged(slow_cache_reads):
    browsers = one_browser_many_times(40)
    statuses = hammer(40, lambda i: wrong_code(browsers[i]))
    assert judged(statuses) == 10
    assert statuses.count(429) == 30


@override_settings(PARTY_CODE_MAX_FAILURES=3)
def test_a_guests_wrong_codes_never_lock_out_another_guest_behind_the_same_router(party):
    clumsy, careful = Browser(), Browser()
    for _ in range(5):
        clumsy.post(reverse("parties:join"), {"code": "WRONGWRONG"})
    refused = clumsy.post(reverse("parties:join"), {"code": party.code})
    assert refused.status_code == 429
    assert "Too many wrong codes from this phone" in refused.content.decode()
    # Same address (127.0.0.1), another phone: one typo, then the right code gets in.
    assert careful.post(reverse("parties:join"), {"code": "WRONGWRONG"}).status_code == 400
    assert careful.post(reverse("parties:join"), {"code": party.code}).status_code == 302
    assert careful.get(reverse("parties:party", args=[party.id])).status_code == 200
    assert clumsy.get(reverse("parties:party", args=[party.id])).status_code == 403


@override_settings(PARTY_CODE_MAX_FAILURES=3)
def test_a_whole_party_of_guests_behind_one_router_can_each_make_typos_and_get_in(party):
    for _ in range(60):  # 120 typos from one address, and every guest gets in
        guest = Browser()
        for _ in range(2):
            assert guest.post(reverse("parties:join"), {"code": "WRONGWRONG"}).status_code == 400
        assert guest.post(reverse("parties:join"), {"code": party.code}).status_code == 302


def test_a_refused_or_right_code_does_not_use_up_the_allowance(party):
    with override_settings(PARTY_CODE_MAX_FAILURES=2):
        guest = Browser()
        for _ in range(6):  # right codes, over and over: none is a failure
            assert guest.post(reverse("parties:join"), {"code": party.code}).status_code == 302
        assert guest.post(reverse("parties:join"), {"code": "WRONGWRONG"}).status_code == 400
        assert guest.post(reverse("parties:join"), {"code": party.code}).status_code == 302


def test_the_code_is_typed_as_the_card_shows_it_in_groups(party):
    shown = party_code_shown(party.code)
    assert len(party.code) == CODE_LENGTH == 12
    assert shown == f"{party.code[:4]} {party.code[4:8]} {party.code[8:]}"
    for typed in (shown, shown.lower(), shown.replace(" ", "-"), f"  {party.code} "):
        guest = Browser()
        assert guest.post(reverse("parties:join"), {"code": typed}).status_code == 302, typed


def test_a_party_made_before_keeps_its_shorter_code_shown_as_its_cards_were_printed(host, party):
    Party.objects.filter(pk=party.pk).update(code="ABCDE23456")  # a code of 10, from before
    page = host.get(reverse("parties:host", args=[party.id])).content.decode()
    assert page.count("ABCDE 23456") == 2  # the lead line and the links' help
    assert party_code_shown("ABCDE23456") == "ABCDE 23456"
    assert party_code_shown("ABC234") == "ABC 234"  # the 6 before those
    for typed in ("ABCDE 23456", "abcde-23456", "ABCD E234 56", "ABCDE23456"):
        guest = Browser()
        assert guest.post(reverse("parties:join"), {"code": typed}).status_code == 302, typed
    guest = Browser()
    assert guest.post(reverse("parties:join"), {"code": "ABCDE2345"}).status_code == 400


@pytest.mark.parametrize("backend", ["locmem", pytest.param("redis", marks=pytest.mark.needs_redis)])
def test_the_attempt_counter_gives_every_concurrent_attempt_its_own_count(backend):
    from django.core.cache.backends.locmem import LocMemCache
    from django.core.cache.backends.redis import RedisCache

    prefix = f"bunco-test-{time.time_ns()}"
    if backend == "redis":
        url = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
        store = RedisCache(url, {"KEY_PREFIX": prefix})
    else:
        store = LocMemCache(prefix, {})
    with mock.patch.object(access, "cache", store):
        counts = hammer(40, lambda i: access.attempt_count("k", 60))
        assert sorted(counts) == list(range(1, 41))
        hammer(40, lambda i: access.attempt_uncount("k"))
        assert store.get("k") == 0
    store.delete_many(["k", "ping"])


POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "media-src 'self' data:; "
    "connect-src 'self' ws: wss:; frame-ancestors 'none'; base-uri 'none'; "
    "form-action 'self'; object-src 'none'"
)


def test_every_page_sends_a_content_security_policy_of_our_own_files_only(host, party):
    ann = party.players.get(name="Ann")
    for url in (
        reverse("parties:landing"),
        reverse("parties:create"),
        reverse("parties:join"),
        reverse("parties:host", args=[party.id]),
        reverse("parties:table_cards", args=[party.id]),
        reverse("parties:table", args=[party.id, 1]),
        reverse("parties:player", args=[party.id, ann.id]),
        reverse("parties:results", args=[party.id]),
        "/no/such/page/",
    ):
        assert host.get(url)["Content-Security-Policy"] == POLICY, url


def test_no_template_has_inline_script_style_or_handlers():
    import re
    from pathlib import Path

    # (a JSON data block is not a script: templates/parties/_js_strings.html)
    inline = re.compile(
        r"\son[a-z]+\s*=|\sstyle\s*=|<style|<script(?![^>]*\s(?:src=|type=\"application/json\"))",
        re.I,
    )
    root = Path(__file__).resolve().parents[2] / "templates"
    found = [
        f"{path.relative_to(root)}:{number}"
        for path in sorted(root.rglob("*.html"))
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if inline.search(line)
    ]
    assert found == []


def test_the_pages_declare_their_behaviours_for_page_js_and_turn_off_htmx_styles(host, party):
    page = host.get(reverse("parties:host", args=[party.id])).content.decode()
    assert "{#" not in page and "#}" not in page  # a comment Django printed instead of hiding
    assert '{"includeIndicatorStyles":false,"attributesToSettle":["class","width","height"]}' in page
    assert "/static/parties/page.js" in page
    assert 'data-confirm="End the party now?' in page
    assert "data-select-all" in page
    assert "<svg" in page  # the QR codes, inline, as before
    cards = host.get(reverse("parties:table_cards", args=[party.id])).content.decode()
    assert "data-print" in cards
