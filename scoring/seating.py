"""Who sits where: the first seating with ghosts, and the moves after each round (section 5)."""

from __future__ import annotations

from collections.abc import Sequence

from scoring import small_groups
from scoring.messages import RuleError, gettext_noop
from scoring.rules import Rules
from scoring.table import ghost_partners


class SeatingError(RuleError):
    """A seating or a list of winners that does not fit the tables."""


def tables_needed(players: int) -> int:
    return -(-players // 4)


def ghosts_needed(players: int, rules: Rules) -> int:
    """Ghosts that fill the empty seats (section 6); individual play and the boxed plans have
    none."""
    if rules.team_size == 1 or rules.small_group == "boxed_plans":
        return 0
    return 4 * tables_needed(players) - players


TEAMS_WITH_GHOSTS_FEWEST = 4


def plan_for(players: int, rules: Rules) -> tuple[small_groups.TablePlan, ...]:
    """The tables a party of `players` will sit at, head table first: each table's size and
    whether it plays alone (for the host's preview). Raises SeatingError for a count the rules
    cannot seat."""
    if rules.small_group == "boxed_plans":
        plan = small_groups.boxed_plan(players)
        if plan is None:
            raise SeatingError(
                gettext_noop(
                    "the boxed set's table plans seat %(fewest)s to %(most)s players, not "
                    "%(players)s; a bigger group plays with ghosts"
                ),
                fewest=small_groups.FEWEST,
                most=small_groups.MOST,
                players=players,
            )
        return plan
    if rules.team_size == 1:
        if players < 2:
            raise SeatingError(gettext_noop("individual play needs at least 2 players"))
        tables = tables_needed(players)
        sizes = [players // tables + (i < players % tables) for i in range(tables)]
        return tuple(small_groups.TablePlan(size, True) for size in sizes)
    if players < TEAMS_WITH_GHOSTS_FEWEST:
        # Two teams of two a table: fewer than 4 would seat as many ghosts as players or more.
        raise SeatingError(
            gettext_noop(
                "teams with ghosts need at least %(fewest)s players, not %(players)s: pick the "
                "boxed set's table plans (small group: boxed plans, or the boxed_small preset) "
                "to play with 2 or 3"
            ),
            fewest=TEAMS_WITH_GHOSTS_FEWEST,
            players=players,
        )
    return (small_groups.TablePlan(4, False),) * tables_needed(players)


def tables_alone(seating: Sequence[Sequence[str]], rules: Rules) -> tuple[bool, ...]:
    """For each table, whether its players play alone (each seat a side) or in two teams."""
    return tuple(table_plays_alone(rules, len(seating), len(table)) for table in seating)


def table_plays_alone(rules: Rules, tables: int, seats: int) -> bool:
    """Whether a table of `seats` players, in a round of `tables` tables, plays alone (each
    seat a side) or in two teams: what a page showing one table needs, without the others."""
    if rules.team_size == 1:
        return True
    if rules.small_group == "boxed_plans":
        return small_groups.table_plays_alone(tables, seats)
    return False


def seat_players(
    players: Sequence[str], rules: Rules, ghost_names: Sequence[str] = ()
) -> tuple[list[list[str]], frozenset[str]]:
    """Round 1's seating for `players` in the order given, and the ghosts that fill it.

    Team play fills empty seats with ghosts (named from `ghost_names`, else G1, G2...), at
    most one a team and bottom tables first, so the head table and seat 1 (the first
    scorekeeper) are real players wherever possible. Individual play splits the players as
    evenly as it can, 2 to 4 a table.
    """
    players = list(players)
    if len(set(players)) != len(players):
        raise SeatingError(gettext_noop("every player needs a distinct id"))
    count = len(players)
    tables = tables_needed(count)
    plan = plan_for(count, rules)
    if rules.team_size == 1 or rules.small_group == "boxed_plans":
        seating, start = [], 0
        for table in plan:
            seating.append(players[start : start + table.size])
            start += table.size
        return seating, frozenset()
    missing = ghosts_needed(count, rules)
    names = list(ghost_names) or [f"G{i + 1}" for i in range(missing)]
    if len(names) < missing or set(names) & set(players):
        raise SeatingError(
            gettext_noop("%(missing)s ghost ids are needed, distinct from the players"),
            missing=missing,
        )
    ghosts = names[:missing]
    # One ghost a table from the bottom up, wrapping round; two at a table take seats 3 and 4,
    # which are on different teams, so no ghost partners a ghost.
    per_table = [0] * tables
    for k in range(missing):
        per_table[(tables - 1 - k) % tables] += 1
    seating, it, g = [], iter(players), iter(ghosts)
    for n in per_table:
        real = [next(it) for _ in range(4 - n)]
        seating.append(real + [next(g) for _ in range(n)])
    return seating, frozenset(ghosts)


def next_seating(
    seating: Sequence[Sequence[str]],
    winners: Sequence[int],
    rules: Rules,
    ghosts: frozenset[str] = frozenset(),
) -> list[list[str]]:
    """The next round's seating after `winners` at each table: at a team table 0 (seats 1+3
    won) or 1 (seats 2+4), at a table of players alone the 0-based seat that won."""
    _check(seating, winners, rules, ghosts)
    if rules.small_group == "boxed_plans":
        return small_groups.next_boxed_seating(seating, winners)
    if rules.team_size == 1:
        # Individual play: nobody moves (rotation is always "none"); the host reseats by hand.
        return [list(t) for t in seating]
    won = [_pair(t, w) for t, w in zip(seating, winners, strict=True)]
    lost = [_pair(t, 1 - w) for t, w in zip(seating, winners, strict=True)]
    last = len(seating) - 1
    # Each table gets (X, Y, X_stayed): X is the pair that stayed, else the one from above.
    arrivals = []
    for i in range(len(seating)):
        if rules.rotation == "none" or last == 0:
            arrivals.append((won[i], lost[i], True))
        elif rules.rotation == "ladder":
            if i == 0:
                arrivals.append((won[0], won[1], True))
            elif i == last:
                arrivals.append((lost[i], lost[i - 1], True))
            else:
                arrivals.append((lost[i - 1], won[i + 1], False))
        elif rules.rotation == "head_losers_to_bottom":
            if i == 0:
                arrivals.append((won[0], won[1], True))
            elif i == last:
                arrivals.append((lost[i], lost[0], True))
            else:
                arrivals.append((lost[i], won[i + 1], True))
        else:  # losers_down_wrap: the bottom table's losers wrap round to the head table
            arrivals.append((won[i], lost[i - 1], True))
    return [_sit(x, y, stayed, rules, ghosts) for x, y, stayed in arrivals]


def _pair(table: Sequence[str], side: int) -> tuple[str, str]:
    return (table[side], table[side + 2])


def _sit(
    x: tuple[str, str], y: tuple[str, str], stayed: bool, rules: Rules, ghosts: frozenset[str]
) -> list[str]:
    if rules.partners == "movers_keep_partners" and not stayed:
        # Both pairs just arrived: they sit across from each other and stay partners.
        return [x[0], y[0], x[1], y[1]]
    # Split both pairs: X in seats 1 and 2, Y in 3 and 4, so X's players partner Y's.
    if (x[0] in ghosts and y[0] in ghosts) or (x[1] in ghosts and y[1] in ghosts):
        y = (y[1], y[0])  # a ghost never partners a ghost
    return [x[0], x[1], y[0], y[1]]


def check_seating(
    seating: Sequence[Sequence[str]], rules: Rules, ghosts: frozenset[str] = frozenset()
) -> None:
    """Raise SeatingError, saying why, unless `seating` can be played under `rules`."""
    if not seating:
        raise SeatingError(gettext_noop("there are no tables"))
    players = [p for t in seating for p in t]
    if len(set(players)) != len(players):
        raise SeatingError(gettext_noop("a player is seated twice"))
    if rules.small_group == "boxed_plans":
        _check_boxed(seating, rules, ghosts)
        return
    for number, table in enumerate(seating, start=1):
        if rules.team_size == 1:
            if not 2 <= len(table) <= 4:
                raise SeatingError(
                    gettext_noop("table %(table)s seats %(seats)s; individual play seats 2-4"),
                    table=number,
                    seats=len(table),
                )
            continue
        if len(table) != 4:
            raise SeatingError(
                gettext_noop("table %(table)s seats %(seats)s players, not 4"),
                table=number,
                seats=len(table),
            )
        if ghost_partners(tuple(table), ghosts) is not None:
            raise SeatingError(
                gettext_noop(
                    "two ghosts are partners at table %(table)s; a ghost needs a real partner"
                ),
                table=number,
            )


def _check_boxed(seating: Sequence[Sequence[str]], rules: Rules, ghosts: frozenset[str]) -> None:
    if ghosts & {p for t in seating for p in t}:
        raise SeatingError(gettext_noop("the boxed set's table plans have no ghosts"))
    plan = plan_for(sum(len(t) for t in seating), rules)
    sizes, planned = [len(t) for t in seating], [t.size for t in plan]
    if sizes != planned:
        raise SeatingError(
            gettext_noop(
                "the boxed plan for %(players)s players seats %(planned)s a table, not %(sizes)s"
            ),
            players=sum(sizes),
            planned=planned,
            sizes=sizes,
        )


def ghost_swap(
    seating: Sequence[Sequence[str]], rules: Rules, ghosts: frozenset[str], ghost: str
) -> str | None:
    """Who changes chairs with `ghost`, just seated in a leaver's chair, so that no ghost
    partners a ghost: None if the seating can be played as it is, else the first real player
    whose swap makes it playable, an opponent at the ghost's table before anyone at another
    table, and seat 1 (the scorekeeper) last (section 6). Raises SeatingError when no one
    chair swap can do it (more ghosts than real players)."""
    try:
        check_seating(seating, rules, ghosts)
        return None
    except SeatingError:
        pass
    home = next(i for i, table in enumerate(seating) if ghost in table)
    order = [home] + [i for i in range(len(seating)) if i != home]
    for i in order:
        # Seat 1 last: its player keeps score, and a ghost there hands that to its partner.
        for player in [*seating[i][1:], seating[i][0]]:
            if player in ghosts:
                continue
            swapped = [[_swap(p, ghost, player) for p in table] for table in seating]
            try:
                check_seating(swapped, rules, ghosts)
            except SeatingError:
                continue
            return player
    raise SeatingError(
        gettext_noop("there are not enough players left for every ghost to have a real partner")
    )


def _swap(p: str, a: str, b: str) -> str:
    return b if p == a else a if p == b else p


def _check(
    seating: Sequence[Sequence[str]], winners: Sequence[int], rules: Rules, ghosts: frozenset[str]
) -> None:
    check_seating(seating, rules, ghosts)
    if len(winners) != len(seating):
        raise SeatingError(
            gettext_noop("%(tables)s tables need %(tables)s winners, not %(winners)s"),
            tables=len(seating),
            winners=len(winners),
        )
    if rules.team_size == 1:
        return
    for number, (w, alone) in enumerate(
        zip(winners, tables_alone(seating, rules), strict=True), start=1
    ):
        sides = len(seating[number - 1]) if alone else 2
        if type(w) is not int or not 0 <= w < sides:
            raise SeatingError(
                gettext_noop("the winner at table %(table)s is 0 to %(last)s, not %(winner)r"),
                table=number,
                last=sides - 1,
                winner=w,
            )
