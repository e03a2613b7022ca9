"""What a club stores: its members, its rules and pot for every night, its seasons and host
rotation, and which party was which night and who played in it as whom.

No result is stored here. A night's wins, Buncos, points, prizes and money are its party's own
rows (score sheets, roll-offs, the pot); the standings are worked out from them each time they
are shown (clubs.selectors, clubs.standings), so a correction to a night changes the season and
nothing can drift."""

from functools import cached_property

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from parties.models import Party


class Club(models.Model):
    class Ranking(models.TextChoices):
        WINS = "wins", _("Most wins")
        POINTS = "points", _("Most points")
        BUNCOS = "buncos", _("Most Buncos")

    name = models.CharField(max_length=80)
    # Typed by members where guests type a party code (/join/); it grants reading the club.
    # Longer than any party code (clubs.codes), so the two can never be taken for each other.
    code = models.CharField(max_length=16, unique=True)
    preset = models.CharField(max_length=20)
    options = models.JSONField(help_text="scoring.Rules.to_options() of every night's rules")
    pot = models.JSONField(default=dict, blank=True, help_text="scoring.Pot.to_dict() a night")
    # A sub's night counts for the member they played for (True), or as a guest's (False).
    subs_count_for_member = models.BooleanField(default=False)
    ranking = models.CharField(max_length=10, choices=Ranking.choices, default=Ranking.WINS)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return self.name

    @cached_property
    def rules(self):
        from scoring import Rules

        return Rules.from_options(self.options)

    @property
    def prize_pot(self):
        from scoring.pot import Pot

        return Pot.from_dict(self.pot)


class ClubLink(models.Model):
    """The organizer's capability link: only a hash of its token is stored (clubs.access)."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="links")
    salt = models.CharField(max_length=64)
    token_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"Organizer link for {self.club}"


class Member(models.Model):
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="members")
    name = models.CharField(max_length=40)
    position = models.PositiveSmallIntegerField(help_text="order in the club's list")
    # One who left: off the list and the night's form; their nights stay in the standings.
    left = models.BooleanField(default=False)

    class Meta:
        ordering = ["club", "position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["club", "name"], name="member_name_unique_in_club"),
        ]

    def __str__(self):
        return self.name


class Season(models.Model):
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="seasons")
    number = models.PositiveSmallIntegerField()
    starts_on = models.DateField(help_text="the first of the month the host rotation starts")
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["club", "number"]
        constraints = [
            models.UniqueConstraint(fields=["club", "number"], name="season_number_unique"),
            # One season plays at a time: a new one starts once the last is closed.
            models.UniqueConstraint(
                fields=["club"], condition=Q(closed_at__isnull=True), name="one_open_season"
            ),
        ]

    def __str__(self):
        return f"{self.club}, season {self.number}"


class HostMonth(models.Model):
    """The host rotation: who hosts in a month of the season (the organizer changes it)."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="host_months")
    month = models.DateField(help_text="the first day of the month")
    member = models.ForeignKey(
        Member, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["season", "month"]
        constraints = [
            models.UniqueConstraint(fields=["season", "month"], name="one_host_a_month"),
        ]

    def __str__(self):
        return f"{self.month:%Y-%m}: {self.member or '-'}"


class ClubNight(models.Model):
    """A night of the club: a party of the parties app, played on a date at a member's house.

    Deleting the party deletes the night (CASCADE) and with it who played as whom: the season's
    standings, worked out from the nights there are, simply no longer count it."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="nights")
    party = models.OneToOneField(Party, on_delete=models.CASCADE, related_name="club_night")
    date = models.DateField()
    host = models.ForeignKey(Member, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["season", "date", "id"]

    def __str__(self):
        return f"{self.season}: {self.date}"


class NightPlayer(models.Model):
    """Who a night's player is to the club, by the name the party seats them under (a party's
    names are unique, and a name survives the party's file where a player's id does not).

    A player of the party with no row here joined the night another way (a late arrival, a
    guest who added themselves): a guest, unless their name is a member's."""

    class Kind(models.TextChoices):
        MEMBER = "member", _("Member")
        SUB = "sub", _("Sub")

    night = models.ForeignKey(ClubNight, on_delete=models.CASCADE, related_name="players")
    name = models.CharField(max_length=40)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    # The member themselves, or the member a sub played for; none for a sub playing as a guest.
    member = models.ForeignKey(
        Member, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        ordering = ["night", "id"]
        constraints = [
            models.UniqueConstraint(fields=["night", "name"], name="one_row_a_name_a_night"),
            models.CheckConstraint(
                condition=Q(kind="member", member__isnull=False) | Q(kind="sub"),
                name="night_player_kind_matches_member",
            ),
        ]

    def __str__(self):
        return f"{self.name} ({self.kind})"
