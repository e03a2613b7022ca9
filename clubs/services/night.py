"""A night of the club: a party of the parties app, made with the club's rules and pot, seating
the members coming and the subs, linked to the club's season."""

import datetime

from django.db import transaction
from django.utils.translation import gettext as _

from clubs.models import ClubNight, Member, NightPlayer, Season
from clubs.services.club import lock_club
from clubs.services.errors import ClubError
from parties.models import Party
from parties.party_limits import party_size_problem
from parties.services.party import party_create


def open_season(club):
    """The club's season in play, or None between seasons."""
    return Season.objects.filter(club=club, closed_at__isnull=True).first()


@transaction.atomic
def night_create(
    *,
    club,
    date: datetime.date,
    host: Member,
    coming: list[Member],
    subs: list[tuple[str, Member | None]],
    language: str = "en",
    self_join: bool = False,
) -> ClubNight:
    """The night: a party seating `coming` (members) and `subs` ((name, the member they play
    for, or None to play as a guest)), with the club's rules and pot, in the open season.
    `host` hosts it at home (a member; they need not play). The party's own links are its
    links: its host link manages this night, and nothing of the club. `language`: its paper's
    (the organizer's); `self_join`: guests may add themselves, as at any party."""
    lock_club(club)
    season = open_season(club)
    if season is None:
        raise ClubError(_("The season is closed: start the next season first."))
    everyone = list(club.members.all())
    members = {m.id: m for m in everyone if not m.left}
    _check_night(members, [m.name for m in everyone if m.left], host, coming, subs)
    names = [m.name for m in coming] + [name for name, _for in subs]
    problem = party_size_problem(len(names), club.rules)
    if problem:
        raise ClubError(problem)
    party = party_create(
        name=night_name(club.name, date), player_names=names, preset=club.preset,
        rules=club.rules, language=language, self_join=self_join,
    )
    # The night's pot is the club's. Written as the party is created, before any phone has
    # it: parties.services.pot.pot_set checks amounts a host typed for one night against that
    # night's pot, where the club's shares are weights, the same whoever comes (scoring.pot).
    Party.objects.filter(pk=party.pk).update(pot=club.prize_pot.to_dict())
    party.pot = club.prize_pot.to_dict()
    night = ClubNight.objects.create(season=season, party=party, date=date, host=host)
    NightPlayer.objects.bulk_create(
        [NightPlayer(night=night, name=m.name, kind=NightPlayer.Kind.MEMBER, member=m)
         for m in coming]
        + [NightPlayer(night=night, name=name, kind=NightPlayer.Kind.SUB, member=for_member)
           for name, for_member in subs]
    )
    return night


def night_name(club_name, date):
    """The night's party name: the club's and the date (a party's name holds 80)."""
    return f"{club_name[:69]} {date.isoformat()}"


def _check_night(members, left, host, coming, subs):
    """Refuse a night whose people are not the club's members now (`left`: the names of those
    who left), or not each once."""
    if host is None or host.id not in members:
        raise ClubError(_("Pick the night's host among the members."))
    if any(m.id not in members for m in coming):
        raise ClubError(_("Only the club's members can be ticked as coming."))
    if len({m.id for m in coming}) != len(coming):
        raise ClubError(_("A member is ticked twice."))
    member_names = {m.name.casefold() for m in members.values()}
    left = {name.casefold(): name for name in left}
    seen, covered = set(), set()
    for name, for_member in subs:
        key = name.casefold()
        if key in member_names:
            raise ClubError(
                _("“%(name)s” is a member: tick them as coming instead of as a sub.")
                % {"name": name}
            )
        if key in left:  # their nights would count for them, by name: a member again first
            raise ClubError(
                _("%(name)s left the club: bring them back on the club page, then tick them "
                  "as coming.") % {"name": left[key]}
            )
        if key in seen:
            raise ClubError(_("“%(name)s” is among the subs twice.") % {"name": name})
        seen.add(key)
        if for_member is None:
            continue
        if for_member.id not in members:
            raise ClubError(_("A sub plays for one of the club's members."))
        if for_member in coming:
            raise ClubError(
                _("%(sub)s cannot play for %(member)s, who is coming.")
                % {"sub": name, "member": for_member.name}
            )
        if for_member.id in covered:
            raise ClubError(
                _("%(member)s has two subs; a member has one at most.")
                % {"member": for_member.name}
            )
        covered.add(for_member.id)
