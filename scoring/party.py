"""A party's progression (sets of 6 rounds, each round's target, the break) and score sheets."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from scoring.messages import gettext_noop
from scoring.rules import Rules
from scoring.table import NotAllowed, TableRound

ROUNDS_PER_SET = 6
PLAYING, BREAK, OVER = "playing", "break", "over"


@dataclass(frozen=True, slots=True)
class Progress:
    """Where the party is: the set and round being played, a break, or the end of the night."""

    rules: Rules
    bunco_set: int = 1
    round: int = 1
    state: str = PLAYING

    @property
    def target(self) -> int:
        """Round 1 rolls for 1s ... round 6 for 6s; each set starts again at 1."""
        return self.round

    @property
    def rounds_played(self) -> int:
        return (self.bunco_set - 1) * ROUNDS_PER_SET + self.round - 1

    def round_over(self) -> Progress:
        """The current round has ended: on to the next round, a break, or the end."""
        if self.state != PLAYING:
            raise NotAllowed(
                gettext_noop("no round is being played (the party is at %(state)s)"),
                state=self.state,
            )
        if self.round < ROUNDS_PER_SET:
            return replace(self, round=self.round + 1)
        if self.bunco_set == self.rules.sets:
            return replace(self, state=OVER)
        following = replace(self, bunco_set=self.bunco_set + 1, round=1)
        if self.bunco_set == self.rules.break_after_set:
            return replace(following, state=BREAK)
        return following

    def resume(self) -> Progress:
        """The host ends the break."""
        if self.state != BREAK:
            raise NotAllowed(gettext_noop("the party is not on a break"))
        return replace(self, state=PLAYING)

    def end_early(self) -> Progress:
        """The host ends the party before its last round (during a break too)."""
        if self.state == OVER:
            raise NotAllowed(gettext_noop("the party is already over"))
        return replace(self, state=OVER)


def schedule(rules: Rules) -> list[tuple[int, int, int]]:
    """Every round of the night as (set, round, target)."""
    return [(s, r, r) for s in range(1, rules.sets + 1) for r in range(1, ROUNDS_PER_SET + 1)]


@dataclass(frozen=True, slots=True)
class ScoreSheet:
    """A player's sheet: a W or L a round, tally marks, and the personal points rolled."""

    marks: tuple[str, ...] = ()
    buncos: int = 0
    mini_buncos: int = 0
    points: int = 0

    @property
    def wins(self) -> int:
        return self.marks.count("W")

    @property
    def losses(self) -> int:
        return self.marks.count("L")


def standing(sheet: ScoreSheet, rules: Rules) -> tuple[int, int]:
    """What ranks a player for the night, higher first: in team play the W marks, a tie broken
    by `overall_tiebreak` (section 9); in individual play personal points decide the night
    (section 6), a tie broken by Buncos where that is the tiebreak, else by wins."""
    if rules.team_size == 1:
        return (sheet.points, sheet.buncos if rules.overall_tiebreak == "buncos" else sheet.wins)
    return (sheet.wins, sheet.buncos if rules.overall_tiebreak == "buncos" else sheet.points)


def fuzzy_die_starts_now(rules: Rules, bunco_set: int, round_number: int) -> bool:
    """Whether the fuzzy die is handed to the head table's scorekeeper as this round starts:
    only the night's first round, and only where the rules start it there (section 8)."""
    return (
        rules.traveling != "off"
        and rules.fuzzy_die_starts == "head_table"
        and (bunco_set, round_number) == (1, 1)
    )


def round_sheets(table: TableRound) -> dict[str, ScoreSheet]:
    """What a finished table writes on each seated player's sheet for its round: a W or an L
    (ghosts too, so they move like anyone; ghosts win no prizes), and the roller's own
    tallies and personal points (a ghost's rolls are its partner's, section 6)."""
    if not table.done:
        raise NotAllowed(
            gettext_noop("a table's round is marked on the sheets only once it is done")
        )
    won = set(table.winners)
    return {
        player: ScoreSheet(
            marks=("W" if player in won else "L",),
            buncos=table.seat_buncos[seat],
            mini_buncos=table.seat_mini_buncos[seat],
            points=table.seat_points[seat],
        )
        for seat, player in enumerate(table.seats)
    }


def record_round(sheets: Mapping[str, ScoreSheet], table: TableRound) -> dict[str, ScoreSheet]:
    """The sheets after a finished table: each seated player's sheet plus `round_sheets`."""
    result = dict(sheets)
    for player, line in round_sheets(table).items():
        sheet = result.get(player, ScoreSheet())
        result[player] = ScoreSheet(
            marks=sheet.marks + line.marks,
            buncos=sheet.buncos + line.buncos,
            mini_buncos=sheet.mini_buncos + line.mini_buncos,
            points=sheet.points + line.points,
        )
    return result
