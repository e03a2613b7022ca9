"""Who may see and do what at a party, and that a refused request changes nothing."""

import pytest
from django.test import override_settings
from django.urls import reverse

from parties import access
from parties.models import AccessLink, Round, Seat
from tests.parties.conftest import Browser, redeem

pytestmark = pytest.mark.django_db


def pages(party):
    ann = party.players.get(name="Ann")
    return {
        "host": reverse("parties:host", args=[party.id]),
        "cards": reverse("parties:table_cards", args=[party.id]),
        "table1": reverse("parties:table", args=[party.id, 1]),
        "table2": reverse("parties:table", args=[party.id, 2]),
        "party": reverse("parties:party", args=[party.id]),
        "sheet": reverse("parties:player", args=[party.id, ann.id]),
    }


# What each member of the cast may open at party A (True: 200, False: 403).
CAN_SEE = {
    "host": {"host": True, "cards": True, "table1": True, "table2": True, "party": True, "sheet": True},
    "keeper": {"host": False, "cards": False, "table1": False, "table2": True, "party": True, "sheet": True},
    "player": {"host": False, "cards": False, "table1": False, "table2": False, "party": True, "sheet": True},
    "code_viewer": {"host": False, "cards": False, "table1": False, "table2": False, "party": True, "sheet": True},
    "stranger": {page: False for page in ("host", "cards", "table1", "table2", "party", "sheet")},
    "other_host": {page: False for page in ("host", "cards", "table1", "table2", "party", "sheet")},
}


@pytest.mark.parametrize("who", sorted(CAN_SEE))
def test_each_role_sees_exactly_its_pages(request, party, who):
    browser = request.getfixturevalue(who)
    for page, url in pages(party).items():
        expected = 200 if CAN_SEE[who][page] else 403
        assert browser.get(url).status_code == expected, (who, page)


def snapshot(party):
    round_ = Round.objects.get(party=party)
    seats = sorted(Seat.objects.filter(round=round_).values_list("player_id", "table_id", "position"))
    links = sorted(AccessLink.objects.filter(party=party).values_list("id", "token_hash", "revoked_at"))
    return seats, links


@pytest.mark.parametrize("who", ["keeper", "player", "code_viewer", "stranger", "other_host"])
def test_only_the_host_may_reseat_or_reissue_links_and_a_refusal_changes_nothing(request, party, who):
    browser = request.getfixturevalue(who)
    before = snapshot(party)
    players = list(party.players.values_list("id", flat=True)[:2])
    link = AccessLink.objects.filter(party=party, role="player").first()
    posts = [
        (reverse("parties:reshuffle", args=[party.id]), {}),
        (reverse("parties:swap", args=[party.id]), {"player_a": players[0], "player_b": players[1]}),
        (reverse("parties:link_reissue", args=[party.id, link.id]), {}),
    ]
    for url, data in posts:
        assert browser.post(url, data).status_code == 403, url
    assert snapshot(party) == before


def test_a_link_is_redeemed_into_the_session_and_the_token_leaves_the_address(party):
    link = AccessLink.objects.get(party=party, role="table", table__number=3)
    browser = Browser()
    response = redeem(browser, link)
    assert response["Location"] == reverse("parties:table", args=[party.id, 3])
    assert access.token_for(link) not in response["Location"]
    assert browser.get(response["Location"]).status_code == 200
    assert browser.cookies["sessionid"]["httponly"]


def test_the_database_never_holds_a_token(party):
    for link in AccessLink.objects.filter(party=party):
        token = access.token_for(link)
        assert len(token) >= 43  # 256 bits, base64
        assert token not in (link.salt, link.token_hash)
        assert link.token_hash == access.hash_token(token)


def test_a_wrong_token_opens_nothing():
    response = Browser().get(reverse("parties:redeem", args=["not-a-real-token"]))
    assert response.status_code == 404
    assert "This link doesn't open anything" in response.content.decode()


def test_reissuing_a_link_locks_out_the_old_one_everywhere(host, party, player):
    old = AccessLink.objects.get(party=party, role="player", player__name="Ann")
    old_token = access.token_for(old)
    sheet = pages(party)["sheet"]
    assert player.get(sheet).status_code == 200

    response = host.post(reverse("parties:link_reissue", args=[party.id, old.id]))
    assert response.status_code == 302

    assert player.get(sheet).status_code == 403  # the session that redeemed it lost it
    assert Browser().get(reverse("parties:redeem", args=[old_token])).status_code == 404
    new = AccessLink.objects.get(party=party, role="player", player__name="Ann", revoked_at=None)
    newcomer = Browser()
    redeem(newcomer, new)
    assert newcomer.get(sheet).status_code == 200


def test_the_host_keeps_access_after_reissuing_the_host_link(host, party):
    old = AccessLink.objects.get(party=party, role="host")
    host.post(reverse("parties:link_reissue", args=[party.id, old.id]))
    assert host.get(pages(party)["host"]).status_code == 200
    assert AccessLink.objects.filter(party=party, role="host", revoked_at=None).count() == 1


def test_reissuing_a_revoked_link_again_is_refused(host, party):
    link = AccessLink.objects.filter(party=party, role="table").first()
    host.post(reverse("parties:link_reissue", args=[party.id, link.id]))
    live_before = AccessLink.objects.filter(party=party, revoked_at=None).count()
    response = host.post(reverse("parties:link_reissue", args=[party.id, link.id]), follow=True)
    assert "not one of this party&#x27;s live links" in response.content.decode()
    assert AccessLink.objects.filter(party=party, revoked_at=None).count() == live_before


def test_the_party_code_shows_the_party_and_every_sheet(party, code_viewer):
    page = code_viewer.get(reverse("parties:party", args=[party.id])).content.decode()
    for name in ("Ann", "Lou"):
        assert name in page


def test_a_wrong_party_code_is_refused(party):
    response = Browser().post(reverse("parties:join"), {"code": "NOPE12"})
    assert response.status_code == 400
    assert "No party has that code" in response.content.decode()


@override_settings(PARTY_CODE_MAX_FAILURES=3)
def test_wrong_codes_are_rate_limited_even_when_the_right_one_follows(party):
    browser = Browser()  # the counts start at none (conftest's _fresh_limits)
    for _ in range(3):
        assert browser.post(reverse("parties:join"), {"code": "WRONG1"}).status_code == 400
    response = browser.post(reverse("parties:join"), {"code": party.code})
    assert response.status_code == 429
    assert "Too many wrong codes" in response.content.decode()
    assert browser.get(reverse("parties:party", args=[party.id])).status_code == 403


def test_csrf_is_enforced_on_host_actions(host, party):
    before = snapshot(party)
    response = host.post(reverse("parties:reshuffle", args=[party.id]), {"csrfmiddlewaretoken": "x"})
    assert response.status_code == 403
    assert snapshot(party) == before
