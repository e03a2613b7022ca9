"""A season's standings as arithmetic: each member's totals over the season's nights, the ranks,
and the season's prizes. Pure: dataclasses in, dataclasses out; no Django, no database.

The nights come in as each night's own results already worked out (clubs.selectors reads them
from the party's score sheets, prizes and pot): a line for each member who played, or whose
sub played for them where the club counts subs. A member's season is the sum of their nights'
lines, and nothing else: a night the member missed adds nothing, and a night corrected after
the fact changes the season the next time it is worked out (nothing is stored to drift).

The season's prizes are a night's categories (scoring.prizes.award_prizes) over the season's
sheets. A tie is settled as the club's pot says: `split` shares the prize; `rolloff` lists the
tied members, whose roll-off is rolled at the next night.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields

from scoring import Rules, award_prizes
from scoring.party import ScoreSheet

RANKINGS = ("wins", "points", "buncos")  # Club.Ranking: what ranks the standings


@dataclass(frozen=True)
class NightLine:
    """What one member's night adds to their season (money in cents)."""

    member: str
    wins: int = 0
    losses: int = 0
    buncos: int = 0
    mini_buncos: int = 0
    points: int = 0
    prizes: int = 0  # prizes won that night (settled, or shared)
    paid_in: int = 0
    took_home: int = 0


@dataclass(frozen=True)
class Night:
    """A finished night of the season, in the order they were played. `last_bunco` and
    `fuzzy_die`: the member who rolled its last Bunco, who held the fuzzy die at its end (None
    when no member did)."""

    key: str
    lines: tuple[NightLine, ...] = ()
    last_bunco: str | None = None
    fuzzy_die: str | None = None


@dataclass(frozen=True)
class Totals:
    """A member's season so far: the sum of their nights' lines, and the nights they count."""

    nights: int = 0
    wins: int = 0
    losses: int = 0
    buncos: int = 0
    mini_buncos: int = 0
    points: int = 0
    prizes: int = 0
    paid_in: int = 0
    took_home: int = 0

    def plus(self, night_lines: Sequence[NightLine]) -> Totals:
        """These totals with one more night: the member's lines of that night (two when the
        member and a sub for them both played it) added, and the night counted once."""
        sums = {f.name: getattr(self, f.name) for f in fields(Totals)}
        for line in night_lines:
            for name in sums:
                if name != "nights":
                    sums[name] += getattr(line, name)
        sums["nights"] += 1 if night_lines else 0
        return Totals(**sums)

    @property
    def net(self) -> int:
        return self.took_home - self.paid_in

    def ranked_by(self, ranking: str) -> int:
        return getattr(self, ranking)


@dataclass(frozen=True)
class Row:
    rank: int  # 1 for the first; members equal on what ranks share it (1, 1, 3)
    member: str
    name: str
    totals: Totals
    tied: bool  # shares its rank with another member


@dataclass(frozen=True)
class SeasonPrize:
    key: str
    winners: tuple[str, ...]  # member keys; several while tied
    outcome: str  # "won", "split" (the tied share it), "rolloff" (at the next night), "none"


@dataclass(frozen=True)
class Standings:
    rows: tuple[Row, ...]
    prizes: tuple[SeasonPrize, ...]
    nights: int  # the finished nights counted


def member_totals(members: Sequence[str], nights: Sequence[Night]) -> dict[str, Totals]:
    """Each member's totals over `nights`: the sum of their lines. A line for someone not in
    `members` counts for nobody."""
    totals = {member: Totals() for member in members}
    for night in nights:
        by_member: dict[str, list[NightLine]] = {}
        for line in night.lines:
            if line.member in totals:
                by_member.setdefault(line.member, []).append(line)
        for member, night_lines in by_member.items():
            totals[member] = totals[member].plus(night_lines)
    return totals


def ranked(totals: Mapping[str, Totals], names: Mapping[str, str], ranking: str) -> tuple:
    """The rows, most first by `ranking` ("wins", "points" or "buncos"), members equal on it
    sharing a rank (by name within it)."""
    if ranking not in RANKINGS:
        raise ValueError(f"a season is ranked by {', '.join(RANKINGS)}, not {ranking!r}")
    order = sorted(totals, key=lambda m: (-totals[m].ranked_by(ranking), names[m].casefold(), m))
    counts: dict[int, int] = {}
    for member in order:
        value = totals[member].ranked_by(ranking)
        counts[value] = counts.get(value, 0) + 1
    rows, rank, previous = [], 0, None
    for place, member in enumerate(order, start=1):
        value = totals[member].ranked_by(ranking)
        if value != previous:
            rank, previous = place, value
        rows.append(Row(rank, member, names[member], totals[member], counts[value] > 1))
    return tuple(rows)


def season_prizes(
    totals: Mapping[str, Totals], nights: Sequence[Night], rules: Rules, tied: str
) -> tuple[SeasonPrize, ...]:
    """The season's prizes in the rules' categories, from the members' season sheets."""
    sheets = {
        member: ScoreSheet(("W",) * t.wins + ("L",) * t.losses, t.buncos, t.mini_buncos, t.points)
        for member, t in totals.items()
    }
    # Prizes of one moment of a night (its last Bunco, the fuzzy die at its end): the season's
    # is the latest night's.
    latest = {
        "last_bunco": next((n.last_bunco for n in reversed(nights) if n.last_bunco), None),
        "traveling": next((n.fuzzy_die for n in reversed(nights) if n.fuzzy_die), None),
    }
    won = award_prizes(
        sheets, rules, last_bunco=latest["last_bunco"], fuzzy_die=latest["traveling"]
    )
    prizes = []
    for key, winners in won.items():
        if not winners:
            outcome = "none"
        elif len(winners) == 1:
            outcome = "won"
        else:
            outcome = "split" if tied == "split" else "rolloff"
        prizes.append(SeasonPrize(key, tuple(winners), outcome))
    return tuple(prizes)


def season_standings(
    members: Sequence[tuple[str, str]],
    nights: Sequence[Night],
    *,
    ranking: str,
    rules: Rules,
    tied: str,
) -> Standings:
    """The season: `members` as (key, name), `nights` the finished nights in order."""
    names = dict(members)
    totals = member_totals(list(names), nights)
    return Standings(
        rows=ranked(totals, names, ranking),
        prizes=season_prizes(totals, nights, rules, tied),
        nights=len(nights),
    )
