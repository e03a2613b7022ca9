"""Players who leave and late arrivals, between rounds."""

import pytest
from django.urls import reverse

from parties.models import AccessLink, Player, Round, Seat
from parties.services.errors import PartyError
from parties.services.player import player_leave
from parties.services.round import round_start
from tests.parties.conftest import TWELVE, create_party

pytestmark = pytest.mark.django_db


def seated(party):
    round_ = Round.objects.filter(party=party).exclude(status="closed").first()
    return {s.player.name: s for s in Seat.objects.filter(round=round_).select_related("player")}


def test_a_player_who_leaves_gives_their_seat_to_a_ghost(host, party):
    ann = party.players.get(name="Ann")
    chair = (seated(party)["Ann"].table_id, seated(party)["Ann"].position)
    response = host.post(reverse("parties:leave", args=[party.id]), {"player": ann.id}, follow=True)
    assert "A ghost takes their seat" in response.content.decode()
    now = seated(party)
    assert "Ann" not in now
    ghost = Player.objects.get(party=party, is_ghost=True)
    assert (now[ghost.name].table_id, now[ghost.name].position) == chair
    assert len(now) == 12


def test_a_late_arrival_takes_a_ghosts_seat_and_gets_a_link(host):
    party = create_party(host, names=TWELVE[:11])
    response = host.post(reverse("parties:arrive", args=[party.id]), {"name": "Mo"}, follow=True)
    assert "Welcome!" in response.content.decode()
    now = seated(party)
    assert "Mo" in now and not any(name.startswith("Ghost") for name in now)
    assert AccessLink.objects.filter(player__name="Mo", revoked_at=None).count() == 1
    assert "Mo" in response.content.decode()  # the host page lists Mo's link


def test_a_late_arrival_needs_a_free_ghost_seat_and_a_new_name(host, party):
    before = seated(party)
    for name, message in [("Kay", "already at this party"), ("Mo", "no ghost&#x27;s seat"),
                          ("", "cannot be blank")]:
        response = host.post(reverse("parties:arrive", args=[party.id]), {"name": name},
                             follow=True)
        assert message in response.content.decode()
    assert seated(party).keys() == before.keys()
    assert not Player.objects.filter(name="Mo").exists()


def test_seats_change_only_between_rounds(host, party):
    round_start(party=party)
    with pytest.raises(PartyError, match="between rounds"):
        player_leave(party=party, player_id=party.players.get(name="Ann").id)
    assert not Player.objects.filter(party=party, is_ghost=True).exists()


def ghost_partners(party):
    """Each seated ghost's partner (seats 1 and 3, 2 and 4 are partners)."""
    seats = seated(party)
    chairs = {(s.table_id, s.position): s.player for s in seats.values()}
    return {
        name: chairs[(s.table_id, (s.position + 1) % 4 + 1)]
        for name, s in seats.items() if s.player.is_ghost
    }


def test_a_ghosts_partner_who_leaves_is_replaced_by_a_player_changing_chairs(host):
    party = create_party(host, names=TWELVE[:5])  # 3 ghosts: every ghost has a real partner
    partner = next(iter(ghost_partners(party).values()))
    chair = (seated(party)[partner.name].table_id, seated(party)[partner.name].position)
    response = host.post(
        reverse("parties:leave", args=[party.id]), {"player": partner.id}, follow=True
    )
    page = response.content.decode()
    now = seated(party)
    moved = next(name for name, s in now.items() if (s.table_id, s.position) == chair)
    assert moved in TWELVE[:5] and moved != partner.name  # a player took the leaver's chair
    assert f"{moved} changes chairs with it" in page
    assert partner.name not in now and len(now) == 8
    assert not any(p.is_ghost for p in ghost_partners(party).values())  # all real partners


def test_leaving_is_refused_where_ghosts_would_outnumber_the_players(host):
    party = create_party(host, names=TWELVE[:5])
    player_leave(party=party, player_id=party.players.get(name="Ann").id)  # 4 and 4
    before = {name: (s.table_id, s.position) for name, s in seated(party).items()}
    bea = party.players.get(name="Bea")
    with pytest.raises(PartyError, match="not enough players left"):
        player_leave(party=party, player_id=bea.id)
    assert {name: (s.table_id, s.position) for name, s in seated(party).items()} == before
    assert Player.objects.filter(party=party, is_ghost=True).count() == 4


def test_only_the_host_manages_comings_and_goings(party, keeper, player):
    ann = party.players.get(name="Ann")
    for browser in (keeper, player):
        assert browser.post(reverse("parties:leave", args=[party.id]),
                            {"player": ann.id}).status_code == 403
        assert browser.post(reverse("parties:arrive", args=[party.id]),
                            {"name": "Mo"}).status_code == 403
    assert "Ann" in seated(party) and not Player.objects.filter(name="Mo").exists()


def test_a_chosen_scorekeeper_who_goes_home_leaves_seat_1_keeping_score(host, party):
    ann_seat = seated(party)["Ann"]
    Seat.objects.filter(pk=ann_seat.pk).update(keeps_score=True)  # Ann took over the table
    response = host.post(reverse("parties:leave", args=[party.id]),
                         {"player": party.players.get(name="Ann").id}, follow=True)
    page = response.content.decode()
    assert f"At table {ann_seat.table.number} the player in seat 1 keeps score again." in page
    round_ = ann_seat.round
    assert not Seat.objects.filter(round=round_, keeps_score=True).exists()  # not the ghost
