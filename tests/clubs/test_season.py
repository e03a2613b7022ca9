"""The season's standings from nights played through the services: each member's totals are the
nights' own results, a correction to a night changes them, subs count as the club says, those
who join a night another way are guests unless a member's name is theirs, and a night's party
deleted leaves the season as if it had never been."""

import csv
import io
import random

import pytest
from django.urls import reverse

from bench.club_standings import SUBS, build_season, play_night
from clubs import selectors
from clubs.models import Club, ClubNight, NightPlayer
from parties import selectors as party_selectors
from parties.models import Party, Roll
from parties.services.player import player_arrive
from parties.services.roll_correction import roll_correct
from scoring.pot import split_pot
from tests.clubs.conftest import create_night

pytestmark = pytest.mark.django_db


def totals_by_name(club, season=None):
    season = season or selectors.latest_season(club)
    table = selectors.season_standings(club, season)
    return {row.name: row.totals for row in table.rows}


def night_results(party):
    """Each real player's night from the party's own results page reads, by name, and what
    they took home."""
    rows, prizes = party_selectors.party_results(party)
    winners = {p.key: [str(pid) for pid, _n in p.winners] for p in prizes}
    takes = split_pot(party.prize_pot, party_selectors.buy_ins(party), winners).take_home()
    won = {}
    for prize in prizes:
        if prize.circuit is None:
            for pid, _name in prize.winners:
                won[pid] = won.get(pid, 0) + 1
    return {row.name: (row.sheet, won.get(row.player_id, 0), takes.get(str(row.player_id), 0))
            for row in rows}


@pytest.fixture
def played(organizer, club):
    """Two nights played to the end: Lou out with Sam for him on the first, Kay out on the
    second with Tess as a guest."""
    rng = random.Random(7)
    first = create_night(organizer, club, out=["Lou"], subs=[("Sam", "Lou")])
    play_night(first.party, rng)
    second = create_night(organizer, club, out=["Kay"], subs=[("Tess", None)])
    play_night(second.party, rng)
    return first, second


def test_each_members_season_is_the_sum_of_their_nights_own_results(club, played):
    first, second = played
    expected = {}
    for night in (first, second):
        night.party.refresh_from_db()
        assert night.party.status == Party.Status.FINISHED
        for name, (sheet, prizes, took) in night_results(night.party).items():
            if name in ("Sam", "Tess"):
                continue  # this club counts a sub for nobody (subs_count_for_member off)
            got = expected.setdefault(name, [0] * 8)
            for i, value in enumerate((1, sheet.wins, sheet.losses, sheet.buncos,
                                       sheet.mini_buncos, sheet.points, prizes, took)):
                got[i] += value
    totals = totals_by_name(club)
    for name, (nights, wins, losses, buncos, minis, points, prizes, took) in expected.items():
        t = totals[name]
        assert (t.nights, t.wins, t.losses, t.buncos, t.mini_buncos, t.points, t.prizes,
                t.took_home) == (nights, wins, losses, buncos, minis, points, prizes, took), name
        assert t.paid_in == 500 * nights
    assert totals["Lou"].nights == 1 and totals["Kay"].nights == 1
    assert sum(t.wins + t.losses for t in totals.values()) == 2 * 11 * 6  # two nights' rounds


def test_the_club_counts_a_subs_night_for_the_member_when_it_says_so(club, played):
    first, _second = played
    before = totals_by_name(club)["Lou"]
    Club.objects.filter(pk=club.pk).update(subs_count_for_member=True)
    club.refresh_from_db()
    after = totals_by_name(club)["Lou"]
    sam, _prizes, _took = night_results(first.party)["Sam"]
    assert after.nights == before.nights + 1
    assert (after.wins, after.points) == (before.wins + sam.wins, before.points + sam.points)
    assert totals_by_name(club)["Kay"].nights == 1  # Tess played as a guest: for nobody


def test_a_correction_to_a_night_after_the_fact_changes_the_standings(club, played):
    first, _second = played
    roll = (
        Roll.objects.filter(round__party=first.party, outcome="one", voided_by__isnull=True,
                            phase=Roll.Phase.PLAY, roller__name__in=["Ann", "Bea", "Cleo"])
        .exclude(table__number=1).select_related("roller").order_by("id").first()
    )
    assert roll is not None
    before = totals_by_name(club)[roll.roller.name]
    roll_correct(party=first.party, roll_id=roll.id, by="host", outcome="two")
    after = totals_by_name(club)[roll.roller.name]
    assert after.points == before.points + 1
    sheet, _prizes, _took = night_results(first.party)[roll.roller.name]
    assert night_results(first.party)[roll.roller.name][0] == sheet


def test_a_nights_pot_changed_after_the_fact_changes_the_money_in_the_standings(club, played):
    from parties.services.pot import pot_set

    first, second = played
    before = totals_by_name(club)["Ann"]
    pot_set(party=second.party, data={"buy_in": "8", "unit": "percent", "tied": "split"})
    after = totals_by_name(club)["Ann"]
    assert after.paid_in == before.paid_in + 300  # 5.00 -> 8.00 on the second night
    took = {name: took for name, (_sheet, _prizes, took) in night_results(second.party).items()}
    firsts = {name: took for name, (_s, _p, took) in night_results(first.party).items()}
    assert after.took_home == firsts["Ann"] + took["Ann"]


def test_a_nights_party_deleted_leaves_the_season_as_if_it_had_never_been(organizer, club,
                                                                        played):
    first, second = played
    only_first = {name: (sheet.wins, sheet.points) for name, (sheet, _p, _t)
                  in night_results(first.party).items()}
    Party.objects.filter(pk=second.party.pk).delete()
    assert not ClubNight.objects.filter(pk=second.pk).exists()
    assert not NightPlayer.objects.filter(night_id=second.pk).exists()
    totals = totals_by_name(club)
    for name, t in totals.items():
        if name in only_first:
            assert (t.nights, t.wins, t.points) == (1, *only_first[name])
        else:
            assert t.nights == 0 and t.wins == 0  # Lou: only Sam played for him, as a guest
    page = organizer.get(reverse("clubs:home", args=[club.id]))
    assert page.status_code == 200
    assert len(selectors.night_views(club, selectors.latest_season(club))) == 1


# Its own transactions, as a deletion in production has: in the test's one transaction the
# nights' round closes made PostgreSQL check foreign keys row by row (close_sql's SET
# CONSTRAINTS ALL IMMEDIATE), where Django's deletion counts on them checked at the commit.
@pytest.mark.django_db(transaction=True)
def test_a_corrected_nights_party_deleted_leaves_the_season_as_if_it_had_never_been(
    club, played
):
    """Most nights have a correction: its party is deleted with its corrections and the rolls
    they voided, and the season is the other night's alone. A correction alone cannot be
    deleted while a roll it voided stays."""
    from django.db import transaction
    from django.db.models import RestrictedError

    first, second = played
    roll = Roll.objects.filter(round__party=first.party, voided_by__isnull=True,
                               outcome="one").exclude(table__number=1).first()
    roll_correct(party=first.party, roll_id=roll.id, by="host", outcome="two")
    correction = Roll.objects.get(pk=roll.pk).voided_by
    with pytest.raises(RestrictedError), transaction.atomic():
        correction.delete()
    assert Roll.objects.get(pk=roll.pk).voided_by == correction

    only_second = {name: (sheet.wins, sheet.points) for name, (sheet, _p, _t)
                   in night_results(second.party).items()}
    Party.objects.filter(pk=first.party.pk).delete()
    assert not ClubNight.objects.filter(pk=first.pk).exists()
    assert not Roll.objects.filter(pk=roll.pk).exists()
    for name, t in totals_by_name(club).items():
        assert (t.nights, t.wins, t.points) == ((1, *only_second[name]) if name in only_second
                                                 else (0, 0, 0)), name


def test_who_joins_a_night_another_way_is_a_guest_unless_a_members_name_is_theirs(
    organizer, club
):
    night = create_night(organizer, club, out=["Kay", "Lou"])  # 10 players: two ghosts
    player_arrive(party=night.party, name="lou")  # Lou came after all, typed in lower case
    player_arrive(party=night.party, name="Zed")  # a guest
    play_night(night.party, random.Random(3))
    view = selectors.night_views(club, night.season)[0]
    assert "lou" in view.members and view.guests == ["Zed"]
    totals = totals_by_name(club)
    assert totals["Lou"].nights == 1 and totals["Kay"].nights == 0
    zed, _prizes, _took = night_results(night.party)["Zed"]
    assert zed.wins + zed.losses == 6  # played every round, as a guest
    assert "Zed" not in totals


def test_an_unfinished_night_counts_for_nothing_until_it_is_over(organizer, club):
    night = create_night(organizer, club)
    assert all(t.nights == 0 for t in totals_by_name(club).values())
    play_night(night.party, random.Random(1))
    assert all(t.nights == 1 for t in totals_by_name(club).values())


def test_a_season_of_twelve_nights_with_twelve_members_and_four_subs(django_assert_max_num_queries):
    club = build_season(nights=12, seed=5)
    season = selectors.latest_season(club)
    nights = list(season.nights.select_related("party"))
    assert len(nights) == 12
    assert all(n.party.status == Party.Status.FINISHED for n in nights)
    subs = set(NightPlayer.objects.filter(night__season=season, kind="sub")
               .values_list("name", flat=True))
    assert subs == set(SUBS)
    table = selectors.season_standings(club, season)
    assert table.nights == 12
    played = {n.party_id: night_results(n.party) for n in nights}
    # This club counts a sub's night for the member they played for: each member's season is
    # their own nights and their subs' nights.
    for row in table.rows:
        mine = []
        for night in nights:
            rows = {p.name: p for p in night.players.all()}
            for name, result in played[night.party_id].items():
                person = rows.get(name)
                if person is not None and person.member_id == int(row.member):
                    mine.append(result)
        assert row.totals.nights == len(mine)
        assert row.totals.wins == sum(sheet.wins for sheet, _p, _t in mine)
        assert row.totals.buncos == sum(sheet.buncos for sheet, _p, _t in mine)
        assert row.totals.took_home == sum(took for _s, _p, took in mine)
    assert sum(r.totals.nights for r in table.rows) == 12 * 12
    assert [r.rank for r in table.rows] == sorted(r.rank for r in table.rows)
    reader = _reader(club)
    with django_assert_max_num_queries(200):
        page = reader.get(reverse("clubs:standings", args=[club.id]))
    assert page.status_code == 200


def _reader(club):
    from tests.parties.conftest import Browser

    browser = Browser()
    assert browser.post(reverse("parties:join"), {"code": club.code}).status_code == 302
    return browser


def test_the_standings_file_lists_every_member_in_the_pages_order(reader, club, played):
    response = reader.get(reverse("clubs:standings_csv", args=[club.id]))
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    lines = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    table = selectors.season_standings(club, selectors.latest_season(club))
    assert [line["Member"] for line in lines] == [row.name for row in table.rows]
    assert [int(line["Wins"]) for line in lines] == [row.totals.wins for row in table.rows]
    paid = {line["Member"]: line["Paid in (USD)"] for line in lines}  # the form's default
    assert paid["Ann"] == "10.00" and paid["Lou"] == "5.00"


def test_a_club_in_euros_shows_its_money_as_each_reader_writes_it(organizer):
    from tests.clubs.conftest import create_club

    club = create_club(organizer, currency="EUR")
    assert club.prize_pot.currency == "EUR"
    night = create_night(organizer, club)
    assert night.party.pot_currency == "EUR"  # the night's pot is the club's
    play_night(night.party, random.Random(3))
    page = organizer.get(reverse("clubs:standings", args=[club.id])).content.decode()
    assert "€5.00" in page  # each member's buy-in, paid in
    organizer.cookies["django_language"] = "es"
    page = organizer.get(reverse("clubs:standings", args=[club.id])).content.decode()
    assert "5,00\u00a0€" in page
    csv_head = organizer.get(reverse("clubs:standings_csv", args=[club.id])).content.decode()
    assert "Aportó (EUR)" in csv_head.splitlines()[0]  # the CSV's heading names the currency


def test_a_currency_not_on_the_list_is_refused_on_the_club_form(organizer):
    from tests.clubs.conftest import club_form

    response = organizer.post(reverse("clubs:create"), club_form(currency="DOGE"))
    assert response.status_code == 400 and not Club.objects.exists()
