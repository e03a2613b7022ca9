"""The host who plays too: the host page says which roles this phone holds and offers "I am
playing: <name>"; the phone then also holds that player's link, with the player's sheet and
their table one tap from the host page, and a way back to the host page from both."""

import pytest
from django.contrib.sessions.models import Session
from django.urls import reverse

from parties import access, selectors
from parties.models import AccessLink, Player
from tests.parties.conftest import Browser, create_party, redeem
from tests.parties.test_live_facts import text_of

pytestmark = pytest.mark.django_db


def grant_of(browser, party):
    session = Session.objects.get(session_key=browser.cookies["sessionid"].value).get_decoded()
    return access.grant_for(session, party)


def host_page(browser, party):
    return browser.get(reverse("parties:host", args=[party.id]))


def plays(browser, party, player_id):
    return browser.post(reverse("parties:host_plays", args=[party.id]), {"player": player_id})


def table_of(party, player):
    return selectors.seat_of(selectors.current_round(party), player.id).table


def test_the_host_page_names_the_roles_this_phone_holds(host, party):
    words = text_of(host_page(host, party))
    assert "This phone holds" in words and "Host" in words
    redeem(host, AccessLink.objects.get(party=party, role="table", table__number=2))
    words = text_of(host_page(host, party))
    assert "Scorekeeper · table 2" in words


def test_i_am_playing_gives_this_phone_the_players_link_and_puts_sheet_and_table_in_reach(
    host, party
):
    ann = Player.objects.get(party=party, name="Ann")
    response = plays(host, party, ann.id)
    assert response.status_code == 302
    assert grant_of(host, party).player_ids == {ann.id}
    assert grant_of(host, party).host  # still the host
    page = host_page(host, party)
    words = text_of(page)
    assert "You play as Ann" in words
    html = page.content.decode()
    sheet = reverse("parties:player", args=[party.id, ann.id])
    table = reverse("parties:table", args=[party.id, table_of(party, ann)])
    assert f'href="{sheet}"' in html and f'href="{table}"' in html
    assert "Your sheet" in text_of(host.get(sheet))


def test_the_player_and_table_pages_lead_a_host_back_to_the_host_page(host, party):
    ann = Player.objects.get(party=party, name="Ann")
    plays(host, party, ann.id)
    back = f'href="{reverse("parties:host", args=[party.id])}"'
    for url in (reverse("parties:player", args=[party.id, ann.id]),
                reverse("parties:table", args=[party.id, table_of(party, ann)])):
        assert back in host.get(url).content.decode(), url


def test_a_phone_that_is_not_the_host_gets_no_way_to_the_host_page(party, keeper, player):
    back = f'href="{reverse("parties:host", args=[party.id])}"'
    ann = Player.objects.get(party=party, name="Ann")
    assert back not in player.get(reverse("parties:player", args=[party.id, ann.id])
                                  ).content.decode()
    assert back not in keeper.get(reverse("parties:table", args=[party.id, 2])).content.decode()


def test_choosing_another_player_replaces_the_one_played(host, party):
    ann, bea = (Player.objects.get(party=party, name=n) for n in ("Ann", "Bea"))
    plays(host, party, ann.id)
    plays(host, party, bea.id)
    assert grant_of(host, party).player_ids == {bea.id}
    words = text_of(host_page(host, party))
    assert "You play as Bea" in words and "You play as Ann" not in words


def test_only_the_host_may_say_i_am_playing(party, keeper, player, code_viewer, stranger):
    ann = Player.objects.get(party=party, name="Ann")
    for browser in (keeper, code_viewer, stranger):
        assert plays(browser, party, ann.id).status_code == 403
    bea = Player.objects.get(party=party, name="Bea")
    assert plays(player, party, bea.id).status_code == 403
    assert grant_of(player, party).player_ids == {ann.id}


def test_a_ghost_or_another_partys_player_cannot_be_played(host, party):
    other = create_party(Browser(), names=["Wu", "Xi", "Yan", "Zoe"])
    solo = create_party(Browser(), names=["Ann", "Bea", "Cleo", "Dot", "Edie"])
    ghost = Player.objects.filter(party=solo, is_ghost=True).first()
    host_of_solo = Browser()
    redeem(host_of_solo, AccessLink.objects.get(party=solo, role="host"))
    for browser, at, player_id in ((host, party, other.players.first().id),
                                   (host, party, ""), (host_of_solo, solo, ghost.id)):
        response = plays(browser, at, player_id)
        assert response.status_code == 302
        assert "Pick your name" in text_of(browser.get(response["Location"]))
        assert grant_of(browser, at).player_ids == frozenset()
