"""A round's live state: its rows turned into scoring values and replayed through the rules.

The replay is a pure fold (scoring.replay_round). Each process keeps the latest state of the
rounds it serves, keyed by the round's version, so a tap costs one fold step, not a replay;
any other process's write bumps the version and the next reader replays from the database.
"""

from dataclasses import dataclass, field, replace
from itertools import groupby
from typing import NamedTuple

from django.db import transaction
from django.db.models.functions import Coalesce

from parties.models import Roll, Round, RoundBell, Seat
from scoring import RollFact, RoundState
from scoring.quick import quick_dice


@dataclass(frozen=True)
class TableExtras:
    """What the shell shows besides the rules' state: this turn's points and the last roll."""

    version: int = 0  # rises with every roll and void at this table: the phones' staleness check
    turn_points: int = 0
    last_dice: tuple = ()
    last_entry: tuple = ()  # a quick button's last roll as entered: (outcome, face); () for dice
    last_points: int | None = None
    last_kind: str = ""
    last_roller: str = ""
    live_rolls: tuple = ()  # ids of the rolls that count, in order (the last is undone first)
    after_bell: tuple = ()  # those of them played after the round's bell (finishing, roll-off)


@dataclass(frozen=True)
class RoundSnapshot:
    round_id: int
    version: int
    started_at: object  # with the id, names the round even where a test database reuses ids
    set_number: int
    round_number: int
    seating: tuple  # per table, the player ids (str) in seat order
    ghosts: frozenset
    table_ids: tuple  # the Table row ids, head table first
    names: dict  # player id (str) -> (name, is_ghost), for the fragments
    state: RoundState
    extras: tuple = field(default_factory=tuple)  # TableExtras per table

    def table(self, number):
        return self.state.tables[number - 1]

    def apply_roll(
        self, number, roll_id, fact, version, *, before_bell=False, entry=(), roller=None
    ):
        """This state after one more roll at table `number` (raises if the rules refuse it).
        `before_bell`: made before the bell, entered after it; `entry`: a quick button's roll
        as entered, (outcome, face) (put in words where it is shown, in the reader's language:
        scoring.quick.entry_words; () for dice); `roller`: the player
        (id, str) it was entered for, who threw it (scoring's TableRound.handed_to)."""
        state = self.state.roll(number, fact, before_bell=before_bell, roller=roller)
        extras = list(self.extras)
        played_after = self.state.bell and not (before_bell and self.table(number).unbelled)
        extras[number - 1] = _after(
            extras[number - 1], state.tables[number - 1], roll_id, fact, entry, played_after
        )
        return replace(self, version=version, state=state, extras=tuple(extras))

    def apply_bell(self, version):
        return replace(self, version=version, state=self.state.ring_bell())


def _after(extras, table, roll_id, fact, entry, played_after):
    last = table.last
    points = last.score.points if last.score else 0
    turn_points = 0 if last.turn_passed else extras.turn_points + points
    return TableExtras(
        version=extras.version + 1,
        turn_points=turn_points,
        last_dice=tuple(fact.dice),
        last_entry=entry,
        last_points=points if last.score else None,
        last_kind=last.score.kind if last.score else "rolloff_total",
        last_roller=last.roller,
        live_rolls=extras.live_rolls + (roll_id,),
        after_bell=extras.after_bell + (roll_id,) if played_after else extras.after_bell,
    )


_cache: dict[int, RoundSnapshot] = {}
CACHE_LIMIT = 2000


def remember(live):
    known = _cache.get(live.round_id)
    if known is not None and known.started_at == live.started_at and known.version > live.version:
        return  # two writers finished in the other order: keep the newer state
    if len(_cache) >= CACHE_LIMIT:
        _cache.clear()  # rounds end every few minutes; a cold start costs one replay each
    _cache[live.round_id] = live


def forget_all():
    _cache.clear()


def seating_of(round_):
    """The round's seating as scoring wants it, with the table ids, the names to show and each
    table's scorekeeper seat (1-based: the seat marked `keeps_score`, else seat 1)."""
    seats = (
        Seat.objects.filter(round=round_)
        .select_related("player")
        .order_by("table__number", "position")
    )
    tables, table_ids, ghosts, names, keepers = [], [], set(), {}, []
    for table_id, table_seats in groupby(seats, key=lambda seat: seat.table_id):
        ids = []
        keeper = 1
        for index, seat in enumerate(table_seats, start=1):
            key = str(seat.player_id)
            ids.append(key)
            names[key] = (seat.player.name, seat.player.is_ghost)
            if seat.player.is_ghost:
                ghosts.add(key)
            if seat.keeps_score:
                keeper = index
        tables.append(tuple(ids))
        table_ids.append(table_id)
        keepers.append(keeper)
    return tuple(tables), frozenset(ghosts), tuple(table_ids), names, tuple(keepers)


def roll_fact(dice, outcome, face, called, target, rules):
    """A stored roll as scoring takes it (a quick button's outcome turned into dice that score
    the same), and a quick button's roll as it was entered, (outcome, face) (() for dice)."""
    if outcome:
        fact = RollFact(quick_dice(outcome, target, rules, face), called)
        return fact, (outcome, face)
    return RollFact(tuple(d for d in dice if d is not None), called), ()


def cached(round_id, version, started_at):
    """The remembered state of that round at exactly that version, or None."""
    live = _cache.get(round_id)
    if live is not None and live.version == version and live.started_at == started_at:
        return live
    return None


class RollRow(NamedTuple):
    """A roll as the replay reads it: plain values, since a round's replay reads hundreds."""

    id: int
    table_number: int
    die1: int | None
    die2: int | None
    die3: int | None
    die4: int | None
    outcome: str
    face: int | None
    called: bool
    before_bell: bool
    voided_by: int | None
    roller_id: int | None = None  # who it was entered for; None: whoever's turn it is
    place: int | None = None  # the id of the roll whose place it took (a correction), or None

    @property
    def key(self):
        """Where it is replayed: in its own id's place, or in the place of the roll it took."""
        return self.place or self.id


def roll_rows(round_: Round) -> list[RollRow]:
    """The round's rolls, voided ones too, in the order they are replayed in (`replay_order`)."""
    return [RollRow(*row) for row in _roll_values(round_)]


def _roll_values(round_):
    return (
        Roll.objects.filter(round=round_)
        .order_by(*replay_order())
        .values_list(*RollRow._fields[:1], "table__number", *RollRow._fields[2:])
    )  # plain rows: a round's replay reads hundreds of them


def replay_order(*, newest_first=False):
    """Rolls in the order they were played: by id, each correction's roll in the place of the
    roll it corrected (`Roll.place`)."""
    if newest_first:
        return Coalesce("place", "id").desc(), "-id"
    return Coalesce("place", "id"), "id"


def bell_positions(round_: Round) -> list[int]:
    """Where the round's bell rang: the id of the last roll before it (0 before any)."""
    return list(
        RoundBell.objects.filter(round=round_)
        .order_by("after_roll_id", "id")
        .values_list("after_roll_id", flat=True)
    )


def load(round_: Round, rules, *, written=False) -> RoundSnapshot:
    """The live state of `round_` at its current version (call inside the write's lock);
    `written`: this transaction has already changed the round's facts."""
    if (live := cached(round_.id, round_.version, round_.started_at)) is not None:
        return live
    live = replayed(round_, rules, _roll_values(round_), bell_positions(round_))
    # Read under the party's lock before any write, the state is the committed one and is kept
    # at once, even if the write then fails (a refused tap must not cost the next tap another
    # replay). Read after this write's own changes (`written`), it is kept only once they
    # commit: a rolled-back write must never leave behind a version a later fact will carry.
    if written and transaction.get_connection().in_atomic_block:
        transaction.on_commit(lambda: remember(live))
    else:
        remember(live)
    return live


def replayed(round_: Round, rules, rows, bells, rollers=None) -> RoundSnapshot:
    """The state of `round_` replayed from `rows` (RollRow's values, in replay order) and
    `bells` (each bell's position, as bell_positions), at the round's version. `load` passes
    the rows as saved; a correction passes them as its change would leave them, to decide
    before it saves (nothing is remembered), with a dict as `rollers` to learn who threw each
    roll (roll id -> player id, str). Raises what the rules raise when a roll cannot be played.
    Each roll is thrown by the player it was entered for, where the rules allow."""
    seating, ghosts, table_ids, names, keepers = seating_of(round_)
    state = RoundState.start(seating, rules, round_.target, ghosts=ghosts, first_seats=keepers)
    live = RoundSnapshot(
        round_.id,
        round_.version,
        round_.started_at,
        round_.bunco_set.number,
        round_.number,
        seating,
        ghosts,
        table_ids,
        names,
        state,
        (TableExtras(),) * len(seating),
    )
    bells = list(bells)
    voids = [0] * len(seating)  # a void is a fact too: it moves the table's version on
    for roll_id, number, *dice, outcome, face, called, before_bell, voided_by, who, place in rows:
        if voided_by is not None:
            voids[number - 1] += 2  # the roll itself, and its void
            continue
        while bells and bells[0] < (place or roll_id):
            bells.pop(0)
            live = live.apply_bell(live.version)
        fact, entry = roll_fact(dice, outcome, face, called, round_.target, rules)
        who = None if who is None else str(who)
        if rollers is not None:
            rollers[roll_id] = live.table(number).thrower(who, before_bell=before_bell)
        live = live.apply_roll(
            number, roll_id, fact, live.version, before_bell=before_bell, entry=entry, roller=who
        )
    if bells:
        live = live.apply_bell(live.version)
    extras = tuple(
        TableExtras(**{**e.__dict__, "version": e.version + v})
        for e, v in zip(live.extras, voids, strict=True)
    )
    return replace(live, version=round_.version, extras=extras)
