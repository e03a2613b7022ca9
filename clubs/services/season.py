"""Writes to a club's seasons: close the season in play (its standings stay, worked out from its
nights), start the next with the same members, and change who hosts which month."""

import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs.models import Club, HostMonth, Member, Season
from clubs.services.club import lock_club, season_open
from clubs.services.errors import ClubError
from clubs.services.night import open_season
from parties.models import Party


@transaction.atomic
def season_close(*, club: Club) -> Season:
    """Close the season in play. Refused while one of its nights is not over, so a closed
    season's standings are its nights' final results (a night's host ends the party, or plays
    it out, first)."""
    lock_club(club)
    season = open_season(club)
    if season is None:
        raise ClubError(_("No season is in play."))
    unfinished = (
        season.nights.exclude(party__status=Party.Status.FINISHED).order_by("date").first()
    )
    if unfinished is not None:
        raise ClubError(
            _(
                "The night of %(date)s is not over: finish it, or end it from its host page, "
                "before closing the season."
            )
            % {"date": unfinished.date.isoformat()}
        )
    season.closed_at = timezone.now()
    season.save(update_fields=["closed_at"])
    return season


@transaction.atomic
def season_start(*, club: Club, today: datetime.date) -> Season:
    """The next season, with the club's members (all of them carry on) and a new rotation."""
    lock_club(club)
    if open_season(club) is not None:
        raise ClubError(_("Close the season in play before starting the next."))
    last = Season.objects.filter(club=club).order_by("-number").first()
    return season_open(club, (last.number if last else 0) + 1, today)


@transaction.atomic
def rotation_set(*, club: Club, hosts: dict[datetime.date, int | None]) -> None:
    """Who hosts each month of the season in play: `hosts` maps a month (its first day) to a
    member's id, or None for nobody yet. Months the season does not have are refused."""
    lock_club(club)
    season = open_season(club)
    if season is None:
        raise ClubError(_("The season is closed: its host rotation stays as it was."))
    months = {hm.month: hm for hm in season.host_months.all()}
    members = set(Member.objects.filter(club=club).values_list("id", flat=True))
    for month, member_id in hosts.items():
        if month not in months:
            raise ClubError(_("That month is not one of this season's."))
        if member_id is not None and member_id not in members:
            raise ClubError(_("Pick each month's host among the members."))
    changed = []
    for month, member_id in hosts.items():
        row = months[month]
        if row.member_id != member_id:
            row.member_id = member_id
            changed.append(row)
    HostMonth.objects.bulk_update(changed, ["member"])
