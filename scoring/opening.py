"""The first seating of a party: how many ghosts it needs and where everyone sits in round 1."""

from __future__ import annotations

from scoring.rules import Rules


def tables_needed(player_count: int) -> int:
    """Tables for this many players (RULES.md section 6): one per four, rounded up."""
    return -(-player_count // 4)


def ghosts_needed(player_count: int, rules: Rules) -> int:
    """Ghosts that fill the empty seats; individual play has none (tables seat 2 to 4)."""
    if rules.team_size == 1:
        return 0
    return -player_count % 4


def first_seating(players: list[str], ghosts: list[str], rules: Rules) -> list[list[str]]:
    """Seat `players` in the order given (the shell shuffles them) and `ghosts` in round 1.

    Team play: 4 seats a table; each ghost joins a different team, in seat 3 or 4, so no ghost
    partners a ghost and seat 1 (the first scorekeeper) is always a real player. Ghosts go to
    the bottom tables first, away from the head table that rings the bell.
    Individual play: the players split as evenly as possible, 2 to 4 a table.
    """
    if len(set(players) | set(ghosts)) != len(players) + len(ghosts):
        raise ValueError("every player and ghost needs a distinct id")
    if len(players) < 4:
        raise ValueError("a party needs at least 4 players")
    tables = tables_needed(len(players) + len(ghosts))
    if rules.team_size == 1:
        if ghosts:
            raise ValueError("individual play has no ghosts")
        sizes = [len(players) // tables + (i < len(players) % tables) for i in range(tables)]
        seating, start = [], 0
        for size in sizes:
            seating.append(list(players[start : start + size]))
            start += size
        return seating
    if len(ghosts) != ghosts_needed(len(players), rules):
        raise ValueError(f"{len(players)} players need {ghosts_needed(len(players), rules)} ghosts")
    seating: list[list[str | None]] = [[None] * 4 for _ in range(tables)]
    for k, ghost in enumerate(ghosts):
        table = tables - 1 - k % tables
        team = (k // tables) % 2  # 0: seats 1 and 3, 1: seats 2 and 4
        seating[table][2 + team] = ghost
    remaining = iter(players)
    return [[seat if seat is not None else next(remaining) for seat in table] for table in seating]


def seating_problem(seating: list[list[str]], ghosts: frozenset[str], rules: Rules) -> str | None:
    """Why a seating the host arranged cannot be played, or None when it can."""
    if rules.team_size == 1:
        if any(not 2 <= len(table) <= 4 for table in seating):
            return "Every table needs 2 to 4 players."
        return None
    if any(len(table) != 4 for table in seating):
        return "Every table needs 4 seats."
    for number, table in enumerate(seating, start=1):
        for a, b in ((0, 2), (1, 3)):
            if table[a] in ghosts and table[b] in ghosts:
                return (
                    f"Two ghosts would be partners at table {number}; "
                    "a ghost needs a real partner."
                )
    return None
