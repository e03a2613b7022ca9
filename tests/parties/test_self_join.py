"""Guests who add themselves (Party.self_join): a guest types the party code and their own name
at /join/ and waits; the host sees them on the host page, and seats them, merges them with a
name already on the list, or turns them away; the guest's phone then holds the player's link
and lands on the player's page. Every refusal changes nothing."""

import pytest
from django.contrib.sessions.models import Session
from django.test import override_settings
from django.urls import reverse

from parties import access, selectors
from parties.models import AccessLink, Party, Player, Seat, Table, WaitingGuest
from parties.services import guests as guest_service
from parties.services.errors import PartyError
from parties.services.party import party_end
from parties.services.round import round_start
from tests.parties.conftest import TWELVE, Browser, create_party, redeem
from tests.parties.test_live_facts import play_round_by_buncos, text_of
from tests.parties.test_play import new_party

pytestmark = pytest.mark.django_db

ELEVEN = TWELVE[:11]  # three tables, one ghost's seat free


def self_join_party(host, names=ELEVEN, **kwargs):
    return create_party(host, names=names, self_join="on", **kwargs)


def join(browser, party, name, code=None):
    return browser.post(reverse("parties:join"), {"code": code or party.code, "name": name})


def guest(party, name):
    """A new phone that asked to join as `name`, now waiting."""
    phone = Browser()
    response = join(phone, party, name)
    assert response.status_code == 302, text_of(response)
    assert response["Location"] == reverse("parties:waiting")
    return phone


def waiting_names(party):
    return list(
        WaitingGuest.objects.filter(party=party, status="waiting").values_list("name", flat=True)
    )


def everything(party):
    """What a refused request must leave as it was."""
    party.refresh_from_db()
    return (
        party.seq,
        sorted(Player.objects.filter(party=party).values_list("id", "name", "is_ghost")),
        sorted(Seat.objects.filter(round__party=party).values_list("round_id", "player_id",
                                                                   "table_id", "position")),
        sorted(AccessLink.objects.filter(party=party).values_list("id", "revoked_at")),
        sorted(WaitingGuest.objects.filter(party=party).values_list("id", "name", "status",
                                                                    "player_id")),
        Table.objects.filter(party=party).count(),
    )


def seated_names(party):
    round_ = selectors.current_round(party)
    return sorted(Seat.objects.filter(round=round_).values_list("player__name", flat=True))


def post_host(browser, party, action, guest_row, **data):
    url = reverse(f"parties:guest_{action}", args=[party.id, guest_row.id])
    return browser.post(url, data)


def guest_row(party, name):
    return WaitingGuest.objects.get(party=party, name=name)


def lands_on_player_page(phone, party, player):
    """The waiting phone's next look: it holds the player's link and is sent to their page."""
    response = phone.get(reverse("parties:waiting"))
    page = reverse("parties:player", args=[party.id, player.id])
    assert response.status_code == 302 and response["Location"] == page
    sheet = phone.get(page)
    assert sheet.status_code == 200
    assert "Your sheet" in text_of(sheet)
    session = Session.objects.get(session_key=phone.cookies["sessionid"].value).get_decoded()
    grant = access.grant_for(session, party)
    assert grant.player_ids == {player.id} and not grant.host and not grant.table_numbers


# --- the create form ----------------------------------------------------------------------------


def test_the_host_chooses_on_the_create_form_whether_guests_may_add_themselves(host):
    assert self_join_party(host).self_join is True
    assert create_party(Browser()).self_join is False  # off unless chosen


# --- a guest asks to join ---------------------------------------------------------------------


def test_a_guest_gives_code_and_name_and_waits_where_the_host_sees_them(host):
    party = self_join_party(host)
    mo = guest(party, "  Mo   Lee ")
    assert waiting_names(party) == ["Mo Lee"]  # tidied as a player's name is
    page = mo.get(reverse("parties:waiting"))
    assert page.status_code == 200 and page["Cache-Control"].startswith("max-age=0")
    words = text_of(page)
    assert "Mo Lee" in words and party.name in words and "changes by itself" in words
    guest(party, "Nia")
    host_page = text_of(host.get(reverse("parties:host", args=[party.id])))
    assert "Waiting to be seated: Mo Lee, Nia" in host_page


def test_the_waiting_page_polls_while_waiting_and_names_no_guest_in_its_address(host):
    party = self_join_party(host)
    mo = guest(party, "Mo")
    html = mo.get(reverse("parties:waiting")).content.decode()
    assert 'hx-trigger="every 3s"' in html
    assert f'hx-get="{reverse("parties:waiting")}"' in html
    assert str(guest_row(party, "Mo").id) not in reverse("parties:waiting")
    # Another phone, even at the same party, is not that guest: its session holds no secret.
    other = Browser()
    assert "not waiting" in text_of(other.get(reverse("parties:waiting")))


def test_the_phone_keeps_only_a_secret_whose_hash_the_guest_row_holds(host):
    party = self_join_party(host)
    mo = guest(party, "Mo")
    session = Session.objects.get(session_key=mo.cookies["sessionid"].value).get_decoded()
    secret = session[access.SESSION_WAITING]
    row = guest_row(party, "Mo")
    assert len(secret) >= 40 and secret not in row.secret_hash
    assert row.secret_hash == access.hash_token(secret)


def test_without_a_name_the_join_form_reads_the_party_by_code_as_before(host):
    party = self_join_party(host)
    for name in ("", "   "):
        phone = Browser()
        response = join(phone, party, name)
        assert response["Location"] == reverse("parties:party", args=[party.id])
    assert waiting_names(party) == []


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("ann", "already at this party"),  # a player's, compared case-insensitively
        ("  ANN ", "already at this party"),
        ("mo", "already at this party"),  # a waiting guest's
        ("M" * 200, "longer than 40 characters"),
        ("Ghost 2", "kept for the ghosts"),
        ("Bo\x07b", "control character"),
    ],
)
def test_a_name_already_taken_or_not_a_name_is_refused_and_nothing_is_made(host, name, said):
    party = self_join_party(host)
    guest(party, "Mo")
    before = everything(party)
    phone = Browser()
    response = join(phone, party, name)
    assert response.status_code == 400
    assert said in text_of(response)
    assert everything(party) == before
    assert "sessionid" not in phone.cookies  # nothing half-made: no code grant, no secret


def test_a_party_that_does_not_let_guests_add_themselves_says_so_and_makes_nothing(host, party):
    before = everything(party)
    phone = Browser()
    response = join(phone, party, "Mo")
    assert response.status_code == 400
    assert "does not let guests add themselves" in text_of(response)
    assert everything(party) == before and "sessionid" not in phone.cookies


def test_a_party_already_over_takes_no_guest(host):
    party = self_join_party(host)
    party_end(party=party)
    before = everything(party)
    response = join(Browser(), party, "Mo")
    assert response.status_code == 400 and "The party is over" in text_of(response)
    assert everything(party) == before


def test_the_service_refuses_an_empty_name():
    party = new_party(names=ELEVEN)
    Party.objects.filter(pk=party.pk).update(self_join=True)
    party.refresh_from_db()
    with pytest.raises(PartyError, match="cannot be blank"):
        guest_service.guest_join(party=party, name="  ")
    assert not WaitingGuest.objects.exists()


@override_settings(PARTY_CODE_MAX_FAILURES=2)
def test_a_name_does_not_get_round_the_party_codes_limit(host):
    party = self_join_party(host)
    phone = Browser()
    for _ in range(2):
        wrong = join(phone, party, "Mo", code="WRONGWRONGWR")
        assert wrong.status_code == 400 and "No party has that code" in text_of(wrong)
    refused = join(phone, party, "Mo")
    assert refused.status_code == 429
    assert waiting_names(party) == []


@override_settings(PARTY_CODE_MAX_FAILURES=2)
def test_a_right_code_with_a_refused_name_is_not_a_wrong_code(host):
    party = self_join_party(host)
    phone = Browser()
    for _ in range(3):
        assert join(phone, party, "Ann").status_code == 400  # the name, not the code
    assert join(phone, party, "Mo").status_code == 302


def test_a_phone_that_asks_again_under_another_name_keeps_one_place_in_the_list(host):
    party = self_join_party(host)
    phone = guest(party, "Mo")
    assert join(phone, party, "Moe").status_code == 302
    assert waiting_names(party) == ["Moe"]
    assert join(phone, party, "moe").status_code == 302  # its own name is not taken from it
    assert waiting_names(party) == ["moe"]


@override_settings(GUESTS_WAITING_MAX=2)
def test_the_list_of_guests_waiting_has_a_limit(host):
    party = self_join_party(host)
    guest(party, "Mo")
    guest(party, "Nia")
    before = everything(party)
    response = join(Browser(), party, "Oz")
    assert response.status_code == 400 and "list of guests waiting is full" in text_of(response)
    assert everything(party) == before


# --- the host seats, merges or turns away ---------------------------------------------------------


def test_seated_before_round_one_a_guest_takes_the_free_ghosts_seat(host):
    party = self_join_party(host)  # eleven players and one ghost
    mo = guest(party, "Mo")
    ghost_chair = Seat.objects.get(round__party=party, player__is_ghost=True)
    others = {s.player_id: (s.table_id, s.position) for s in Seat.objects.filter(
        round__party=party, player__is_ghost=False)}
    response = post_host(host, party, "seat", guest_row(party, "Mo"))
    assert response.status_code == 302
    row = guest_row(party, "Mo")
    assert row.status == "seated" and row.player.name == "Mo"
    chair = Seat.objects.get(round__party=party, player=row.player)
    assert (chair.table_id, chair.position) == (ghost_chair.table_id, ghost_chair.position)
    assert {s.player_id: (s.table_id, s.position) for s in Seat.objects.filter(
        round__party=party, player__is_ghost=False).exclude(player=row.player)} == others
    lands_on_player_page(mo, party, row.player)


def test_seated_before_round_one_with_no_seat_free_the_tables_are_drawn_again(host):
    party = self_join_party(host, names=TWELVE)  # three full tables
    mo = guest(party, "Mo")
    response = post_host(host, party, "seat", guest_row(party, "Mo"))
    assert response.status_code == 302
    assert "drawn again for 13 players" in text_of(host.get(response["Location"]))
    assert Table.objects.filter(party=party).count() == 4
    assert AccessLink.objects.filter(party=party, role="table", table__number=4).exists()
    names = seated_names(party)
    assert len(names) == 16 and sorted(n for n in names if not n.startswith("Ghost")) == sorted(
        [*TWELVE, "Mo"])
    lands_on_player_page(mo, party, guest_row(party, "Mo").player)


def quick_self_join_party():
    """Eleven players, a round ended by a Bunco at each table; the host's browser."""
    party = new_party("quick", names=ELEVEN, round_end="each_table")
    Party.objects.filter(pk=party.pk).update(self_join=True)
    party.refresh_from_db()
    host = Browser()
    redeem(host, AccessLink.objects.get(party=party, role="host"))
    return party, host


def test_while_a_round_is_played_a_guest_waits_for_the_round_to_end():
    party, host = quick_self_join_party()
    guest(party, "Mo")
    round_start(party=party)
    before = everything(party)
    refused = post_host(host, party, "seat", guest_row(party, "Mo"))
    assert "Seats change between rounds" in text_of(host.get(refused["Location"]))
    assert everything(party) == before and waiting_names(party) == ["Mo"]


def test_seated_after_round_one_a_guest_takes_a_ghosts_seat_between_rounds():
    party, host = quick_self_join_party()
    mo = guest(party, "Mo")
    play_round_by_buncos(party)
    assert post_host(host, party, "seat", guest_row(party, "Mo")).status_code == 302
    row = guest_row(party, "Mo")
    assert row.status == "seated" and "Mo" in seated_names(party)
    assert not [n for n in seated_names(party) if n.startswith("Ghost")]
    lands_on_player_page(mo, party, row.player)


def test_merged_with_a_name_on_the_list_the_guests_phone_holds_that_players_link(host):
    party = self_join_party(host)
    annie = guest(party, "Annie")
    ann = Player.objects.get(party=party, name="Ann")
    before_players = Player.objects.filter(party=party).count()
    response = post_host(host, party, "merge", guest_row(party, "Annie"), player=ann.id)
    assert response.status_code == 302
    row = guest_row(party, "Annie")
    assert (row.status, row.player) == ("merged", ann)
    assert Player.objects.filter(party=party).count() == before_players
    lands_on_player_page(annie, party, ann)


def test_a_guest_turned_away_is_told_clearly_and_holds_nothing(host):
    party = self_join_party(host)
    mo = guest(party, "Mo")
    assert post_host(host, party, "turn_away", guest_row(party, "Mo")).status_code == 302
    assert guest_row(party, "Mo").status == "turned_away"
    page = mo.get(reverse("parties:waiting"))
    assert page.status_code == 200
    assert "turned you away" in text_of(page)
    assert "hx-trigger" not in page.content.decode()  # nothing more to wait for
    assert mo.get(reverse("parties:player", args=[party.id, Player.objects.get(
        party=party, name="Ann").id])).status_code == 200  # the code still reads the sheets
    assert not Player.objects.filter(party=party, name="Mo").exists()
    guest(party, "Mo")  # the name is free again


def test_a_guest_waiting_when_the_party_ends_is_told_the_party_is_over(host):
    party = self_join_party(host)
    mo = guest(party, "Mo")
    party_end(party=party)
    page = mo.get(reverse("parties:waiting"))
    assert "The party is over" in text_of(page)
    assert "hx-trigger" not in page.content.decode()


def test_the_waiting_page_sends_htmx_to_the_player_page_once_seated(host):
    party = self_join_party(host)
    mo = guest(party, "Mo")
    polled = mo.get(reverse("parties:waiting"), HTTP_HX_REQUEST="true")
    assert polled.status_code == 200 and 'id="waiting"' in polled.content.decode()
    assert "<html" not in polled.content.decode()  # the partial only
    post_host(host, party, "seat", guest_row(party, "Mo"))
    polled = mo.get(reverse("parties:waiting"), HTTP_HX_REQUEST="true")
    player = guest_row(party, "Mo").player
    assert polled["HX-Redirect"] == reverse("parties:player", args=[party.id, player.id])


def test_the_link_is_redeemed_once_and_a_link_reissued_later_does_not_reach_the_phone(host):
    party = self_join_party(host)
    mo = guest(party, "Mo")
    post_host(host, party, "seat", guest_row(party, "Mo"))
    player = guest_row(party, "Mo").player
    assert mo.get(reverse("parties:waiting")).status_code == 302
    old = AccessLink.objects.get(player=player, revoked_at=None)
    from parties.services.link import link_reissue

    link_reissue(party=party, link_id=old.id)  # the host replaces Mo's link (a lost phone)
    again = mo.get(reverse("parties:waiting"))
    assert again.status_code == 200 and "not waiting" in text_of(again)
    assert mo.get(reverse("parties:player", args=[party.id, player.id])).status_code == 200
    session = Session.objects.get(session_key=mo.cookies["sessionid"].value).get_decoded()
    assert access.grant_for(session, party).player_ids == frozenset()  # only the code now


@pytest.mark.parametrize("action", ["seat", "merge", "turn_away"])
@pytest.mark.parametrize("who", ["keeper", "player", "code_viewer", "stranger", "other_host"])
def test_only_the_host_seats_merges_or_turns_away(host, action, who):
    party = self_join_party(host)
    mo = guest(party, "Mo")
    if who == "keeper":
        browser = Browser()
        redeem(browser, AccessLink.objects.get(party=party, role="table", table__number=2))
    elif who == "player":
        browser = Browser()
        redeem(browser, AccessLink.objects.get(party=party, role="player", player__name="Ann"))
    elif who == "code_viewer":
        browser = mo  # the guest's own phone typed the code
    elif who == "stranger":
        browser = Browser()
    else:
        browser = Browser()
        create_party(browser, names=["Wu", "Xi", "Yan", "Zoe"])
    before = everything(party)
    ann = Player.objects.get(party=party, name="Ann")
    response = post_host(browser, party, action, guest_row(party, "Mo"), player=ann.id)
    assert response.status_code == 403
    assert everything(party) == before


@pytest.mark.parametrize("action", ["seat", "merge", "turn_away"])
def test_a_guest_no_longer_waiting_or_of_another_party_cannot_be_acted_on(host, action):
    party = self_join_party(host)
    guest(party, "Mo")
    post_host(host, party, "turn_away", guest_row(party, "Mo"))
    other_host = Browser()
    other = self_join_party(other_host, names=["Wu", "Xi", "Yan", "Zoe"])
    guest(other, "Oz")
    ann = Player.objects.get(party=party, name="Ann")
    for row in (guest_row(party, "Mo"), guest_row(other, "Oz")):
        before = (everything(party), everything(other))
        response = post_host(host, party, action, row, player=ann.id)
        assert response.status_code == 302
        assert "no longer waiting" in text_of(host.get(response["Location"]))
        assert (everything(party), everything(other)) == before


def test_a_merge_needs_a_player_of_the_party(host):
    party = self_join_party(host)
    guest(party, "Mo")
    ghost = Player.objects.get(party=party, is_ghost=True)
    other = create_party(Browser(), names=["Wu", "Xi", "Yan", "Zoe"])
    for player_id in (ghost.id, other.players.first().id, "", "x"):
        before = everything(party)
        response = post_host(host, party, "merge", guest_row(party, "Mo"), player=player_id)
        assert "Pick the player" in text_of(host.get(response["Location"]))
        assert everything(party) == before


def test_the_name_is_checked_again_when_seated(host):
    party = self_join_party(host)
    guest(party, "Mo")
    # Between the guest's ask and the host's tap, the host seats a late arrival named Mo.
    host.post(reverse("parties:arrive", args=[party.id]), {"name": "MO"})
    before = everything(party)
    response = post_host(host, party, "seat", guest_row(party, "Mo"))
    assert "already at this party" in text_of(host.get(response["Location"]))
    assert everything(party) == before


# --- the host page ------------------------------------------------------------------------------


def test_the_host_page_offers_seat_merge_and_turn_away_for_each_guest(host):
    party = self_join_party(host)
    guest(party, "Mo")
    html = host.get(reverse("parties:host", args=[party.id])).content.decode()
    row = guest_row(party, "Mo")
    for action in ("seat", "merge", "turn_away"):
        assert reverse(f"parties:guest_{action}", args=[party.id, row.id]) in html
    words = text_of(host.get(reverse("parties:host", args=[party.id])))
    assert "Seat Mo" in words and "Turn Mo away" in words


def test_the_host_page_says_where_guests_add_themselves_while_nobody_waits(host):
    party = self_join_party(host)
    words = text_of(host.get(reverse("parties:host", args=[party.id])))
    assert "Nobody is waiting to be seated" in words
    assert "/join/" in words


def test_a_party_without_self_join_shows_no_waiting_list(host, party):
    words = text_of(host.get(reverse("parties:host", args=[party.id])))
    assert "Waiting to be seated" not in words and "Nobody is waiting" not in words


# --- the push -------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_the_hosts_page_hears_of_a_new_guest_and_the_players_pages_do_not():
    import json

    from asgiref.sync import sync_to_async

    from tests.parties.test_consumer import _phone_cookie, connect

    host = Browser()
    party = await sync_to_async(self_join_party)(host)
    host_cookie = f"sessionid={host.cookies['sessionid'].value}"
    ann_cookie = await sync_to_async(_phone_cookie)(party, role="player", player__name="Ann")
    host_socket, host_open, _code = await connect(party.id, host_cookie, "1,2,3")
    ann_socket, ann_open, _code = await connect(party.id, ann_cookie, "2")
    assert host_open and ann_open
    await sync_to_async(guest)(party, "Mo")
    told = json.loads(await host_socket.receive_from(timeout=5))
    assert (told["type"], told["what"]) == ("round", "guests")
    assert told["seq"] > host_socket.hello["seq"]  # the page refetches (static/parties/live.js)
    assert await ann_socket.receive_nothing()
    await host_socket.disconnect()
    await ann_socket.disconnect()
