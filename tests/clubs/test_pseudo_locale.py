"""Nothing a person reads on a club's pages is left in English: each page rendered in the
pseudo-locale (tests/catalogs.py: every translation its English in ⟦ ⟧), for the organizer and
for a member, with a night played and a form refused."""

import random

import pytest
from django.urls import reverse

from bench.club_standings import play_night
from clubs.models import ClubNight
from parties.party_codes import party_code_shown
from tests.clubs.conftest import club_form, create_club, night_form
from tests.parties.test_pseudo_locale import (  # noqa: F401 - the pseudo-locale's fixtures
    WORD,
    browser_in_pseudo,
    pseudo,
    pseudo_locale,
    words_left_on,
)

pytestmark = [pytest.mark.django_db, pytest.mark.needs_gettext, pytest.mark.usefixtures("pseudo")]
SUBS = {"Sam"}
# Dates are written by Django's date filter, in words from Django's own catalogs (Spanish and
# French have them), which the pseudo-locale, made from this app's messages only, lacks.
MONTHS = {"January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December", "Jan", "Feb", "Mar", "Apr", "Aug",
          "Sept", "Oct", "Nov", "Dec"}


def club_names(club):
    """The club's own words: its name, its code and its nights' codes, and their pieces."""
    names = set(WORD.findall(club.name)) | SUBS | MONTHS
    codes = [club.code] + [n.party.code for n in ClubNight.objects.select_related("party")]
    for code in codes:
        names |= {code[i:j] for i in range(len(code)) for j in range(i + 2, len(code) + 1)}
        names |= set(party_code_shown(code).split())
    return names


def test_every_club_page_reads_in_the_pseudo_locale():
    organizer = browser_in_pseudo()
    club = create_club(organizer)
    response = organizer.post(reverse("clubs:night_create", args=[club.id]),
                              night_form(club, out=["Lou"], subs=[("Sam", "Lou")]))
    assert response.status_code == 302
    play_night(ClubNight.objects.get().party, random.Random(1))
    # Kay leaves: the club page lists who left, offers them back, and says it happened.
    assert organizer.post(reverse("clubs:member_leave", args=[club.id]),
                          {"member": club.members.get(name="Kay").id}).status_code == 302
    member = browser_in_pseudo()
    assert member.post(reverse("parties:join"), {"code": club.code}).status_code == 302
    at = [club.id]
    pages = {
        organizer: [reverse("clubs:create"), reverse("clubs:import"),
                    reverse("clubs:home", args=at), reverse("clubs:night_create", args=at)],
        member: [reverse("clubs:home", args=at), reverse("clubs:standings", args=at),
                 reverse("clubs:season_print", args=[club.id, 1]),
                 reverse("clubs:rotation_print", args=at)],
    }
    left = {}
    for browser, urls in pages.items():
        for url in urls:
            response = browser.get(url)
            assert response.status_code == 200, url
            if words := words_left_on(response.content.decode(), club_names(club)):
                left[url] = words
    assert left == {}, f"English not marked for translation: {left}"


def test_refused_club_forms_speak_the_pseudo_locale():
    organizer = browser_in_pseudo()
    refused = organizer.post(reverse("clubs:create"), club_form(players="Ann\nann", buy_in="x"))
    assert refused.status_code == 400
    assert words_left_on(refused.content.decode(), {"Ann", "ann", "Thursday", "Club"}) == []
    club = create_club(organizer)
    refused = organizer.post(reverse("clubs:night_create", args=[club.id]),
                             night_form(club, subs=[("Sam", "Ann")]))
    assert refused.status_code == 400
    assert words_left_on(refused.content.decode(), club_names(club)) == []
    for url, data in (("clubs:member_add", {"name": "ann"}),
                      ("clubs:member_back", {"member": "1"})):
        refused = organizer.post(reverse(url, args=[club.id]), data, follow=True)
        assert "⟦" in str(list(refused.context["messages"])[0])
        assert words_left_on(refused.content.decode(), club_names(club)) == []
