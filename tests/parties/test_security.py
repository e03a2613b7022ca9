"""What the security review found, each as what a visitor (or an attacker) would see."""

import pytest
from django.urls import reverse

from parties.models import AccessLink, Party, Roll, Round, Seat

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

