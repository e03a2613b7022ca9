"""A round across all tables: the bell that ends it everywhere, and each table's winner."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from scoring.messages import gettext_noop
from scoring.rules import Rules
from scoring.seating import tables_alone
from scoring.table import Bell, NotAllowed, RollFact, TableRound


class RoundState(NamedTuple):
    """Every table's round; table 1 (index 0) is the head table."""

    # A NamedTuple, like TableRound: a new one is made on every roll.

    rules: Rules
    target: int
    tables: tuple[TableRound, ...]
    bell: bool = False  # the bell has rung for every table
    bell_table: int | None = None  # the 1-based table whose roll rang it; None: host or clock
    last_bunco: str | None = None  # who rolled this round's latest Bunco
    fuzzy_die: str | None = None  # who took the traveling die last this round

    @classmethod
    def start(
        cls,
        seating: Sequence[Sequence[str]],
        rules: Rules,
        target: int,
        *,
        ghosts: frozenset[str] = frozenset(),
        first_seats: Sequence[int] | None = None,
    ) -> RoundState:
        if not seating:
            raise NotAllowed(gettext_noop("a round needs at least one table"))
        firsts = first_seats or [1] * len(seating)
        if len(firsts) != len(seating):
            raise NotAllowed(gettext_noop("give one scorekeeper seat for every table"))
        players = [p for table in seating for p in table]
        if len(set(players)) != len(players):
            raise NotAllowed(gettext_noop("a player is seated at two tables"))
        alone = tables_alone(seating, rules)
        tables = tuple(
            TableRound.start(
                seats,
                rules,
                target,
                head=i == 0,
                ghosts=ghosts,
                first_seat=firsts[i],
                alone=alone[i],
            )
            for i, seats in enumerate(seating)
        )
        return cls(rules, target, tables)

    @property
    def over(self) -> bool:
        """Every table is done (its turns finished and any roll-off settled)."""
        return all(t.done for t in self.tables)

    @property
    def winners(self) -> tuple[int | None, ...]:
        """Each table's winning side (0: seats 1+3, 1: seats 2+4; a seat index when alone)."""
        return tuple(t.winner for t in self.tables)

    def roll(
        self, table: int, roll: RollFact, *, before_bell: bool = False, roller: str | None = None
    ) -> RoundState:
        """Apply `roll` at 1-based `table`; a roll that rings the bell rings it at every table.
        `before_bell`: the roll was made before the bell, though entered after it (see
        TableRound.before_bell); without a bell it is an ordinary roll. `roller`: the player the
        roll was entered for, who throws it where the rules allow (TableRound.handed_to)."""
        tables = self.tables
        if type(table) is not int or not 1 <= table <= len(tables):
            raise NotAllowed(
                gettext_noop("there is no table %(table)r; tables are 1 to %(tables)s"),
                table=table,
                tables=len(tables),
            )
        current = tables[table - 1]
        if before_bell:
            state = current.before_bell(roll, roller)
        elif roller is None:
            state = current.apply(roll)
        else:
            state = current.handed_to(roller).apply(roll)
        last = state.last
        last_bunco, fuzzy_die = self.last_bunco, self.fuzzy_die
        if last.score is not None:
            if last.score.kind == "bunco":
                last_bunco = last.roller
            if last.score.takes_fuzzy_die:
                fuzzy_die = last.roller
        result = RoundState(
            self.rules,
            self.target,
            tables[: table - 1] + (state,) + tables[table:],
            self.bell,
            self.bell_table,
            last_bunco,
            fuzzy_die,
        )
        if last.rang_bell and not self.bell:
            return result._ring(table)
        return result

    def ring_bell(self) -> RoundState:
        """The host (or the clock, in timed rounds) ends the round at every table."""
        return self if self.bell else self._ring(None)

    def apply(self, fact: tuple[int, RollFact] | Bell) -> RoundState:
        """Apply a round fact: `(table, RollFact)` or a `Bell` from the host or the clock."""
        if isinstance(fact, Bell):
            return self.ring_bell()
        table, roll = fact
        return self.roll(table, roll)

    def _ring(self, by_table: int | None) -> RoundState:
        tables = tuple(t.bell_rung() for t in self.tables)
        return self._replace(tables=tables, bell=True, bell_table=by_table)


def replay_round(
    seating: Sequence[Sequence[str]],
    rules: Rules,
    target: int,
    facts: Iterable[tuple[int, RollFact] | Bell],
    *,
    ghosts: frozenset[str] = frozenset(),
    first_seats: Sequence[int] | None = None,
) -> RoundState:
    """The round after every fact in the order they happened."""
    state = RoundState.start(seating, rules, target, ghosts=ghosts, first_seats=first_seats)
    for fact in facts:
        state = state.apply(fact)
    return state
