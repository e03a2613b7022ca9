"""The join page's limits as guests and scripts meet them (docs/security.md, "The party code").

A script that drops its cookies is, to the server, a fresh guest: nothing it does from an
address may stop another guest on that address from joining with the right code. A browser's
own typos lock only that browser. A join that fails or is refused stores no session.
"""

import pytest
from django.contrib.sessions.models import Session
from django.test import Client, override_settings
from django.urls import reverse
from django.utils.crypto import get_random_string

from tests.parties.conftest import Browser

pytestmark = pytest.mark.django_db

WRONG = "WRONGWRONG"


def script_post(code, address="127.0.0.1"):
    """A POST to /join/ as a script makes it: no cookie from any earlier answer, and a CSRF
    cookie and form token of its own making (Django accepts any secret the two agree on)."""
    client = Client(enforce_csrf_checks=True, REMOTE_ADDR=address)
    secret = get_random_string(32)
    client.cookies["csrftoken"] = secret
    return client.post(reverse("parties:join"), {"code": code, "csrfmiddlewaretoken": secret})


def test_a_cookieless_flood_from_one_address_does_not_stop_a_guest_with_the_right_code(party):
    statuses = [script_post(WRONG).status_code for _ in range(150)]
    assert statuses == [400] * 150  # each judged, each wrong: nothing refused on the address
    guest = Browser()  # a phone on the same address (127.0.0.1), never here before
    response = guest.post(reverse("parties:join"), {"code": party.code})
    assert response.status_code == 302
    assert response["Location"] == reverse("parties:party", args=[party.id])
    assert guest.get(reverse("parties:party", args=[party.id])).status_code == 200


def test_a_cookieless_flood_from_an_ipv6_slash_64_does_not_stop_a_guest_in_it(party):
    for n in range(120):
        assert script_post(WRONG, f"2001:db8:1:2::{n + 1}").status_code == 400
    guest = Browser()
    guest.defaults["REMOTE_ADDR"] = "2001:db8:1:2::ffff"
    assert guest.post(reverse("parties:join"), {"code": party.code}).status_code == 302


@override_settings(PARTY_CODE_MAX_FAILURES=3)
def test_a_browser_over_its_allowance_is_refused_and_nobody_else_is(party):
    clumsy = Browser()
    clumsy.get(reverse("parties:join"))
    for _ in range(3):
        assert clumsy.post(reverse("parties:join"), {"code": WRONG}).status_code == 400
    for code in (WRONG, party.code, WRONG, party.code, WRONG):
        refused = clumsy.post(reverse("parties:join"), {"code": code})
        assert refused.status_code == 429
        assert "Too many wrong codes from this phone" in refused.content.decode()
    assert clumsy.get(reverse("parties:party", args=[party.id])).status_code == 403
    # The five refusals were not guesses: one more allowed is exactly one more judged.
    with override_settings(PARTY_CODE_MAX_FAILURES=4):
        assert clumsy.post(reverse("parties:join"), {"code": WRONG}).status_code == 400
        assert clumsy.post(reverse("parties:join"), {"code": party.code}).status_code == 429
    # Nobody else on the address is held back: scripts are judged, a guest gets in.
    assert script_post(WRONG).status_code == 400
    careful = Browser()
    assert careful.post(reverse("parties:join"), {"code": WRONG}).status_code == 400
    assert careful.post(reverse("parties:join"), {"code": party.code}).status_code == 302
    assert careful.get(reverse("parties:party", args=[party.id])).status_code == 200


@override_settings(PARTY_CODE_MAX_FAILURES=3)
def test_the_allowance_follows_the_browser_whether_it_started_on_the_join_page_or_not(party):
    from_landing = Browser()  # the landing page's form posts to /join/ with no join cookie yet
    from_landing.get(reverse("parties:landing"))
    statuses = [
        from_landing.post(reverse("parties:join"), {"code": WRONG}).status_code for _ in range(5)
    ]
    assert statuses == [400, 400, 400, 429, 429]


@override_settings(PARTY_CODE_MAX_FAILURES=3)
def test_failed_and_refused_joins_store_no_session_and_a_successful_one_stores_one(party):
    before = Session.objects.count()
    for _ in range(20):  # scripts without cookies: wrong codes, judged
        assert script_post(WRONG).status_code == 400
    assert script_post("").status_code == 400  # nothing typed
    clumsy = Browser()
    clumsy.get(reverse("parties:join"))
    for _ in range(3):
        assert clumsy.post(reverse("parties:join"), {"code": WRONG}).status_code == 400
    for code in (WRONG, party.code):  # refused, the right code too
        assert clumsy.post(reverse("parties:join"), {"code": code}).status_code == 429
    assert Session.objects.count() == before
    assert "sessionid" not in clumsy.cookies
    guest = Browser()
    assert guest.post(reverse("parties:join"), {"code": party.code}).status_code == 302
    assert Session.objects.count() == before + 1
    assert guest.get(reverse("parties:party", args=[party.id])).status_code == 200


def test_a_forged_browser_cookie_is_a_new_browser_not_an_error(party):
    guest = Browser()
    guest.cookies["bunco_join"] = "someone-else:1abc:forged"
    assert guest.post(reverse("parties:join"), {"code": WRONG}).status_code == 400
    assert guest.post(reverse("parties:join"), {"code": party.code}).status_code == 302
