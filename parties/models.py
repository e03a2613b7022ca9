"""What a party stores: the night's setup, its seating per round, rolls as appended facts, and
the score-sheet lines derived from them. Nothing here decides a rule; scoring/ does."""

from functools import cached_property

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


class Party(models.Model):
    class Status(models.TextChoices):
        SETUP = "setup", _("Setting up")
        PLAYING = "playing", _("Playing")
        BREAK = "break", _("On a break")
        FINISHED = "finished", _("Finished")

    name = models.CharField(max_length=80)
    # Short, typed by players to find their own sheet; it grants reading only.
    code = models.CharField(max_length=16, unique=True)
    preset = models.CharField(max_length=20)
    options = models.JSONField(help_text="scoring.Rules.to_options() of this party's rules")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SETUP)
    # Raised on every party-wide change phones must see; pushes carry it, so a gap means
    # "refetch". A table's own updates carry that table's version instead.
    seq = models.PositiveBigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    paused_at = models.DateTimeField(null=True, blank=True, help_text="taps wait while paused")
    pot = models.JSONField(default=dict, blank=True, help_text="scoring.Pot.to_dict(): the buy-in")
    # The language of the party's paper (rule sheet, score and tally sheets, cards, the results
    # print), chosen by the host; every phone still reads its own language on screen.
    language = models.CharField(max_length=8, default="en")
    # Guests may add themselves at /join/ with the code and their name; they wait for the host
    # to seat them (WaitingGuest).
    self_join = models.BooleanField(default=False)

    class Meta:
        verbose_name_plural = _("parties")

    def __str__(self):
        return f"{self.name} ({self.code})"

    @cached_property
    def rules(self):
        from scoring import Rules

        return Rules.from_options(self.options)  # a party's rules never change once created

    @property
    def prize_pot(self):
        from scoring.pot import Pot

        return Pot.from_dict(self.pot)

    @property
    def pot_currency(self):
        """The code of the currency the pot is in: the host's choice, or (a pot saved before pots
        had one) the one of the party's language."""
        from parties.money import default_currency

        return self.prize_pot.currency or default_currency(self.language)


class Player(models.Model):
    party = models.ForeignKey(Party, on_delete=models.CASCADE, related_name="players")
    name = models.CharField(max_length=40)
    # A ghost fills an empty seat; its partner rolls for it and it wins nothing.
    is_ghost = models.BooleanField(default=False)
    position = models.PositiveSmallIntegerField(help_text="order in the host's list")

    class Meta:
        ordering = ["party", "is_ghost", "position"]
        constraints = [
            models.UniqueConstraint(fields=["party", "name"], name="player_name_unique_in_party"),
        ]

    def __str__(self):
        return f"{self.name} (ghost)" if self.is_ghost else self.name


class BuncoSet(models.Model):
    party = models.ForeignKey(Party, on_delete=models.CASCADE, related_name="bunco_sets")
    number = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["party", "number"]
        constraints = [
            models.UniqueConstraint(fields=["party", "number"], name="set_number_unique"),
            models.CheckConstraint(
                condition=Q(number__gte=1, number__lte=4), name="set_number_1_to_4"
            ),
        ]

    def __str__(self):
        return f"Set {self.number}"


class Table(models.Model):
    party = models.ForeignKey(Party, on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveSmallIntegerField(help_text="1 is the head table")

    class Meta:
        ordering = ["party", "number"]
        constraints = [
            models.UniqueConstraint(fields=["party", "number"], name="table_number_unique"),
            models.CheckConstraint(condition=Q(number__gte=1), name="table_number_positive"),
        ]

    def __str__(self):
        return f"Table {self.number}"


class Round(models.Model):
    class Status(models.TextChoices):
        WAITING = "waiting", _("Waiting to start")
        PLAYING = "playing", _("Playing")
        CLOSED = "closed", pgettext_lazy("a round", "Closed")

    party = models.ForeignKey(Party, on_delete=models.CASCADE, related_name="rounds")
    bunco_set = models.ForeignKey(BuncoSet, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField()
    target = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING)
    started_at = models.DateTimeField(null=True, blank=True)
    bell_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    ends_at = models.DateTimeField(null=True, blank=True, help_text="the clock, in timed rounds")
    # Counts the round's facts (rolls, voids, bells): the key of the in-process state cache,
    # bumped in the same transaction as the fact it counts.
    version = models.PositiveIntegerField(default=0)
    # Set when the round closes, from its facts: shown on phones and used for the prizes.
    last_bunco = models.ForeignKey(
        "Player", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    fuzzy_die = models.ForeignKey(
        "Player", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["party", "bunco_set__number", "number"]
        constraints = [
            models.UniqueConstraint(fields=["bunco_set", "number"], name="round_unique_in_set"),
            models.CheckConstraint(
                condition=Q(number__gte=1, number__lte=6), name="round_number_1_to_6"
            ),
            models.CheckConstraint(
                condition=Q(target__gte=1, target__lte=6), name="round_target_1_to_6"
            ),
        ]

    def __str__(self):
        return f"{self.bunco_set}, round {self.number}"


class Seat(models.Model):
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="seats")
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField(help_text="1-4 clockwise; 1 and 3 are partners")
    # The table's scorekeeper this round, who rolls first; seat 1 unless another player at the
    # table took it over before the round started (docs/rules.md section 5).
    keeps_score = models.BooleanField(default=False)

    class Meta:
        ordering = ["round", "table__number", "position"]
        constraints = [
            # One seat per player per round, at most one player per chair (so at most 4 a table).
            models.UniqueConstraint(fields=["round", "player"], name="one_seat_per_player"),
            models.UniqueConstraint(
                fields=["round", "table", "position"], name="one_player_per_chair"
            ),
            models.CheckConstraint(
                condition=Q(position__gte=1, position__lte=4), name="seat_position_1_to_4"
            ),
        ]

    def __str__(self):
        return f"{self.round}: {self.table}, seat {self.position}: {self.player}"


class Correction(models.Model):
    """Who changed what after the fact: a voided roll points here, and so does its replacement."""

    class Kind(models.TextChoices):
        UNDO = "undo", pgettext_lazy("a correction", "Undo")
        VOID = "void", pgettext_lazy("a correction", "Void")
        CORRECT = "correct", _("Correction")
        LATE_TAP = "late_tap", _("Late roll applied")
        RESEAT = "reseat", pgettext_lazy("a correction", "Reseat")

    party = models.ForeignKey(Party, on_delete=models.CASCADE, related_name="corrections")
    round = models.ForeignKey(
        "Round", null=True, blank=True, on_delete=models.CASCADE, related_name="corrections"
    )
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.VOID)
    made_by = models.CharField(max_length=40, help_text="the role that made it, e.g. host")
    made_at = models.DateTimeField(auto_now_add=True)
    note = models.CharField(max_length=200, blank=True)
    # What it changed, a line each, for the host's page ("Set 1, round 3, table 2: Ann & Bo now
    # lose"): kept as message ids and their values, worded when read in the reader's language
    # (parties.translation: later, correction_effects).
    effect_messages = models.JSONField(default=list, blank=True)
    # What corrections made before effect_messages changed, in English lines, shown as stored.
    effects = models.TextField(blank=True)

    def __str__(self):
        return f"Correction by {self.made_by} at {self.made_at:%H:%M}"


class Roll(models.Model):
    """One throw of the dice, as entered: an appended fact that is voided, never edited."""

    class Phase(models.TextChoices):
        PLAY = "play", _("Round play")
        ROLLOFF = "rolloff", _("Roll-off")

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="rolls")
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="rolls")
    roller = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="rolls")
    phase = models.CharField(max_length=10, choices=Phase.choices, default=Phase.PLAY)
    # A roll is what was entered: the dice faces, or a quick button's outcome (scoring.quick's
    # key, with the mini Bunco's number in `face` where the scorekeeper gave it). Never both.
    die1 = models.PositiveSmallIntegerField(null=True, blank=True)
    die2 = models.PositiveSmallIntegerField(null=True, blank=True)
    die3 = models.PositiveSmallIntegerField(null=True, blank=True)
    die4 = models.PositiveSmallIntegerField(null=True, blank=True, help_text="four-dice rules")
    outcome = models.CharField(max_length=10, blank=True, help_text="a quick button's outcome")
    face = models.PositiveSmallIntegerField(null=True, blank=True, help_text="a mini's number")
    called = models.BooleanField(default=True, help_text='the roller called "Bunco"')
    # Entered on a phone that had not yet heard the bell: it counts at its table before the
    # bell, whenever it arrives while the round is open.
    before_bell = models.BooleanField(default=False)
    # Made by the phone, so a retried tap is recognised as the same fact.
    tap_id = models.UUIDField(unique=True)
    entered_by = models.CharField(max_length=40, help_text="the role that entered it")
    created_at = models.DateTimeField(auto_now_add=True)
    # RESTRICT, not PROTECT: a correction cannot go while the rolls it voided stay, but the
    # party's deletion takes both (PROTECT would refuse to delete any party with a correction).
    voided_by = models.ForeignKey(
        Correction, null=True, blank=True, on_delete=models.RESTRICT, related_name="voided_rolls"
    )
    # A correction's roll is played in the place of the roll it corrected: that roll's id (or
    # its own place), so the rolls after it keep theirs (parties.state.replay_order).
    place = models.PositiveBigIntegerField(
        null=True, blank=True, help_text="replayed in the place of this roll id"
    )

    class Meta:
        ordering = ["round", "table", "id"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(outcome="", die1__gte=1, die1__lte=6)
                    & Q(die2__gte=1, die2__lte=6)
                    & Q(die3__gte=1, die3__lte=6)
                    & (Q(die4__isnull=True) | Q(die4__gte=1, die4__lte=6))
                    & Q(face__isnull=True)
                )
                | (
                    ~Q(outcome="")
                    & Q(die1__isnull=True, die2__isnull=True, die3__isnull=True)
                    & Q(die4__isnull=True)
                    & (Q(face__isnull=True) | Q(face__gte=1, face__lte=6))
                ),
                name="dice_or_outcome",
            ),
        ]

    def __str__(self):
        return f"{self.roller} rolled {self.dice or self.outcome} ({self.round}, {self.table})"

    @property
    def dice(self):
        faces = (self.die1, self.die2, self.die3, self.die4)
        return tuple(face for face in faces if face is not None)


class RoundBell(models.Model):
    """The bell rung from outside the tables (the host, or the clock) after a given roll."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="bells")
    after_roll_id = models.PositiveBigIntegerField(default=0, help_text="the last roll before it")
    rung_by = models.CharField(max_length=40)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            # The round's bell rings once; a second press changes nothing.
            models.UniqueConstraint(fields=["round"], name="one_outside_bell_per_round"),
        ]

    def __str__(self):
        return f"Bell for {self.round} by {self.rung_by}"


class LateTap(models.Model):
    """A roll a phone entered before the bell that reached the server after its round closed.
    It is kept for the host, who applies it (a correction of that round) or dismisses it."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting for the host")
        APPLIED = "applied", pgettext_lazy("a late roll", "Applied")
        DISMISSED = "dismissed", pgettext_lazy("a late roll", "Dismissed")

    party = models.ForeignKey(Party, on_delete=models.CASCADE, related_name="late_taps")
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="late_taps")
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="late_taps")
    tap_id = models.UUIDField(unique=True)  # a resent late tap is held once
    # What the phone sent, as roll_record takes it: dice (a list) or outcome and face,
    # called (true, false or null), seen, and whether the phone had heard the bell.
    fields = models.JSONField()
    # What it was, for the host ("2 points for Ann; made before the bell"): kept as message ids
    # and their values, worded when read (parties.translation.late_tap_description).
    description_messages = models.JSONField(default=list, blank=True)
    # What late taps held before description_messages said it, in English, shown as stored.
    description = models.CharField(max_length=200, blank=True)
    entered_by = models.CharField(max_length=40)
    created_at = models.DateTimeField(auto_now_add=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    resolved_by = models.ForeignKey(
        Correction, null=True, blank=True, on_delete=models.RESTRICT, related_name="late_taps"
    )

    class Meta:
        ordering = ["party", "created_at", "id"]

    def __str__(self):
        from parties.translation import late_tap_description

        said = late_tap_description(self)
        return f"Late tap at {self.table}: {said} ({self.get_status_display()})"


class ScoreSheetLine(models.Model):
    """One line of a player's score sheet: their round, derived from the rolls when it closes."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="sheet_lines")
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="sheet_lines")
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="sheet_lines")
    won = models.BooleanField()
    points = models.PositiveIntegerField(default=0, help_text="the points of the player's rolls")
    buncos = models.PositiveSmallIntegerField(default=0)
    mini_buncos = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["player", "round__bunco_set__number", "round__number"]
        constraints = [
            models.UniqueConstraint(fields=["player", "round"], name="one_sheet_line_per_round"),
        ]

    def __str__(self):
        return f"{self.player}: {self.round}, {'W' if self.won else 'L'}"


class PrizeRollOff(models.Model):
    """One tied player's three-dice total in a prize roll-off (docs/rules.md section 9)."""

    party = models.ForeignKey(Party, on_delete=models.CASCADE, related_name="prize_rolloffs")
    category = models.CharField(max_length=30)
    circuit = models.PositiveSmallIntegerField(help_text="1, then 2 if still tied, ...")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    total = models.PositiveSmallIntegerField()
    rolled_by_app = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["party", "category", "circuit", "player"], name="one_total_per_circuit"
            ),
            models.CheckConstraint(
                condition=Q(total__gte=3, total__lte=18), name="three_dice_total_3_to_18"
            ),
        ]

    def __str__(self):
        return f"{self.player}: {self.total} ({self.category}, circuit {self.circuit})"


class WaitingGuest(models.Model):
    """A guest who added themselves at /join/ (Party.self_join) and waits for the host to seat
    them, merge them with a name already on the list, or turn them away. Their phone is known by
    a secret kept in its own session; only the secret's hash is stored here, as a link's is."""

    class Status(models.TextChoices):
        WAITING = "waiting", _("Waiting to be seated")
        SEATED = "seated", pgettext_lazy("a guest", "Seated")
        MERGED = "merged", _("Already on the list")
        TURNED_AWAY = "turned_away", _("Turned away")

    party = models.ForeignKey(Party, on_delete=models.CASCADE, related_name="waiting_guests")
    name = models.CharField(max_length=40, help_text="as parties.party_limits tidied it")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.WAITING)
    # The player the guest became: a new one (seated) or one already on the list (merged).
    player = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    secret_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["party", "created_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=["waiting", "turned_away"], player__isnull=True)
                | Q(status__in=["seated", "merged"], player__isnull=False),
                name="guest_player_matches_status",
            ),
        ]

    def __str__(self):
        return f"{self.name} ({self.get_status_display()})"


class AccessLink(models.Model):
    """A capability link. Only a hash of its token is stored (see parties/access.py)."""

    class Role(models.TextChoices):
        HOST = "host", _("Host")
        TABLE = "table", _("Scorekeeper")
        PLAYER = "player", _("Player")

    party = models.ForeignKey(Party, on_delete=models.CASCADE, related_name="links")
    role = models.CharField(max_length=10, choices=Role.choices)
    table = models.ForeignKey(Table, null=True, blank=True, on_delete=models.CASCADE)
    player = models.ForeignKey(Player, null=True, blank=True, on_delete=models.CASCADE)
    salt = models.CharField(max_length=64)
    token_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["party", "role", "table__number", "player__position", "id"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(role="host", table__isnull=True, player__isnull=True)
                    | Q(role="table", table__isnull=False, player__isnull=True)
                    | Q(role="player", table__isnull=True, player__isnull=False)
                ),
                name="link_target_matches_role",
            ),
        ]

    def __str__(self):
        return f"{self.get_role_display()} link for {self.table or self.player or self.party}"
