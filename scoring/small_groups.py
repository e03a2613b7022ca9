"""The boxed set's table plans for 2 to 10 players: team tables, tables alone, the moves.

Seed 000 ("Table plans for 5 to 10 players", "Bunco at one table"). A table of 4 plays in two
teams, except at the one-table game; a table of 2 or 3 plays alone, each seat its own side.
Plain values in, plain values out; scoring.seating checks the input and raises.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple


class TablePlan(NamedTuple):
    """One table of a plan: how many sit there, and whether they play alone or in two teams."""

    size: int
    alone: bool


_TEAMS, _THREE, _TWO = TablePlan(4, False), TablePlan(3, True), TablePlan(2, True)

BOXED_PLANS: dict[int, tuple[TablePlan, ...]] = {
    # The one-table game: everyone alone with 4 dice, the first to 21 wins the round.
    2: (_TWO,),
    3: (_THREE,),
    4: (TablePlan(4, True),),
    5: (_THREE, _TWO),
    6: (_TEAMS, _TWO),
    7: (_TEAMS, _THREE),
    8: (_TEAMS, _TEAMS),
    9: (_TEAMS, _THREE, _TWO),
    10: (_TEAMS, _TEAMS, _TWO),
}
FEWEST, MOST = min(BOXED_PLANS), max(BOXED_PLANS)


def boxed_plan(players: int) -> tuple[TablePlan, ...] | None:
    """The plan for `players`, head table first, or None outside 2 to 10."""
    return BOXED_PLANS.get(players)


def plays_alone(seating: Sequence[Sequence[str]], table: int) -> bool:
    """Whether 0-based `table` of a boxed-plan seating plays alone."""
    return table_plays_alone(len(seating), len(seating[table]))


def table_plays_alone(tables: int, seats: int) -> bool:
    """Whether a table of `seats` players, in a boxed-plan round of `tables` tables, plays
    alone: the one-table game does, and so does every table of fewer than 4 (the plans have no
    other kind)."""
    return tables == 1 or seats < 4


def wraps_whole_last_table(players: int) -> bool:
    """5, 6, 9 and 10 send everyone at the last table (two playing alone) to table 1; 7 and 8
    send only its losers there (docs/rules.md, "Small groups")."""
    return BOXED_PLANS[players][-1] == _TWO and len(BOXED_PLANS[players]) > 1


def first_seating(players: Sequence[str]) -> list[list[str]]:
    """Round 1: the players in the order given, filling the plan's tables from the head down."""
    seating, start = [], 0
    for table in BOXED_PLANS[len(players)]:
        seating.append(list(players[start : start + table.size]))
        start += table.size
    return seating


def next_boxed_seating(seating: Sequence[Sequence[str]], winners: Sequence[int]) -> list[list[str]]:
    """The next round's seating: at every table the winners stay and the losers move down one;
    the last table's players go to table 1 (all of them in 5, 6, 9 and 10, its losers in 7 and
    8). `winners` is each table's winning side (a team 0 or 1, or a seat where alone). Nobody
    moves in the one-table game. Every table keeps its size and kind (see the tests)."""
    if len(seating) == 1:
        return [list(seating[0])]
    players = sum(len(t) for t in seating)
    stay, move = [], []
    for i, (table, won) in enumerate(zip(seating, winners, strict=True)):
        if plays_alone(seating, i):
            kept, left = [table[won]], [p for s, p in enumerate(table) if s != won]
        else:
            kept = [table[won], table[won + 2]]
            left = [table[1 - won], table[3 - won]]
        if i == len(seating) - 1 and wraps_whole_last_table(players):
            kept, left = [], kept + left
        stay.append(kept)
        move.append(left)
    # Table i gets its stayers, then the movers from the table above (the last table's to 1).
    # At a team table the stayers are always the winning team: seats 1-2 and arrivals 3-4
    # splits both pairs, so everyone has a new partner (docs/rules.md section 5).
    return [stay[i] + move[i - 1] for i in range(len(seating))]
