"""Writes to a club: create it (its members, organizer link, first season and host rotation),
change its settings, give its organizer a new link."""

import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs import access
from clubs.models import Club, ClubLink, HostMonth, Member, Season
from clubs.services.errors import ClubError
from clubs.standings import RANKINGS
from scoring import Rules
from scoring.pot import Pot

MONTHS_A_SEASON = 12


def lock_club(club):
    """Every club write starts here: the club's row locked, so its writes are serialised (two
    "new season" taps make one season)."""
    Club.objects.select_for_update().filter(pk=club.pk).values_list("pk", flat=True).get()
    return club


@transaction.atomic
def club_create(
    *,
    name: str,
    member_names: list[str],
    preset: str,
    rules: Rules,
    pot: Pot,
    subs_count_for_member: bool = False,
    ranking: str = "wins",
    today: datetime.date,
) -> Club:
    """A club with its members (names already checked as a party's players are), its
    organizer link, and season 1 from `today`'s month with a host a month."""
    if ranking not in RANKINGS:
        raise ClubError(_("Rank the season by wins, points or Buncos."))
    if len({n.casefold() for n in member_names}) != len(member_names) or not member_names:
        raise ClubError(_("Every member needs a name of their own."))
    for _attempt in range(5):
        try:
            with transaction.atomic():
                club = Club.objects.create(
                    name=name, code=access.new_club_code(), preset=preset,
                    options=rules.to_options(), pot=pot.to_dict(),
                    subs_count_for_member=subs_count_for_member, ranking=ranking,
                )
            break
        except IntegrityError:  # the random code was taken; draw again
            continue
    else:  # pragma: no cover - 31^15 codes make five collisions in a row unthinkable
        raise ClubError(_("Could not find a free club code; try again."))
    ClubLink.objects.create(**_salted_fields(club))
    Member.objects.bulk_create(
        Member(club=club, name=member_name, position=i)
        for i, member_name in enumerate(member_names, start=1)
    )
    season_open(club, 1, today)
    return club


def _salted_fields(club):
    link = access.new_salted(ClubLink(club=club))
    return {"club": club, "salt": link.salt, "token_hash": link.token_hash}


def first_of_month(day: datetime.date) -> datetime.date:
    return day.replace(day=1)


def months_from(start: datetime.date, count: int) -> list[datetime.date]:
    """`count` firsts of the month from `start`'s."""
    months, month = [], first_of_month(start)
    for _n in range(count):
        months.append(month)
        month = (month + datetime.timedelta(days=32)).replace(day=1)
    return months


def season_open(club, number, today) -> Season:
    """Season `number` from `today`'s month, its host rotation drawn in the members' order
    (carried on from where the last season's left off)."""
    season = Season.objects.create(club=club, number=number, starts_on=first_of_month(today))
    members = list(club.members.filter(left=False).order_by("position", "id"))
    offset = (number - 1) * MONTHS_A_SEASON
    HostMonth.objects.bulk_create(
        HostMonth(
            season=season, month=month,
            member=members[(offset + i) % len(members)] if members else None,
        )
        for i, month in enumerate(months_from(season.starts_on, MONTHS_A_SEASON))
    )
    return season


@transaction.atomic
def club_settings_set(*, club: Club, ranking: str, subs_count_for_member: bool) -> None:
    """What ranks the standings, and whether a sub's night counts for the member they played
    for. Nothing is recounted: the standings are worked out from the nights each time."""
    lock_club(club)
    if ranking not in RANKINGS:
        raise ClubError(_("Rank the season by wins, points or Buncos."))
    Club.objects.filter(pk=club.pk).update(
        ranking=ranking, subs_count_for_member=subs_count_for_member
    )
    club.ranking, club.subs_count_for_member = ranking, subs_count_for_member


@transaction.atomic
def club_link_reissue(*, club: Club) -> ClubLink:
    """Revoke the organizer's link and make its replacement: the old one opens nothing from
    now on, in every browser that redeemed it."""
    lock_club(club)
    access.live_links(club.id).update(revoked_at=timezone.now())
    return ClubLink.objects.create(**_salted_fields(club))
