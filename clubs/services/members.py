"""The club's members after it is made: a newcomer joins, a member leaves, one who left comes
back. Nobody is deleted: the nights a member played stay theirs, in every season's standings."""

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs.models import Club, HostMonth, Member
from clubs.services.club import first_of_month, lock_club
from clubs.services.errors import ClubError
from parties.party_limits import MAX_PLAYERS, clean_player_name


@transaction.atomic
def member_add(*, club: Club, name: str) -> Member:
    """A new member at the end of the list: in the standings from their first night, offered on
    every night's form from now on."""
    lock_club(club)
    try:
        name = clean_player_name(name)
    except ValidationError as error:
        raise ClubError(" ".join(error.messages)) from None
    everyone = list(club.members.all())
    same = next((m for m in everyone if m.name.casefold() == name.casefold()), None)
    if same is not None and same.left:
        raise ClubError(_("%(name)s left the club: bring them back from the list of those who "
                          "left.") % {"name": same.name})
    if same is not None:
        raise ClubError(_("“%(name)s” is already a member.") % {"name": same.name})
    if len(everyone) >= MAX_PLAYERS:  # those who left too: the club's file holds them all
        raise ClubError(_("A club has at most %(most)s members, those who left included.")
                        % {"most": MAX_PLAYERS})
    position = max((m.position for m in everyone), default=0) + 1
    return Member.objects.create(club=club, name=name, position=position)


@transaction.atomic
def member_leave(*, club: Club, member_id: int) -> list:
    """The member leaves: off the list and the night's form; the nights they played stay in
    the standings. The months from this one on that they were to host have nobody yet: those
    months, to give to someone else."""
    lock_club(club)
    member = _member(club, member_id, left=False)
    if club.members.filter(left=False).count() <= 1:
        raise ClubError(_("A club keeps at least one member."))
    Member.objects.filter(pk=member.pk).update(left=True)
    months = HostMonth.objects.filter(
        season__club=club, season__closed_at__isnull=True, member=member,
        month__gte=first_of_month(timezone.localdate()),
    )
    freed = list(months.order_by("month").values_list("month", flat=True))
    months.update(member=None)
    return freed


@transaction.atomic
def member_back(*, club: Club, member_id: int) -> None:
    """One who left is a member again, with their earlier nights."""
    lock_club(club)
    member = _member(club, member_id, left=True)
    Member.objects.filter(pk=member.pk).update(left=False)


def _member(club, member_id, *, left):
    member = club.members.filter(pk=member_id, left=left).first()
    if member is None:
        if left:
            raise ClubError(_("That person is not among those who left the club."))
        raise ClubError(_("That person is not a member of this club now."))
    return member
