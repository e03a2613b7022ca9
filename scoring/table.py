"""One table's round as a pure state machine: turns, points, the bell, finishing, roll-offs."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from scoring.messages import RuleError, gettext_noop
from scoring.roll import InvalidRoll, RollScore, _score, check_dice, check_target
from scoring.rules import Rules

PLAYING, FINISHING, ROLLOFF, DONE = "playing", "finishing", "rolloff", "done"
ROLLOFF_DICE = 3  # the house roll-off's dice, and a prize roll-off's (sections 3 and 9)


class NotAllowed(RuleError):
    """Something the table cannot do now (a roll after it is done, a bad seating)."""


class RollFact(NamedTuple):
    """A roll as a fact: the dice, and whether the roller called Bunco (or Little Bunco)."""

    # RollFact and Outcome are NamedTuples, not frozen dataclasses, because one of each is made
    # on every roll and a frozen dataclass's __init__ costs several times as much.

    dice: tuple[int, ...]
    called: bool = True


@dataclass(frozen=True, slots=True)
class Bell:
    """The round was ended from outside this table: the head table, a Bunco elsewhere, the clock."""


class Outcome(NamedTuple):
    """What the last fact did, for the shell to announce."""

    seat: int  # 1-based seat whose turn it was (the ghost's seat when rolling for a ghost)
    roller: str  # the player who threw the dice
    score: RollScore | None  # None for a Bell, and for a dice-total roll-off roll
    rang_bell: bool = False  # this roll ended the round for every table
    turn_passed: bool = False
    rolloff_total: int | None = None


@dataclass(frozen=True, slots=True)
class RollOff:
    """A tie being settled: who is still tied, and what the roll-off has scored so far."""

    sides: tuple[int, ...]  # the tied sides (teams, or seats in individual play), 0-based
    scores: tuple[int, ...]  # per side of the table; roll-off points or this circuit's totals
    order: tuple[int, ...]  # seats (0-based) or sides still to roll in this circuit, in order
    circuit: int = 1


class TableRound(NamedTuple):
    """A table's round so far. Build it with `TableRound.start`, advance it with `apply`."""

    # A NamedTuple (a frozen value, like RollFact and Outcome) rather than a frozen dataclass: a new
    # one is made on every roll, and building a tuple costs a fraction of copying a dataclass,
    # which was most of the simulator's time.

    seats: tuple[str, ...]
    rules: Rules
    target: int
    head: bool
    ghosts: frozenset[str]
    first_seat: int  # 0-based: the scorekeeper, who rolls first
    points: tuple[int, ...]  # per side: the two teams, or each seat in individual play
    seat_points: tuple[int, ...]  # per seat, personal points (a ghost's go to its partner)
    seat_buncos: tuple[int, ...]
    seat_mini_buncos: tuple[int, ...]
    turn: int  # 0-based seat whose turn it is
    turn_rolls: int  # rolls made in the current turn
    rolls: int  # rolls made at this table, roll-offs included
    phase: str = PLAYING
    rang_bell: bool = False
    winner: int | None = None
    rolloff: RollOff | None = None
    last: Outcome | None = None
    # The table as it stood just before the bell rang (None before the bell, and at the table
    # whose own roll rang it).
    at_bell: TableRound | None = None
    # Every seat is its own side (individual play, or a boxed plan's table of players alone);
    # else two teams, seats 1+3 and 2+4.
    alone: bool = False

    @classmethod
    def start(
        cls,
        seats: Iterable[str],
        rules: Rules,
        target: int,
        *,
        head: bool = False,
        ghosts: frozenset[str] = frozenset(),
        first_seat: int = 1,
        alone: bool | None = None,
    ) -> TableRound:
        """`alone`: every seat is its own side; None takes it from the rules (individual
        play). A boxed plan's tables say it table by table (scoring.seating.tables_alone)."""
        seats = tuple(seats)
        check_target(target)
        if alone is None:
            alone = rules.team_size == 1
        _check_seats(seats, rules, ghosts, alone)
        if type(first_seat) is not int or not 1 <= first_seat <= len(seats):
            raise NotAllowed(
                gettext_noop("the scorekeeper sits in seat 1 to %(seats)s, not %(seat)r"),
                seats=len(seats),
                seat=first_seat,
            )
        first_seat = scorekeeper_seat(seats, ghosts, first_seat)
        zeros = (0,) * len(seats)
        sides = len(seats) if alone else 2
        return cls(
            seats=seats,
            rules=rules,
            target=target,
            head=head,
            ghosts=ghosts,
            first_seat=first_seat - 1,
            points=(0,) * sides,
            seat_points=zeros,
            seat_buncos=zeros,
            seat_mini_buncos=zeros,
            turn=first_seat - 1,
            turn_rolls=0,
            rolls=0,
            alone=alone,
        )

    # -- questions the shell asks ------------------------------------------------------------

    @property
    def done(self) -> bool:
        return self.phase == DONE

    @property
    def finishing(self) -> bool:
        """The bell has rung and the current turn is being finished."""
        return self.phase == FINISHING

    @property
    def rolloff_needed(self) -> bool:
        return self.phase == ROLLOFF

    @property
    def unbelled(self) -> TableRound | None:
        """The table as it stood at the bell, while no roll has been made here since: a roll
        entered before its phone heard the bell is played on it (`before_bell`)."""
        at_bell = self.at_bell
        return at_bell if at_bell is not None and at_bell.rolls == self.rolls else None

    @property
    def turn_seat(self) -> int | None:
        """The 1-based seat whose turn it is, or None when the table is done.

        In a dice-total roll-off this is the first seat of the side to roll; any player of
        that side may throw."""
        if self.phase == DONE:
            return None
        if self.phase == ROLLOFF and self.rules.tie_break == "rolloff_dice_total":
            return self.rolloff.order[0] + 1
        return self.turn + 1

    @property
    def dice_needed(self) -> int | None:
        """How many dice the next roll throws: the game's, but always three in the house
        roll-off (`rolloff_dice_total`, docs/rules.md section 3), even in a four-dice game;
        None once the table is done."""
        if self.phase == DONE:
            return None
        if self.phase == ROLLOFF and self.rules.tie_break == "rolloff_dice_total":
            return ROLLOFF_DICE
        return self.rules.dice

    @property
    def roller(self) -> str | None:
        """Who throws the dice now: the seated player, or a ghost's partner on the ghost's turn."""
        seat = self.turn_seat
        return None if seat is None else self.seats[self._roller_seat(seat - 1)]

    def handed_to(self, player: str | None) -> TableRound:
        """The table with the dice in `player`'s hands, for a roll entered as theirs (a
        correction replays each roll as the player it was entered for, docs/rules.md section
        7): while play is on, the turn moves to the next seat, from the turn in hand, that
        `player` throws for (their own, or a ghost's across the table), as a new turn. The
        table as it is when it is their turn already, after the bell, in a roll-off, or when
        they throw for no seat here."""
        if player is None or self.phase != PLAYING or self.roller == player:
            return self
        n = len(self.seats)
        for step in range(1, n):
            seat = (self.turn + step) % n
            if self.seats[self._roller_seat(seat)] == player:
                return self._replace(turn=seat, turn_rolls=0)
        return self

    def thrower(self, player: str | None = None, *, before_bell: bool = False) -> str | None:
        """Who throws the next roll: `player` where the dice can be handed to them, else the
        turn's roller; a roll made before the bell is thrown at the table as it stood then."""
        table = self.unbelled if before_bell and self.unbelled is not None else self
        return table.handed_to(player).roller

    @property
    def winners(self) -> tuple[str, ...]:
        """The players (ghosts included) on the side that won this table, once decided."""
        if self.winner is None:
            return ()
        return tuple(p for i, p in enumerate(self.seats) if self._side(i) == self.winner)

    @property
    def losers(self) -> tuple[str, ...]:
        if self.winner is None:
            return ()
        return tuple(p for i, p in enumerate(self.seats) if self._side(i) != self.winner)

    @property
    def sides(self) -> tuple[tuple[int, ...], ...]:
        """Each side's 1-based seats, in the order of `points` (side_seats)."""
        return side_seats(len(self.seats), self.alone)

    @property
    def personal_points(self) -> dict[str, int]:
        return self._by_player(self.seat_points)

    @property
    def buncos(self) -> dict[str, int]:
        return self._by_player(self.seat_buncos)

    @property
    def mini_buncos(self) -> dict[str, int]:
        return self._by_player(self.seat_mini_buncos)

    def check(self, fact: RollFact | Bell) -> None:
        """Raise NotAllowed or InvalidRoll if `fact` cannot be applied now."""
        if isinstance(fact, Bell):
            return
        if not isinstance(fact, RollFact):
            raise NotAllowed("a table takes a RollFact or a Bell, not %(fact)r", fact=fact)
        if self.phase == DONE:
            raise NotAllowed(gettext_noop("this table's round is over; no more rolls"))
        check_dice(fact.dice, self.dice_needed)
        if type(fact.called) is not bool:
            raise InvalidRoll(
                gettext_noop("called is yes or no, not %(called)r"), called=fact.called
            )

    # -- transitions ---------------------------------------------------------------------------

    def apply(self, fact: RollFact | Bell) -> TableRound:
        """The table after `fact`; raises NotAllowed or InvalidRoll and leaves this value as is."""
        self.check(fact)
        if isinstance(fact, Bell):
            return self.bell_rung()
        if self.phase == ROLLOFF:
            if self.rules.tie_break == "rolloff_dice_total":
                return self._dice_total(fact)
            return self._rolloff_turn(fact)
        return self._play(fact)

    def bell_rung(self) -> TableRound:
        """The round ends from outside. The turn in progress, that of the player holding the
        dice, is finished (even if none of its rolls has been entered yet: the scorekeeper may
        be a few seconds behind the dice), unless the rules stop every table at once."""
        if self.phase != PLAYING:
            return self
        last = Outcome(self.turn + 1, self.seats[self._roller_seat(self.turn)], None)
        if self.rules.finish_turn_after_bell:
            return self._replace(phase=FINISHING, last=last, at_bell=self)
        return self._replace(last=last, at_bell=self)._end_play()

    def before_bell(self, fact: RollFact, player: str | None = None) -> TableRound:
        """The table after a roll made before the bell but entered after it (its phone had not
        heard the bell): the roll is played on the table as it stood at the bell, then the bell
        rings again. Once a roll has been made at the table since the bell, or without a bell,
        it is simply the next roll. `player`: the roll was entered as theirs (`handed_to`)."""
        if self.unbelled is None:
            return self.handed_to(player).apply(fact)
        played = self.unbelled.handed_to(player).apply(fact)
        if played.phase != PLAYING:  # it won the table, or rang the bell itself
            return played
        return played.bell_rung()

    def _play(self, fact: RollFact) -> TableRound:
        # The simulator's hottest path: _side, _roller_seat and _tally are inlined, and the new
        # value is built with its fields in order (the fastest way) rather than by _replace.
        rules = self.rules
        score = _score(fact.dice, self.target, rules, fact.called)
        seat = self.turn
        # _roller_seat and _side inlined: partner_seat and side_seats say the same.
        roller = (seat + 2) % 4 if self.ghosts and self.seats[seat] in self.ghosts else seat
        turn_over = not score.keeps_turn
        points, seat_points = self.points, self.seat_points
        buncos, mini_buncos = self.seat_buncos, self.seat_mini_buncos
        phase = self.phase
        rang = False
        winner = None
        if score.points:  # a miss, most rolls, only passes the dice
            side = seat if self.alone else seat % 2
            points = _bump(points, side, score.points)
            seat_points = _bump(seat_points, roller, score.points)
            if score.kind == "bunco":
                buncos = _bump(buncos, roller, 1)
            elif score.kind == "mini_bunco":
                mini_buncos = _bump(mini_buncos, roller, 1)
            reached = points[side] >= rules.play_to
            bunco_everywhere = score.kind == "bunco" and rules.bunco_ends_round == "everywhere"
            if rules.round_end == "each_table" and reached:
                # Reaching the score wins at once, even while finishing a turn after a bell.
                winner = side
                rang = bunco_everywhere and phase == PLAYING
                phase = DONE
            elif phase == PLAYING and (
                bunco_everywhere or (self.head and reached and rules.round_end == "head_table")
            ):
                rang = True
                phase = FINISHING if rules.finish_turn_after_bell else DONE
        state = TableRound(
            self.seats,
            rules,
            self.target,
            self.head,
            self.ghosts,
            self.first_seat,
            points,
            seat_points,
            buncos,
            mini_buncos,
            (seat + 1) % len(self.seats) if turn_over else seat,  # turn
            0 if turn_over else self.turn_rolls + 1,  # turn_rolls
            self.rolls + 1,
            phase,
            self.rang_bell or rang,
            winner,
            self.rolloff,
            Outcome(seat + 1, self.seats[roller], score, rang, turn_over),
            self.at_bell,
            self.alone,
        )
        if winner is None and (phase == DONE or (phase == FINISHING and turn_over)):
            return state._end_play()
        return state

    def _end_play(self) -> TableRound:
        """Play has stopped: the side with more points wins, or a tie goes to a roll-off."""
        best = max(self.points)
        tied = tuple(s for s, p in enumerate(self.points) if p == best)
        if len(tied) == 1:
            return self._replace(phase=DONE, winner=tied[0])
        zeros = (0,) * len(self.points)
        if self.rules.tie_break == "rolloff_dice_total":
            return self._replace(phase=ROLLOFF, rolloff=RollOff(tied, zeros, tied))
        order = self._rolloff_order(tied)
        return self._replace(
            phase=ROLLOFF, turn=order[0], turn_rolls=0, rolloff=RollOff(tied, zeros, order)
        )

    def _rolloff_order(self, tied: tuple[int, ...]) -> tuple[int, ...]:
        # Starting with the scorekeeper, every seat on a tied side takes one turn.
        n = len(self.seats)
        seats = ((self.first_seat + k) % n for k in range(n))
        return tuple(s for s in seats if self._side(s) in tied)

    def _rolloff_turn(self, fact: RollFact) -> TableRound:
        # Roll-off points decide the tie only; Buncos rolled still go on the roller's sheet.
        rolloff = self.rolloff
        seat = self.turn
        roller = self._roller_seat(seat)
        score = _score(fact.dice, self.target, self.rules, fact.called)
        scores = _bump(rolloff.scores, self._side(seat), score.points)
        turn_over = not score.keeps_turn
        order = rolloff.order[1:] if turn_over else rolloff.order
        circuit = rolloff.circuit
        winner = None
        if not order:
            best = max(scores[s] for s in rolloff.sides)
            tied = tuple(s for s in rolloff.sides if scores[s] == best)
            if len(tied) == 1:
                winner = tied[0]
            else:
                order = self._rolloff_order(tied)
                circuit += 1
                rolloff = RollOff(tied, rolloff.scores, order, circuit)
        return self._replace(
            rolls=self.rolls + 1,
            turn=order[0] if order and turn_over else seat,
            turn_rolls=0 if turn_over else self.turn_rolls + 1,
            phase=DONE if winner is not None else ROLLOFF,
            winner=winner,
            rolloff=RollOff(rolloff.sides, scores, order, circuit),
            last=Outcome(seat + 1, self.seats[roller], score, False, turn_over),
            **self._tally(roller, score, personal=False),
        )

    def _dice_total(self, fact: RollFact) -> TableRound:
        # The house roll-off (docs/rules.md section 3): one roller a side, the higher face total
        # wins, no points.
        rolloff = self.rolloff
        side = rolloff.order[0]
        total = sum(fact.dice)
        scores = _bump(rolloff.scores, side, total)
        order = rolloff.order[1:]
        winner = None
        circuit = rolloff.circuit
        sides = rolloff.sides
        if not order:
            best = max(scores[s] for s in sides)
            sides = tuple(s for s in sides if scores[s] == best)
            if len(sides) == 1:
                winner = sides[0]
            else:
                order = sides
                scores = (0,) * len(scores)
                circuit += 1
        seat = side  # a team's first seat is its side's number; in individual play, the seat
        return self._replace(
            rolls=self.rolls + 1,
            phase=DONE if winner is not None else ROLLOFF,
            winner=winner,
            rolloff=RollOff(sides, scores, order, circuit),
            last=Outcome(seat + 1, self.seats[self._roller_seat(seat)], None, rolloff_total=total),
        )

    # -- helpers -------------------------------------------------------------------------------

    def _side(self, seat: int) -> int:
        return seat if self.alone else seat % 2

    def _roller_seat(self, seat: int) -> int:
        # On a ghost's turn its partner, across the table, throws the dice (docs/rules.md,
        # section 6). A table alone has no ghosts.
        return partner_seat(seat + 1, False) - 1 if self.seats[seat] in self.ghosts else seat

    def _tally(self, seat: int, score: RollScore, *, personal: bool) -> dict:
        changes = {}
        if personal and score.points:
            changes["seat_points"] = _bump(self.seat_points, seat, score.points)
        if score.kind == "bunco":
            changes["seat_buncos"] = _bump(self.seat_buncos, seat, 1)
        elif score.kind == "mini_bunco":
            changes["seat_mini_buncos"] = _bump(self.seat_mini_buncos, seat, 1)
        return changes

    def _by_player(self, per_seat: tuple[int, ...]) -> dict[str, int]:
        return {p: n for p, n in zip(self.seats, per_seat, strict=True) if p not in self.ghosts}


def _bump(values: tuple[int, ...], index: int, by: int) -> tuple[int, ...]:
    if not by:
        return values
    return values[:index] + (values[index] + by,) + values[index + 1 :]


# The two teams of a team table, by 0-based seat: partners sit across from each other.
TEAMS = ((0, 2), (1, 3))


def side_seats(size: int, alone: bool) -> tuple[tuple[int, ...], ...]:
    """Each side's 1-based seats, side 0 first: at a team table the two teams, seats 1+3 and
    2+4; at a table of players alone (`alone`) every seat is a side of its own. The one answer
    to "who plays with whom" for every page (docs/rules.md sections 6 and 6a)."""
    if alone:
        return tuple((seat,) for seat in range(1, size + 1))
    return tuple((a + 1, b + 1) for a, b in TEAMS)


def partner_seat(seat: int, alone: bool) -> int | None:
    """The 1-based seat of `seat`'s partner, across the table; None at a table alone, where
    nobody has a partner."""
    return None if alone else (seat + 1) % 4 + 1


def ghost_partners(seats: tuple[str, ...], ghosts: frozenset[str]) -> tuple[int, int] | None:
    """The first two 1-based seats of a team table where two ghosts would be partners, or None:
    a ghost needs a real partner to throw for it (docs/rules.md section 6)."""
    for a, b in TEAMS:
        if seats[a] in ghosts and seats[b] in ghosts:
            return a + 1, b + 1
    return None


def _check_seats(seats: tuple[str, ...], rules: Rules, ghosts: frozenset[str], alone: bool) -> None:
    if not all(isinstance(p, str) and p for p in seats):
        raise NotAllowed(
            gettext_noop("seats hold player ids (non-empty strings), not %(seats)s"),
            seats=list(seats),
        )
    if len(set(seats)) != len(seats):
        raise NotAllowed(
            gettext_noop("a player sits at the table twice: %(seats)s"), seats=list(seats)
        )
    if type(alone) is not bool:
        raise NotAllowed(gettext_noop("alone is yes or no, not %(alone)r"), alone=alone)
    if rules.team_size == 1 and not alone:
        raise NotAllowed(gettext_noop("in individual play every table plays alone"))
    if alone:
        if not 2 <= len(seats) <= 4:
            raise NotAllowed(
                gettext_noop("players alone sit 2 to 4 a table, not %(seats)s"), seats=len(seats)
            )
        if ghosts & set(seats):
            raise NotAllowed(gettext_noop("players alone have no ghosts"))
        return
    if len(seats) != 4:
        raise NotAllowed(
            gettext_noop("a table seats 4 (two teams of 2), not %(seats)s"), seats=len(seats)
        )
    pair = ghost_partners(seats, ghosts)
    if pair is not None:
        raise NotAllowed(
            gettext_noop("two ghosts cannot be partners (seats %(first)s and %(second)s)"),
            first=pair[0],
            second=pair[1],
        )


def scorekeeper_seat(seats, ghosts: frozenset[str], chosen: int = 1) -> int:
    """The 1-based seat that keeps score and rolls first: the chosen seat (1 by default), or,
    where a ghost sits there, its partner's seat, since a ghost cannot keep score."""
    if seats[chosen - 1] in ghosts:
        return partner_seat(chosen, alone=False)
    return chosen


def replay(
    seats: Iterable[str],
    rules: Rules,
    target: int,
    facts: Iterable[RollFact | Bell],
    *,
    head: bool = False,
    ghosts: frozenset[str] = frozenset(),
    first_seat: int = 1,
    alone: bool | None = None,
) -> TableRound:
    """The table after every fact in order, from the start of the round."""
    state = TableRound.start(
        seats, rules, target, head=head, ghosts=ghosts, first_seat=first_seat, alone=alone
    )
    for fact in facts:
        state = state.apply(fact)
    return state
