"""The host arranges round 1: reshuffle, swap two players, and the seating rules that hold."""

import pytest
from django.urls import reverse

from bench.phone import where_shown
from parties.models import Party, Round, Seat
from tests.parties.conftest import TWELVE, create_party

pytestmark = pytest.mark.django_db


def layout(party):
    round_ = Round.objects.get(party=party, bunco_set__number=1, number=1)
    return {
        (seat.table.number, seat.position): seat.player.name
        for seat in Seat.objects.filter(round=round_).select_related("table", "player")
    }


def test_reshuffle_seats_everyone_again_four_to_a_table(host, party):
    before = layout(party)
    for _ in range(5):  # five draws all equal to the first: 1 in (12!)^5
        response = host.post(reverse("parties:reshuffle", args=[party.id]))
        assert response.status_code == 302
        if layout(party) != before:
            break
    after = layout(party)
    assert after != before
    assert sorted(after) == sorted(before)
    assert sorted(after.values()) == sorted(TWELVE)


def test_swap_exchanges_exactly_two_chairs(host, party):
    before = layout(party)
    ann, bea = party.players.get(name="Ann"), party.players.get(name="Bea")
    response = host.post(
        reverse("parties:swap", args=[party.id]), {"player_a": ann.id, "player_b": bea.id}
    )
    assert response.status_code == 302
    after = layout(party)
    where = {name: chair for chair, name in before.items()}
    expected = dict(before)
    expected[where["Ann"]], expected[where["Bea"]] = "Bea", "Ann"
    assert after == expected


def test_swap_over_htmx_returns_the_new_seating_fragment(host, party):
    ann, bea = party.players.get(name="Ann"), party.players.get(name="Bea")
    response = host.post(
        reverse("parties:swap", args=[party.id]),
        {"player_a": ann.id, "player_b": bea.id},
        headers={"HX-Request": "true"},
    )
    page = response.content.decode()
    assert response.status_code == 200
    assert page.lstrip().startswith('<section id="seating"')
    assert "<html" not in page


def test_a_swap_that_would_partner_two_ghosts_is_refused(host):
    party = create_party(host, names=TWELVE[:5])  # 2 tables, 3 ghosts
    before = layout(party)
    ghost_chairs = [chair for chair, name in before.items() if name.startswith("Ghost")]
    # Move another ghost into the chair of the first ghost's (real) partner.
    table, position = ghost_chairs[0]
    partner = party.players.get(name=before[(table, (position + 1) % 4 + 1)])
    other_ghost = party.players.get(name=before[ghost_chairs[1]])
    response = host.post(
        reverse("parties:swap", args=[party.id]),
        {"player_a": partner.id, "player_b": other_ghost.id},
        follow=True,
    )
    assert "a ghost needs a real partner" in response.content.decode()
    assert layout(party) == before


@pytest.mark.parametrize("data", [{}, {"player_a": "x", "player_b": "1"}, "same", "foreign"])
def test_a_bad_swap_is_refused_and_changes_nothing(host, party, other_host, data):
    ann = party.players.get(name="Ann")
    if data == "same":
        data = {"player_a": ann.id, "player_b": ann.id}
    elif data == "foreign":
        stranger = Party.objects.exclude(pk=party.pk).get().players.first()
        data = {"player_a": ann.id, "player_b": stranger.id}
    before = layout(party)
    response = host.post(reverse("parties:swap", args=[party.id]), data, follow=True)
    assert "Pick two" in response.content.decode()
    assert layout(party) == before


def test_the_seating_is_fixed_once_the_first_round_has_started(host, party):
    Round.objects.filter(party=party).update(status=Round.Status.PLAYING)
    Party.objects.filter(pk=party.pk).update(status=Party.Status.PLAYING)
    before = layout(party)
    response = host.post(reverse("parties:reshuffle", args=[party.id]), follow=True)
    assert "The seating is fixed once the first round has started." in response.content.decode()
    assert layout(party) == before
    assert "Reshuffle everyone" not in host.get(reverse("parties:host", args=[party.id])).content.decode()


def test_the_player_page_says_where_to_sit_and_with_whom(party, player):
    ann = party.players.get(name="Ann")
    seat = Seat.objects.select_related("table").get(player=ann)
    partner_position = (seat.position + 1) % 4 + 1
    partner = Seat.objects.get(round=seat.round, table=seat.table, position=partner_position)
    page = player.get(reverse("parties:player", args=[party.id, ann.id])).content.decode()
    where = where_shown(page)  # the slots the page shows, as a round's close fills them
    assert (where["table"], where["seat"]) == (seat.table.number, seat.position)
    assert where["partner"] == partner.player.name
    assert f'partner: <strong data-where="partner">{partner.player.name}</strong>' in page
