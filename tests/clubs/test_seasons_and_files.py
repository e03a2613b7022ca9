"""A season closed (its standings kept, to print) and the next started with the same members; and
the club as a file, made again by its import, or refused with nothing made."""

import copy
import io
import json
import random

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from bench.club_standings import play_night
from clubs import selectors
from clubs.exchange import club_document
from clubs.models import Club, ClubLink, ClubNight, Member, NightPlayer, Season
from clubs.services.club_import import ClubImportRefused, club_import
from parties.models import Party, Roll
from tests.clubs.conftest import create_night, night_form
from tests.parties.conftest import Browser

pytestmark = pytest.mark.django_db


def standings_by_name(club, season):
    table = selectors.season_standings(club, season)
    return {row.name: (row.rank, row.totals) for row in table.rows}


@pytest.fixture
def played(organizer, club):
    rng = random.Random(11)
    first = create_night(organizer, club, out=["Lou"], subs=[("Sam", "Lou")])
    play_night(first.party, rng)
    second = create_night(organizer, club, out=["Kay"], subs=[("Tess", None)])
    play_night(second.party, rng)
    return first, second


def test_a_season_closes_only_once_its_nights_are_over(organizer, club):
    night = create_night(organizer, club)
    close = reverse("clubs:season_close", args=[club.id])
    answer = organizer.post(close, follow=True)
    assert "is not over: finish it" in answer.content.decode()
    assert Season.objects.get(club=club).closed_at is None
    play_night(night.party, random.Random(2))
    organizer.post(close)
    assert Season.objects.get(club=club).closed_at is not None


def test_a_closed_seasons_standings_stay_to_print_and_the_next_starts_with_the_same_members(
    organizer, club, reader, played
):
    season_one = Season.objects.get(club=club)
    before = standings_by_name(club, season_one)
    organizer.post(reverse("clubs:season_close", args=[club.id]))
    refused = organizer.post(reverse("clubs:night_create", args=[club.id]), night_form(club))
    assert refused.status_code == 400
    assert "start the next season first" in refused.content.decode()
    organizer.post(reverse("clubs:season_start", args=[club.id]))
    season_two = Season.objects.get(club=club, number=2)
    assert season_two.closed_at is None and season_two.host_months.count() == 12
    assert standings_by_name(club, season_one) == before
    assert all(t.nights == 0 for _rank, t in standings_by_name(club, season_two).values())
    assert sorted(standings_by_name(club, season_two)) == sorted(before)  # the same members
    printed = reader.get(reverse("clubs:season_print", args=[club.id, 1]))
    assert printed.status_code == 200
    text = printed.content.decode()
    assert "Season 1: final standings" in text
    leader = min(before, key=lambda name: (before[name][0], name))
    assert leader in text
    page = reader.get(reverse("clubs:standings", args=[club.id]) + "?season=1")
    assert "Final standings" in page.content.decode()
    assert reader.get(reverse("clubs:standings", args=[club.id]) + "?season=9").status_code == 404
    night = create_night(organizer, club)
    assert night.season == season_two


def test_a_season_cannot_start_while_one_is_in_play(organizer, club):
    answer = organizer.post(reverse("clubs:season_start", args=[club.id]), follow=True)
    assert "Close the season in play" in answer.content.decode()
    assert Season.objects.filter(club=club).count() == 1


# -- the club's file ----------------------------------------------------------------------------


def upload(browser, document, name="club.json"):
    data = document if isinstance(document, bytes) else json.dumps(document).encode()
    return browser.post(reverse("clubs:import"),
                        {"file": SimpleUploadedFile(name, data, "application/json")})


def counts():
    return (Club.objects.count(), Party.objects.count(), ClubNight.objects.count(),
            Member.objects.count(), Roll.objects.count(), NightPlayer.objects.count())


def test_the_organizer_downloads_the_club_and_another_server_makes_it_again(
    organizer, club, played
):
    first, _second = played
    response = organizer.get(reverse("clubs:export_json", args=[club.id]))
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert "attachment" in response["Content-Disposition"]
    document = json.loads(response.content)
    text = response.content.decode()
    link = ClubLink.objects.get(club=club)
    assert club.code not in text and link.token_hash not in text and link.salt not in text
    assert len(document["nights"]) == 2
    assert "clubs.clubnight" not in document["nights"][0]["party"]["models"]

    importer = Browser()
    answer = upload(importer, response.content)
    assert answer.status_code == 302, answer.content.decode()[:2000]
    copy_ = Club.objects.exclude(pk=club.pk).get()
    assert answer["Location"] == f"/clubs/{copy_.id}/"
    assert copy_.code != club.code and copy_.options == club.options and copy_.pot == club.pot
    old, new = selectors.latest_season(club), selectors.latest_season(copy_)
    assert standings_by_name(copy_, new) == standings_by_name(club, old)
    assert [n.members for n in selectors.night_views(copy_, new)] == [
        n.members for n in selectors.night_views(club, old)]
    assert importer.get(reverse("clubs:night_create", args=[copy_.id])).status_code == 200
    assert organizer.get(reverse("clubs:night_create", args=[copy_.id])).status_code == 403
    new_first = ClubNight.objects.filter(season__club=copy_).order_by("date", "id").first()
    assert new_first.party_id != first.party_id
    assert new_first.party.code != first.party.code


def test_the_party_file_of_a_club_night_imports_alone_as_a_party(organizer, club, played):
    from parties.exchange.exports import party_document
    from parties.services.party_import import party_import

    first, _second = played
    party = party_import(file=io.BytesIO(json.dumps(party_document(first.party)).encode()))
    assert not ClubNight.objects.filter(party=party).exists()
    assert sorted(party.players.values_list("name", flat=True)) == sorted(
        first.party.players.values_list("name", flat=True))


def broken(document, change):
    document = copy.deepcopy(document)
    change(document)
    return document


def _unseated(d):
    d["nights"][0]["players"][0][0] = "Nobody"


def _roll_of_no_round(d):
    rolls = d["nights"][1]["party"]["models"]["parties.roll"]
    rolls["rows"][0][rolls["columns"].index("round")] = 999999


def _two_open_seasons(d):
    d["seasons"].append([d["seasons"][0][0] + 1, 2, "2026-05-01", None])


@pytest.mark.parametrize("change, refusal", [
    (lambda d: d.update(format="something-else"), "not a Bunco Night club file"),
    (lambda d: d.update(version=99), "version is not one this server reads"),
    (lambda d: d["members"].append([d["members"][0][0], "Zed", 13]), "names a member twice"),
    (_unseated, "whom its party does not seat"),
    (_roll_of_no_round, "The night of"),
    (_two_open_seasons, "more than one season in play"),
    (lambda d: d["club"].update(ranking="age"), "settings are not ones this server knows"),
    (lambda d: d["nights"][0].update(host=123456789), "does not hold"),
    (lambda d: d["nights"][0].pop("party"), "does not hold together"),
])
def test_a_bad_club_file_is_refused_saying_why_and_nothing_is_made(club, played, change, refusal):
    document = club_document(club)
    before = counts()
    with pytest.raises(ClubImportRefused, match=refusal):
        club_import(data=json.dumps(broken(document, change)).encode())
    assert counts() == before


def test_the_import_page_refuses_a_file_that_is_no_club_clearly_and_makes_nothing(club, played):
    browser = Browser()
    before = counts()
    answer = upload(browser, b"\x89PNG not json at all")
    assert answer.status_code == 400
    assert "not a Bunco Night club file" in answer.content.decode()
    assert "Nothing was imported." in answer.content.decode()
    assert counts() == before


def test_a_club_file_past_its_limit_is_refused_and_one_under_it_is_read(club, played, settings):
    settings.CLUB_IMPORT_MAX_BYTES = 3000
    before = counts()
    over = Browser().post(reverse("clubs:import"), {"file": SimpleUploadedFile(
        "club.json", b" " * 2990, "application/json")}, CONTENT_LENGTH=3000 + 64 * 1024 + 1)
    assert over.status_code == 413 and counts() == before  # refused before it is read
    padded = Browser().post(reverse("clubs:import"), {"file": SimpleUploadedFile(
        "club.json", b"{}" + b" " * 3000, "application/json")})
    assert padded.status_code == 400 and "larger than" in padded.content.decode()
    assert counts() == before
    # Past the 1 MB of other addresses, a club's file is still read (and judged).
    settings.CLUB_IMPORT_MAX_BYTES = 8 * 1024 * 1024
    big = upload(Browser(), b"{}" + b" " * (1024 * 1024 + 10))
    assert big.status_code == 400 and "format is not named" in big.content.decode()
