"""The members after the club is made, as the organizer changes them on the club page: a
newcomer joins, a member leaves (their nights stay in the standings, the months they were to
host are freed), one who left comes back. Every refusal says why and changes nothing."""

import datetime
import random

import pytest
from django.urls import reverse
from django.utils import timezone

from bench.club_standings import play_night
from clubs import selectors
from clubs.models import HostMonth, Member
from tests.clubs.conftest import create_club, create_night, night_form
from tests.clubs.test_seasons_and_files import upload
from tests.parties.conftest import Browser

pytestmark = pytest.mark.django_db


def standing_names(club):
    table = selectors.season_standings(club, selectors.latest_season(club))
    return {row.name: row.totals for row in table.rows}


def members_now(club):
    return sorted(club.members.values_list("name", "left"))


def page_messages(response):
    return [str(m) for m in response.context["messages"]] if response.context else []


def add(browser, club, name):
    return browser.post(reverse("clubs:member_add", args=[club.id]), {"name": name},
                        follow=True)


def leave(browser, club, name):
    member = club.members.get(name=name)
    return browser.post(reverse("clubs:member_leave", args=[club.id]), {"member": member.id},
                        follow=True)


def back(browser, club, name):
    member = club.members.get(name=name)
    return browser.post(reverse("clubs:member_back", args=[club.id]), {"member": member.id},
                        follow=True)


def test_a_newcomer_joins_and_is_offered_for_the_next_night(organizer, club):
    page = add(organizer, club, "  Nora   Bly ")
    assert "Nora Bly is a member now." in page_messages(page)
    nora = club.members.get(name="Nora Bly")
    assert nora.position == 13 and not nora.left
    assert "Nora Bly" in page.content.decode()
    form = organizer.get(reverse("clubs:night_create", args=[club.id]))
    assert f'value="{nora.id}"' in form.content.decode()
    night = create_night(organizer, club, out=["Lou"])  # Nora comes: 12 again
    assert "Nora Bly" in night.party.players.values_list("name", flat=True)
    assert standing_names(club)["Nora Bly"].nights == 0  # in the standings from the start


@pytest.mark.parametrize("name, says", [
    ("", "A player's name cannot be blank."),
    ("x" * 41, "is longer than 40 characters."),
    ("ann", "“Ann” is already a member."),
])
def test_a_name_that_cannot_be_a_members_is_refused_and_nothing_changes(
    organizer, club, name, says
):
    before = members_now(club)
    page = add(organizer, club, name)
    assert any(says in m for m in page_messages(page)), page_messages(page)
    assert members_now(club) == before


def test_one_who_leaves_keeps_their_nights_and_is_offered_no_more(organizer, club):
    rng = random.Random(11)
    first = create_night(organizer, club)
    play_night(first.party, rng)
    played = standing_names(club)["Iris"]
    assert played.nights == 1
    month = timezone.localdate().replace(day=1)
    iris = club.members.get(name="Iris")
    HostMonth.objects.filter(season__club=club, month=month).update(member=iris)
    # A month gone by that she hosted (the season began before this month, say).
    past = HostMonth.objects.create(season=first.season, member=iris,
                                    month=(month - datetime.timedelta(days=1)).replace(day=1))

    page = leave(organizer, club, "Iris")
    said = page_messages(page)
    assert "They have left the club; the nights they played stay in the standings." in said
    assert any(m.startswith("The months they were to host have nobody yet:") for m in said)
    assert HostMonth.objects.get(season__club=club, month=month).member is None
    assert HostMonth.objects.get(pk=past.pk).member == iris  # a month gone by keeps its host
    text = page.content.decode()
    assert "Left the club: Iris" in text
    assert standing_names(club)["Iris"] == played  # their night stays theirs

    form = organizer.get(reverse("clubs:night_create", args=[club.id]))
    assert f'value="{iris.id}"' not in form.content.decode()
    # Ticked by a stale form, or named as a sub: refused, no night made.
    nights = club.seasons.get().nights.count()
    stale = organizer.post(reverse("clubs:night_create", args=[club.id]),
                           {**night_form(club, out=["Lou"])})
    assert stale.status_code == 400 and "Select a valid choice" in stale.content.decode()
    as_sub = organizer.post(reverse("clubs:night_create", args=[club.id]),
                            night_form(club, out=["Iris", "Lou"], subs=[("iris", None)]))
    assert as_sub.status_code == 400
    assert "Iris left the club: bring them back on the club page" in as_sub.content.decode()
    assert club.seasons.get().nights.count() == nights
    # And adding her again as new says where she is.
    again = add(organizer, club, "IRIS")
    assert any("Iris left the club: bring them back" in m for m in page_messages(again))

    page = back(organizer, club, "Iris")
    assert "Welcome back: a member again, with the nights played before." in page_messages(page)
    assert not club.members.get(name="Iris").left
    assert standing_names(club)["Iris"] == played


def test_one_who_left_before_playing_this_season_is_not_in_its_standings(organizer, club):
    leave(organizer, club, "Kay")
    assert "Kay" not in standing_names(club)
    assert "Kay" in [m.name for m in selectors.members(club)]  # still known by name


def test_leaving_and_coming_back_twice_or_as_a_stranger_is_refused(organizer, club, reader):
    leave(organizer, club, "Kay")
    before = members_now(club)
    assert any("not a member of this club now" in m for m in page_messages(
        leave(organizer, club, "Kay")))
    assert any("not among those who left" in m for m in page_messages(
        back(organizer, club, "Ann")))
    for chosen in ("x", "²", "9" * 30):  # "²" is a digit to str.isdigit, not to int()
        nobody = organizer.post(reverse("clubs:member_leave", args=[club.id]),
                                {"member": chosen}, follow=True)
        assert any("not a member of this club now" in m for m in page_messages(nobody))
    assert reader.post(reverse("clubs:member_back", args=[club.id]),
                       {"member": club.members.get(name="Kay").id}).status_code == 403
    assert members_now(club) == before


def test_the_last_member_stays(organizer):
    club = create_club(organizer, names=["Ann", "Bea"])
    leave(organizer, club, "Ann")
    page = leave(organizer, club, "Bea")
    assert "A club keeps at least one member." in page_messages(page)
    assert members_now(club) == [("Ann", True), ("Bea", False)]


def test_the_club_file_keeps_who_left(organizer, club):
    leave(organizer, club, "Kay")
    exported = organizer.get(reverse("clubs:export_json", args=[club.id])).content
    assert upload(Browser(), exported).status_code == 302
    copy = Member.objects.exclude(club=club).get(name="Kay").club
    assert members_now(copy) == members_now(club)
