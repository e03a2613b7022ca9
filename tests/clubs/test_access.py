"""Who may do what at a club, over every address of the clubs app: the organizer's link changes
the club, the club code reads it, a night's host link runs that night's party and nothing of
the club, and a stranger gets nothing. A refused request changes nothing."""

import pytest
from django.urls import reverse

from clubs import access
from clubs.models import Club, ClubLink, ClubNight, HostMonth, Member, Season
from clubs.urls import urlpatterns
from parties.models import AccessLink, Party
from tests.clubs.conftest import create_night, night_form

pytestmark = pytest.mark.django_db

# Open to anyone, as the party's create, import and join are: not a club's to guard.
PUBLIC = {"create", "redeem", "import"}
READ, ORGANIZE = "read", "organize"


def club_routes(club, month):
    """Every guarded address of the clubs app at `club`: (method, url, data, what it needs)."""
    at = [club.id]
    iris = club.members.get(name="Iris").id
    return {
        "home": ("get", reverse("clubs:home", args=at), None, READ),
        "standings": ("get", reverse("clubs:standings", args=at), None, READ),
        "standings_csv": ("get", reverse("clubs:standings_csv", args=at), None, READ),
        "season_print": ("get", reverse("clubs:season_print", args=[club.id, 1]), None, READ),
        "rotation_print": ("get", reverse("clubs:rotation_print", args=at), None, READ),
        "night_create": ("get", reverse("clubs:night_create", args=at), None, ORGANIZE),
        "night_create POST": ("post", reverse("clubs:night_create", args=at),
                              night_form(club, out=["Lou"]), ORGANIZE),
        "settings": ("post", reverse("clubs:settings", args=at),
                     {"ranking": "points", "subs_count_for_member": "on"}, ORGANIZE),
        "rotation": ("post", reverse("clubs:rotation", args=at),
                     {f"month-{month:%Y-%m}": str(Member.objects.get(name="Dot").id)}, ORGANIZE),
        "link_reissue": ("post", reverse("clubs:link_reissue", args=at), {}, ORGANIZE),
        "season_close": ("post", reverse("clubs:season_close", args=at), {}, ORGANIZE),
        "season_start": ("post", reverse("clubs:season_start", args=at), {}, ORGANIZE),
        "export_json": ("get", reverse("clubs:export_json", args=at), None, ORGANIZE),
        "member_add": ("post", reverse("clubs:member_add", args=at), {"name": "Quinn"}, ORGANIZE),
        "member_leave": ("post", reverse("clubs:member_leave", args=at), {"member": iris},
                         ORGANIZE),
        "member_back": ("post", reverse("clubs:member_back", args=at), {"member": iris}, ORGANIZE),
    }


def test_the_list_names_every_address_of_the_clubs_app(club):
    month = HostMonth.objects.filter(season__club=club).first().month
    named = {name.split()[0] for name in club_routes(club, month)}
    assert {p.name for p in urlpatterns} == named | PUBLIC


def snapshot(club):
    """Everything a refused request must leave as it was."""
    return (
        list(Club.objects.filter(pk=club.pk).values_list("ranking", "subs_count_for_member")),
        sorted(ClubLink.objects.values_list("id", "token_hash", "revoked_at")),
        sorted(Season.objects.values_list("id", "number", "closed_at")),
        sorted(HostMonth.objects.values_list("id", "member_id")),
        sorted(Member.objects.values_list("id", "name", "left")),
        sorted(ClubNight.objects.values_list("id", "party_id")),
        Party.objects.count(),
    )


ROLES = ["organizer", "reader", "night_host", "stranger"]
MAY = {"organizer": {READ, ORGANIZE}, "reader": {READ}, "night_host": set(), "stranger": set()}


@pytest.mark.parametrize("role", ROLES)
def test_each_role_reaches_what_it_may_and_is_refused_the_rest_changing_nothing(
    request, club, night, role
):
    browser = request.getfixturevalue(role)
    month = HostMonth.objects.filter(season__club=club).order_by("month").first().month
    for name, (method, url, data, needs) in club_routes(club, month).items():
        before = snapshot(club)
        response = getattr(browser, method)(url, data) if method == "post" else browser.get(url)
        if needs in MAY[role]:
            assert response.status_code in (200, 302), (role, name, response.status_code)
        else:
            assert response.status_code == 403, (role, name, response.status_code)
            assert snapshot(club) == before, (role, name)


def test_a_nights_host_link_runs_that_night_and_no_other(organizer, club, night, night_host):
    other = create_night(organizer, club, out=["Ann"])
    assert night_host.get(reverse("parties:host", args=[night.party.id])).status_code == 200
    assert night_host.get(reverse("parties:host", args=[other.party.id])).status_code == 403
    # The organizer hands the link over: holding the club is not holding the night.
    assert organizer.get(reverse("parties:host", args=[night.party.id])).status_code == 403


def test_the_club_code_reads_and_the_organizer_link_writes_at_that_club_only(
    organizer, club, reader
):
    from tests.clubs.conftest import create_club
    from tests.parties.conftest import Browser

    other_organizer = Browser()
    other = create_club(other_organizer, names=["Wu", "Xi", "Yan", "Zoe"])
    assert reader.get(reverse("clubs:home", args=[other.id])).status_code == 403
    assert organizer.get(reverse("clubs:night_create", args=[other.id])).status_code == 403
    assert other_organizer.get(reverse("clubs:home", args=[club.id])).status_code == 403


def test_a_session_planted_beforehand_does_not_gain_the_organizer_link(club):
    from tests.parties.conftest import Browser

    attacker = Browser()
    assert attacker.post(reverse("parties:join"), {"code": club.code}).status_code == 302
    planted = attacker.cookies["sessionid"].value
    victim = Browser()
    victim.cookies["sessionid"] = planted
    link = ClubLink.objects.get(club=club, revoked_at__isnull=True)
    victim.get(reverse("clubs:redeem", args=[access.token_for(link)]))
    assert victim.cookies["sessionid"].value != planted
    assert attacker.get(reverse("clubs:night_create", args=[club.id])).status_code == 403


def test_the_club_pages_are_never_cached_and_name_no_token_to_a_reader(club, reader, night):
    page = reader.get(reverse("clubs:home", args=[club.id]))
    assert "no-store" in page["Cache-Control"]
    text = page.content.decode()
    link = ClubLink.objects.get(club=club)
    host = AccessLink.objects.get(party=night.party, role=AccessLink.Role.HOST)
    from parties import access as party_access

    assert access.token_for(link) not in text
    assert party_access.token_for(host) not in text


def test_a_huge_club_id_is_not_found(organizer):
    assert organizer.get(f"/clubs/{2**63}/").status_code == 404


def test_numbers_in_the_query_that_are_no_numbers_are_shrugged_off_or_not_found(organizer, club):
    home = reverse("clubs:home", args=[club.id])
    standings = reverse("clubs:standings", args=[club.id])
    for odd in ("²", "1" * 30, "x"):  # "²" is a digit to str.isdigit, not to int()
        assert organizer.get(home, {"night": odd}).status_code == 200
        assert organizer.get(standings, {"season": odd}).status_code == 404
