"""Reads: what each screen shows, gathered in a few queries."""

from dataclasses import dataclass
from typing import NamedTuple

import segno
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from parties import access, state
from parties.models import (
    AccessLink,
    Party,
    PrizeRollOff,
    Round,
    ScoreSheetLine,
    Seat,
    WaitingGuest,
)
from parties.translation import player_name
from scoring import partner_seat, settle_prize, side_seats
from scoring.seating import table_plays_alone


def current_round(party: Party) -> Round:
    """The round being played, or the next to start (the last one once the party is over)."""
    # Through the party's manager, so each round knows its party (and rules) without a query.
    rounds = party.rounds.select_related("bunco_set")
    return rounds.exclude(status=Round.Status.CLOSED).first() or rounds.last()


@dataclass(frozen=True)
class SeatView:
    position: int
    player_id: int
    name: str  # in the reader's language, a ghost's (translation.player_name)
    is_ghost: bool
    partner: str  # "" at a table of players alone, which has no partners
    keeps_score: bool = False  # chosen as the table's scorekeeper this round
    team: str = ""  # "a" (seats 1+3) or "b" (2+4) at a team table, "" at a table alone


@dataclass(frozen=True)
class TableView:
    number: int
    seats: list
    team_play: bool = True

    @property
    def is_head(self):
        return self.number == 1

    @property
    def scorekeeper(self):
        """Who keeps score and rolls first, as the rules say: the seat chosen to keep score
        (seat 1 unless someone took over), or its partner where a ghost sits there."""
        from scoring.table import scorekeeper_seat

        ids = [str(seat.player_id) for seat in self.seats]
        ghosts = frozenset(str(seat.player_id) for seat in self.seats if seat.is_ghost)
        chosen = next((i for i, s in enumerate(self.seats, start=1) if s.keeps_score), 1)
        return self.seats[scorekeeper_seat(ids, ghosts, chosen) - 1]

    @property
    def can_keep_score(self):
        """The players who may keep score here: everyone seated but the ghosts."""
        return [seat for seat in self.seats if not seat.is_ghost]


def seating(round_: Round, numbers=None) -> list[TableView]:
    """The round's tables with their seats, or only the tables `numbers` (a phone's page shows
    one table: at 100 tables, reading all 400 seats for it was most of its refetch)."""
    seats = Seat.objects.filter(round=round_)
    if numbers is not None:
        seats = seats.filter(table__number__in=numbers)
    seats = seats.select_related("table", "player").order_by("table__number", "position")
    # Whether a table plays alone can depend on how many tables the round has (a boxed plan's
    # one-table game), which a page reading one table does not see in its seats: a party's
    # tables are fixed when it is created, and every round seats all of them.
    tables = round_.party.tables.count() if numbers is not None else None
    return table_views(seats, round_.party.rules, tables)


def table_views(seats, rules, tables_in_round=None) -> list[TableView]:
    """TableViews from seats in table and position order (each with its `table` and `player`):
    the seats a query read, or those a round's close has just seated (parties.live.close_push).
    `tables_in_round` when the seats are not the whole round's."""
    tables = {}
    for seat in seats:
        tables.setdefault(seat.table.number, []).append(seat)
    # Team tables and tables of players alone can mix in one party (the boxed set's plans).
    in_round = tables_in_round or len(tables)
    return [
        _table_view(number, table_seats, table_plays_alone(rules, in_round, len(table_seats)))
        for number, table_seats in tables.items()
    ]


def _table_view(number, seats, alone) -> TableView:
    """Who partners whom and which team each seat is on, as scoring's `side_seats` says: at a
    table alone nobody has a partner and nobody is on a team."""
    by_position = {s.position: s for s in seats}
    team_of = {} if alone else {
        position: "ab"[side]
        for side, positions in enumerate(side_seats(len(seats), alone))
        for position in positions
    }

    def partner_name(position):
        partner = by_position.get(partner_seat(position, alone))
        return player_name(partner.player.name, partner.player.is_ghost) if partner else ""

    views = [
        SeatView(
            s.position,
            s.player_id,
            player_name(s.player.name, s.player.is_ghost),
            s.player.is_ghost,
            partner_name(s.position),
            s.keeps_score,
            team_of.get(s.position, ""),
        )
        for s in seats
    ]
    return TableView(number, views, team_play=not alone)


class Place(NamedTuple):
    """Where a player sits: the table's number and their SeatView (named, not indexed: a
    template's `place.seat` is a plain attribute, `place.1` a failed one first)."""

    table: int
    seat: SeatView


def seat_of(round_: Round, player_id: int):
    """Where a player sits this round, as a Place, or None."""
    number = (
        Seat.objects.filter(round=round_, player_id=player_id)
        .values_list("table__number", flat=True)
        .first()
    )
    if number is None:
        return None
    for table in seating(round_, [number]):
        for seat in table.seats:
            if seat.player_id == player_id:
                return Place(table.number, seat)
    return None


@dataclass(frozen=True)
class LinkView:
    id: int
    role: str
    label: str
    url: str
    table_number: int | None = None
    player_id: int | None = None

    @property
    def qr_svg(self):
        # segno escapes nothing user-typed here: the URL is ours, built from a token and ids.
        return segno.make(self.url, error="m").svg_inline(border=2, omitsize=True)


def party_links(party: Party, base_url: str) -> list[LinkView]:
    """Every live link, with its full URL from `base_url`, in the order the host hands them out."""
    links = (
        access.live_links(party.id)
        .select_related("table", "player")
        .order_by("role", "table__number", "player__position")
    )
    order = {AccessLink.Role.HOST: 0, AccessLink.Role.TABLE: 1, AccessLink.Role.PLAYER: 2}
    views = []
    for link in sorted(links, key=lambda link: order[link.role]):
        if link.role == AccessLink.Role.HOST:
            label = _("Host")
        elif link.role == AccessLink.Role.TABLE:
            if link.table.number == 1:
                label = _("Table %(number)s (head table)") % {"number": link.table.number}
            else:
                label = _("Table %(number)s") % {"number": link.table.number}
        else:
            label = link.player.name
        url = base_url.rstrip("/") + reverse("parties:redeem", args=[access.token_for(link)])
        table_number = link.table.number if link.table else None
        views.append(LinkView(link.id, link.role, label, url, table_number, link.player_id))
    return views


def waiting_guest(secret):
    """The guest a phone asked to join as, by the secret its session holds (with the party and
    the player it became), or None."""
    if not secret or len(secret) > 100:
        return None
    return (
        WaitingGuest.objects.filter(secret_hash=access.hash_token(secret))
        .select_related("party", "player")
        .first()
    )


def guests_waiting(party) -> list:
    """The guests waiting for the host to seat them, in the order they asked."""
    waiting = WaitingGuest.objects.filter(party=party, status=WaitingGuest.Status.WAITING)
    return list(waiting.order_by("created_at", "id"))


@dataclass(frozen=True)
class SheetLine:
    set_number: int
    round_number: int
    table_number: int
    won: bool
    points: int
    buncos: int
    mini_buncos: int


@dataclass(frozen=True)
class ScoreSheetView:
    lines: list

    @property
    def wins(self):
        return sum(line.won for line in self.lines)

    @property
    def losses(self):
        return len(self.lines) - self.wins

    @property
    def buncos(self):
        return sum(line.buncos for line in self.lines)

    @property
    def mini_buncos(self):
        return sum(line.mini_buncos for line in self.lines)

    @property
    def points(self):
        return sum(line.points for line in self.lines)


def score_sheet(player) -> ScoreSheetView:
    lines = ScoreSheetLine.objects.filter(player=player).select_related("round__bunco_set", "table")
    return ScoreSheetView(
        [
            SheetLine(
                line.round.bunco_set.number,
                line.round.number,
                line.table.number,
                line.won,
                line.points,
                line.buncos,
                line.mini_buncos,
            )
            for line in lines
        ]
    )


def live_round(party, round_):
    """The live state of a round in play, or None before it starts and after it closes."""
    from parties import state

    if round_ is None or round_.status != Round.Status.PLAYING:
        return None
    if party.status == party.Status.FINISHED:
        return None  # ended early: the round in play no longer counts
    return state.load(round_, party.rules)


def fuzzy_die_holder(party):
    """Who holds the traveling die now: in a round in play, who will hold it when the round
    closes as it stands (the close's own `fuzzy_holder`, the one place the die is carried
    over: this round's taker, else who held it as the round began); else the holder the last
    closed round stored."""
    from parties.fuzzy_die import fuzzy_holder
    from parties.models import Player

    round_ = current_round(party)
    state_ = live_round(party, round_)
    if state_ is not None:
        holder_id = fuzzy_holder(party, round_, state_)
    else:
        closed = Round.objects.filter(party=party, status=Round.Status.CLOSED)
        holder_id = (
            closed.filter(fuzzy_die__isnull=False)
            .order_by("-closed_at")
            .values_list("fuzzy_die_id", flat=True)
            .first()
        )
    return Player.objects.filter(pk=holder_id).first() if holder_id else None


@dataclass(frozen=True)
class FuzzyDieView:
    """The fuzzy die's line on every page: "Fuzzy die: Ann (head table)"."""

    name: str  # the holder, or "nobody yet" (in the reader's language)
    note: str = ""  # "head table" while the starting holder has it


def fuzzy_die(party) -> FuzzyDieView | None:
    """Who holds the fuzzy die, as every page shows it; None when the rules have no fuzzy die."""
    from parties import fuzzy_die as starts

    rules = party.rules
    if rules.traveling == "off":
        return None
    holder = fuzzy_die_holder(party)
    if holder is None:
        if rules.fuzzy_die_starts == "head_table" and party.status == Party.Status.SETUP:
            return FuzzyDieView(
                _("nobody yet"), _("the head table's scorekeeper takes it at the start")
            )
        return FuzzyDieView(_("nobody yet"))
    at_start = rules.fuzzy_die_starts == "head_table" and holder.id == starts.first_holder_id(
        party
    )
    return FuzzyDieView(
        player_name(holder.name, holder.is_ghost), _("head table") if at_start else ""
    )


@dataclass(frozen=True)
class HostFacts:
    """The host's header: who is playing, what is happening, and under which rules."""

    players: int
    ghosts: int
    stage: str
    rules_name: str


def host_facts(party, round_, tables) -> HostFacts:
    """The facts from the round shown (`tables` is its seating): the players and ghosts seated
    in it, not every name ever added (one who went home stays a player row; a ghost a late
    arrival replaced stays a ghost row)."""
    from scoring.rules import rules_name

    seats = [seat for table in tables for seat in table.seats]
    ghosts = sum(seat.is_ghost for seat in seats)
    stage = party_stage(party, round_)
    return HostFacts(
        len(seats) - ghosts, ghosts, stage, rules_name(party.preset, party.rules, gettext=_))


def party_stage(party, round_) -> str:
    """What is happening now, in words for the host's header (in the host's language)."""
    where = {"set": round_.bunco_set.number, "round": round_.number}
    if party.status == Party.Status.FINISHED:
        return str(Party.Status.FINISHED.label)
    if party.status == Party.Status.BREAK:
        return _("Break after set %(set)s") % {"set": round_.bunco_set.number - 1}
    if party.status == Party.Status.SETUP:
        return str(Party.Status.SETUP.label)
    if round_.status == Round.Status.PLAYING:
        if party.paused_at:
            return _("Set %(set)s, round %(round)s paused") % where
        return _("Set %(set)s, round %(round)s in play") % where
    return _("Set %(set)s, round %(round)s waiting to start") % where


@dataclass(frozen=True)
class ResultRow:
    player_id: int
    name: str
    sheet: object  # scoring.ScoreSheet


def buy_ins(party) -> int:
    """Everyone who played bought in: every real player, those who went home too."""
    return party.players.filter(is_ghost=False).count()


def party_results(party):
    """Every real player's totals for the night, and the prizes the host chose."""
    from scoring import ScoreSheet, award_prizes
    from scoring.party import standing

    players = list(party.players.filter(is_ghost=False))
    marks = {p.id: [] for p in players}
    totals = {p.id: [0, 0, 0] for p in players}
    lines = ScoreSheetLine.objects.filter(player__party=party).order_by(
        "round__bunco_set__number", "round__number"
    )
    for line in lines:
        marks[line.player_id].append("W" if line.won else "L")
        total = totals[line.player_id]
        total[0] += line.buncos
        total[1] += line.mini_buncos
        total[2] += line.points
    sheets = {str(p.id): ScoreSheet(tuple(marks[p.id]), *totals[p.id]) for p in players}
    closed = Round.objects.filter(party=party, status=Round.Status.CLOSED).order_by("-closed_at")
    last_bunco = closed.filter(last_bunco__isnull=False).values_list("last_bunco_id", flat=True)
    holder = fuzzy_die_holder(party)
    prizes = award_prizes(
        sheets,
        party.rules,
        last_bunco=str(last_bunco.first()) if last_bunco.first() else None,
        fuzzy_die=str(holder.id) if holder else None,
    )
    names = {str(p.id): p.name for p in players}
    rules = party.rules
    rows = sorted(
        (ResultRow(p.id, p.name, sheets[str(p.id)]) for p in players),
        key=lambda row: (tuple(-n for n in standing(row.sheet, rules)), row.name),
    )
    rolloffs = list(PrizeRollOff.objects.filter(party=party).order_by("circuit", "id"))
    split_ties = party.prize_pot.tied == "split"
    prize_rows = []
    for category, winners in prizes.items():
        winners, circuit = settled_prize(category, winners, rolloffs)
        if split_ties:
            circuit = None  # the tied players share the prize: nothing to roll
        prize_rows.append(
            PrizeRow(
                key=category,
                label=prize_label(category),
                winners=[(int(w), names[w]) for w in winners],
                circuit=circuit,
                rolloffs=_rolloff_circuits(category, rolloffs, names),
            )
        )
    return rows, prize_rows


# Each prize's name, as the results, the TV, the pot and the standings file show it.
PRIZE_LABELS = {
    "most_wins": gettext_lazy("Most wins"),
    "most_buncos": gettext_lazy("Most Buncos"),
    "most_losses": gettext_lazy("Most losses"),
    "most_mini_buncos": gettext_lazy("Most mini Buncos"),
    "even_wins_losses": gettext_lazy("As many wins as losses"),
    "last_bunco": gettext_lazy("Last Bunco"),
    "traveling": gettext_lazy("Traveling"),
    "highest_points": gettext_lazy("Highest points"),
    "lowest_points": gettext_lazy("Lowest points"),
    "overall": gettext_lazy("Overall"),
}


def prize_label(category) -> str:
    """A prize's name in the reader's language ("Most wins"); a category without one (none of
    scoring's) as its key in words."""
    label = PRIZE_LABELS.get(category)
    return str(label) if label is not None else category.replace("_", " ").capitalize()


def _rolloff_circuits(category, rolloffs, names):
    """The roll-off totals rolled for `category`, circuit by circuit: ((1, ((name, 14), ...)),
    ...), what the results page shows of how a tie was settled."""
    circuits = {}
    for r in rolloffs:
        if r.category == category:
            circuits.setdefault(r.circuit, []).append((names.get(str(r.player_id), "?"), r.total))
    return tuple((n, tuple(totals)) for n, totals in sorted(circuits.items()))


@dataclass(frozen=True)
class PrizeRow:
    key: str
    label: str
    winners: list  # (player id, name); several while a roll-off is still to be rolled
    circuit: int | None  # the roll-off circuit to roll next, or None when settled
    rolloffs: tuple = ()  # (circuit, ((name, total), ...)) rolled so far


def settled_prize(category, winners, rolloffs):
    """The winners once the roll-off totals entered so far are applied, and the next circuit
    (scoring's `settle_prize`, from this category's `PrizeRollOff` rows)."""
    circuits = {}
    for r in rolloffs:
        if r.category == category:
            circuits.setdefault(r.circuit, {})[str(r.player_id)] = r.total
    return settle_prize(winners, circuits)


@dataclass(frozen=True)
class RollRow:
    id: int
    table_number: int
    roller: str
    dice: tuple
    called: bool
    phase: str
    voided: bool
    entered_by: str
    created_at: object


def round_rolls(round_):
    """Every roll of a round, newest first, voided ones too (a correction keeps the history)."""
    from parties.models import Roll

    rolls = (
        Roll.objects.filter(round=round_)
        .select_related("table", "roller")
        .order_by(*state.replay_order(newest_first=True))
    )
    return [
        RollRow(
            r.id,
            r.table.number,
            player_name(r.roller.name, r.roller.is_ghost),
            r.dice,
            r.called,
            r.phase,
            r.voided_by_id is not None,
            r.entered_by,
            r.created_at,
        )
        for r in rolls
    ]


def reseat_allowed(party, round_) -> str:
    """Which reseat the host may make now, for the host's page (the guards of party_reshuffle,
    party_swap_players and party_reseat, asked before the host taps): "setup" (round 1 may be
    reshuffled or swapped), "between_sets" (`rotation: none`, the first round of a later set
    waits), or ""."""
    if round_ is None or round_.status != Round.Status.WAITING or round_.number != 1:
        return ""
    if party.status == Party.Status.SETUP and round_.bunco_set.number == 1:
        return "setup"
    if (
        party.status == Party.Status.PLAYING
        and round_.bunco_set.number > 1
        and party.rules.rotation == "none"
    ):
        return "between_sets"
    return ""


def later_rounds(round_):
    """The rounds after `round_` in play order (the waiting next round, or rounds played)."""
    set_number = round_.bunco_set.number
    return (
        Round.objects.filter(party_id=round_.party_id)
        .filter(
            Q(bunco_set__number__gt=set_number)
            | Q(bunco_set__number=set_number, number__gt=round_.number)
        )
        .select_related("bunco_set")
        .order_by("bunco_set__number", "number")
    )


def reopen_refusal(party, round_):
    """Why the closed `round_` cannot be reopened, or "" when it can: its next round has not
    started (or it was the night's last round, or a break follows it) and the host has not
    ended the party."""
    later = list(later_rounds(round_))
    started = next((r for r in later if r.status != Round.Status.WAITING), None)
    if started is not None:
        return _("round %(round)s of set %(set)s has started") % {
            "round": started.number,
            "set": started.bunco_set.number,
        }
    if party.status == Party.Status.FINISHED and later:
        return _("the host ended the party")
    return ""


def undoable_closed_round(party):
    """The closed round a scorekeeper's undo still reaches: the last one closed, while the round
    after it waits (or it was the night's last, or a break follows it). None otherwise."""
    last = (
        Round.objects.select_related("bunco_set")
        .filter(party=party, status=Round.Status.CLOSED)
        .order_by("-bunco_set__number", "-number")
        .first()
    )
    if last is None or reopen_refusal(party, last):
        return None
    return last
