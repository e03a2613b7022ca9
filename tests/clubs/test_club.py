"""Starting a club, its organizer's link and code, the club page, and a night made from it."""

import datetime

import pytest
from django.urls import reverse

from clubs import access
from clubs.models import Club, ClubLink, ClubNight, HostMonth, Member, NightPlayer, Season
from parties.models import AccessLink, Party
from tests.clubs.conftest import club_form, create_night, join_with_code, night_form
from tests.parties.conftest import Browser

pytestmark = pytest.mark.django_db


def test_a_club_is_made_with_its_members_rules_pot_and_first_season(organizer, club):
    assert club.name == "Thursday Club"
    assert [m.name for m in club.members.order_by("position")][:3] == ["Ann", "Bea", "Cleo"]
    assert club.members.count() == 12
    assert club.preset == "standard" and club.rules.to_options()["sets"] == 1
    assert club.prize_pot.buy_in_cents == 500 and club.prize_pot.tied == "rolloff"
    season = Season.objects.get(club=club)
    assert (season.number, season.closed_at) == (1, None)
    months = list(HostMonth.objects.filter(season=season).order_by("month"))
    assert len(months) == 12 and months[0].member.name == "Ann" and months[1].member.name == "Bea"
    link = ClubLink.objects.get(club=club)
    assert len(link.token_hash) == 64 and access.token_for(link) not in link.token_hash
    assert organizer.get(reverse("clubs:home", args=[club.id])).status_code == 200


def test_the_members_may_come_from_a_csv_file_as_a_partys_players_do(organizer):
    from django.core.files.uploadedfile import SimpleUploadedFile

    data = club_form(players="")
    data["players_file"] = SimpleUploadedFile(
        "members.csv", b"Name,Email\nZoe,z@x.org\nYan,y@x.org\nXi,x@x.org\n", "text/csv")
    response = organizer.post(reverse("clubs:create"), data)
    assert response.status_code == 302
    club = Club.objects.get()
    assert [m.name for m in club.members.order_by("position")] == ["Zoe", "Yan", "Xi"]


def test_a_club_form_with_mistakes_is_refused_saying_why_and_makes_nothing(organizer):
    response = organizer.post(reverse("clubs:create"), club_form(
        name="  ", players="Ann\nann\n", buy_in="six"))
    assert response.status_code == 400
    text = response.content.decode()
    assert "This field is required." in text  # the club's name
    assert "is already on line 1" in text
    assert "The buy-in:" in text
    assert not Club.objects.exists()


def test_percent_shares_must_add_up_to_a_hundred(organizer):
    response = organizer.post(reverse("clubs:create"), club_form(**{
        "share-most_wins": "50", "share-most_buncos": "20", "share-most_losses": "20"}))
    assert response.status_code == 400
    assert "add up to 90, not 100" in response.content.decode()
    odd = organizer.post(reverse("clubs:create"), club_form(**{  # "²": a digit to isdigit only
        "share-most_wins": "5²", "share-most_buncos": "30", "share-most_losses": "20"}))
    assert odd.status_code == 400 and "not a whole percentage" in odd.content.decode()
    assert not Club.objects.exists()
    organizer.post(reverse("clubs:create"), club_form(**{
        "share-most_wins": "50", "share-most_buncos": "30", "share-most_losses": "20",
        "tied": "split"}))
    pot = Club.objects.get().prize_pot
    assert dict(pot.shares) == {"most_wins": 50, "most_buncos": 30, "most_losses": 20}
    assert pot.tied == "split"


def test_the_club_code_typed_at_join_opens_the_club_page(club):
    browser = Browser()
    shown = " ".join(club.code[i:i + 5] for i in range(0, 15, 5)).lower()
    response = join_with_code(browser, shown)
    assert response.status_code == 302 and response["Location"] == f"/clubs/{club.id}/"
    page = browser.get(reverse("clubs:home", args=[club.id]))
    assert page.status_code == 200 and "Ann" in page.content.decode()
    assert "Organizer link" not in page.content.decode()


def test_a_party_code_at_join_still_opens_its_party(club, night):
    browser = Browser()
    response = join_with_code(browser, night.party.code)
    assert response.status_code == 302
    assert response["Location"] == f"/parties/{night.party.id}/"


def test_a_wrong_club_length_code_is_counted_as_a_wrong_code_by_the_partys_join(club, settings):
    settings.PARTY_CODE_MAX_FAILURES = 3
    browser = Browser()
    wrong = "A" * access.CLUB_CODE_LENGTH
    for _ in range(3):
        response = join_with_code(browser, wrong)
        assert response.status_code == 400
        assert "No party has that code" in response.content.decode()
    # Out of tries: a right club code is refused as a right party code would be.
    response = join_with_code(browser, club.code)
    assert response.status_code == 429
    assert "Too many wrong codes" in response.content.decode()
    assert browser.get(reverse("clubs:home", args=[club.id])).status_code == 403


def test_a_right_club_code_uses_up_none_of_the_browsers_allowance(club, settings):
    settings.PARTY_CODE_MAX_FAILURES = 2
    browser = Browser()
    for _ in range(5):
        assert join_with_code(browser, club.code).status_code == 302
    assert join_with_code(browser, "WRONGCODE").status_code == 400
    assert join_with_code(browser, club.code).status_code == 302


def test_the_organizer_link_redeems_into_the_session_and_a_new_one_revokes_it(organizer, club):
    link = ClubLink.objects.get(club=club)
    phone = Browser()
    response = phone.get(reverse("clubs:redeem", args=[access.token_for(link)]))
    assert response.status_code == 302 and response["Location"] == f"/clubs/{club.id}/"
    assert phone.get(reverse("clubs:night_create", args=[club.id])).status_code == 200
    assert organizer.post(reverse("clubs:link_reissue", args=[club.id])).status_code == 302
    assert phone.get(reverse("clubs:night_create", args=[club.id])).status_code == 403
    assert organizer.get(reverse("clubs:night_create", args=[club.id])).status_code == 200
    gone = phone.get(reverse("clubs:redeem", args=[access.token_for(link)]))
    assert gone.status_code == 404


def test_a_night_is_a_party_with_the_clubs_rules_and_pot_seating_who_comes(organizer, club):
    night = create_night(organizer, club, out=["Kay", "Lou"], subs=[("Sam", "Lou"), ("Tess", None)])
    party = night.party
    assert party.options == club.options and party.pot == club.pot
    names = sorted(party.players.filter(is_ghost=False).values_list("name", flat=True))
    assert names == sorted([m for m in club.members.values_list("name", flat=True)
                            if m not in ("Kay", "Lou")] + ["Sam", "Tess"])
    rows = {p.name: (p.kind, p.member.name if p.member else None)
            for p in NightPlayer.objects.filter(night=night)}
    assert rows["Sam"] == ("sub", "Lou") and rows["Tess"] == ("sub", None)
    assert rows["Ann"] == ("member", "Ann")
    assert night.season.number == 1 and night.host.name == "Ann"
    page = organizer.get(reverse("clubs:home", args=[club.id]) + f"?night={night.id}")
    host_link = AccessLink.objects.get(party=party, role=AccessLink.Role.HOST)
    from parties import access as party_access

    assert party_access.token_for(host_link) in page.content.decode()


@pytest.mark.parametrize("subs, out, message", [
    ([("Ann", None)], [], "is a member: tick them as coming"),
    ([("Sam", "Ann")], [], "cannot play for Ann, who is coming"),
    ([("Sam", "Lou"), ("Tess", "Lou")], ["Lou"], "Lou has two subs"),
    ([("Sam", None), ("sam", None)], [], "among the subs twice"),
    ([("Ghost 2", None)], [], "kept for the ghosts"),
])
def test_a_night_with_the_wrong_people_is_refused_and_makes_no_party(
    organizer, club, subs, out, message
):
    response = organizer.post(reverse("clubs:night_create", args=[club.id]),
                              night_form(club, out=out, subs=subs))
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Party.objects.exists() and not ClubNight.objects.exists()


def test_a_night_the_rules_cannot_seat_is_refused(organizer, club):
    from dataclasses import replace

    from scoring import PRESETS

    Club.objects.filter(pk=club.pk).update(options=replace(PRESETS["boxed_small"]).to_options(),
                                           preset="boxed_small")
    response = organizer.post(reverse("clubs:night_create", args=[club.id]), night_form(club))
    assert response.status_code == 400
    assert not Party.objects.exists()


def test_the_nights_host_defaults_to_the_rotations_host_of_the_month(organizer, club):
    season = Season.objects.get(club=club)
    month = datetime.date.today().replace(day=1)
    HostMonth.objects.filter(season=season, month=month).update(
        member=Member.objects.get(club=club, name="June"))
    page = organizer.get(reverse("clubs:night_create", args=[club.id])).content.decode()
    june = Member.objects.get(club=club, name="June").id
    assert f'<option value="{june}" selected>June</option>' in page


def test_the_organizer_changes_the_rotation_and_the_club_page_shows_it(organizer, club, reader):
    season = Season.objects.get(club=club)
    first = HostMonth.objects.filter(season=season).order_by("month").first()
    dot = Member.objects.get(club=club, name="Dot")
    field = f"month-{first.month:%Y-%m}"
    response = organizer.post(reverse("clubs:rotation", args=[club.id]), {field: str(dot.id)})
    assert response.status_code == 302
    first.refresh_from_db()
    assert first.member == dot
    printed = reader.get(reverse("clubs:rotation_print", args=[club.id])).content.decode()
    assert "Dot" in printed
    assert reader.post(reverse("clubs:rotation", args=[club.id]), {field: ""}).status_code == 403
    first.refresh_from_db()
    assert first.member == dot


def test_the_organizer_changes_what_ranks_the_season_and_how_subs_count(organizer, club):
    response = organizer.post(reverse("clubs:settings", args=[club.id]),
                              {"ranking": "points", "subs_count_for_member": "on"})
    assert response.status_code == 302
    club.refresh_from_db()
    assert (club.ranking, club.subs_count_for_member) == ("points", True)
    page = organizer.get(reverse("clubs:standings", args=[club.id])).content.decode()
    assert "ranked by most points" in page
    organizer.post(reverse("clubs:settings", args=[club.id]), {"ranking": "age"})
    club.refresh_from_db()
    assert club.ranking == "points"
