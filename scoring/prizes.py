"""End-of-night prizes from the players' score sheets (docs/rules.md section 9)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from scoring.party import ScoreSheet, standing
from scoring.rules import Rules


def award_prizes(
    sheets: Mapping[str, ScoreSheet],
    rules: Rules,
    *,
    ghosts: frozenset[str] = frozenset(),
    last_bunco: str | None = None,
    fuzzy_die: str | None = None,
    categories: tuple[str, ...] | None = None,
) -> dict[str, tuple[str, ...]]:
    """Each category's winners: one player, several tied (to settle by roll-off), or none.

    `categories` defaults to the host's `rules.prizes`. Ghosts win nothing, and nor does a
    player with no round on their sheet yet (before the first round closes, nobody has won
    "most wins": all tied at 0 is not a tie to roll off). A "most" prize with nobody above 0
    (no Buncos rolled all night) has no winner.
    """
    players = {p: s for p, s in sheets.items() if p not in ghosts and s.marks}
    chosen = rules.prizes if categories is None else categories

    def most(key: Callable[[ScoreSheet], object], *, at_least_one: bool = False) -> tuple:
        return _best(players, key, max, at_least_one)

    def only(player: str | None) -> tuple[str, ...]:
        return (player,) if player is not None and player in players else ()

    overall = most(lambda s: standing(s, rules))
    deciders = {
        "most_wins": lambda: most(lambda s: s.wins),
        "most_buncos": lambda: most(lambda s: s.buncos, at_least_one=True),
        "most_losses": lambda: most(lambda s: s.losses),
        "most_mini_buncos": lambda: most(lambda s: s.mini_buncos, at_least_one=True),
        "even_wins_losses": lambda: tuple(
            sorted(p for p, s in players.items() if s.marks and s.wins == s.losses)
        ),
        "last_bunco": lambda: only(last_bunco),
        "traveling": lambda: only(fuzzy_die),
        "highest_points": lambda: most(lambda s: s.points),
        "lowest_points": lambda: _best(players, lambda s: s.points, min, False),
        "overall": lambda: overall,
    }
    return {category: deciders[category]() for category in chosen}


def _best(players, key, pick, at_least_one: bool) -> tuple[str, ...]:
    if not players:
        return ()
    best = pick(key(s) for s in players.values())
    if at_least_one and not best:
        return ()
    return tuple(sorted(p for p, s in players.items() if key(s) == best))


def settle_tie(totals: Mapping[str, int]) -> tuple[str, ...]:
    """A prize roll-off: each tied player's three-dice total; those still tied roll again."""
    if not totals:
        return ()
    best = max(totals.values())
    return tuple(sorted(p for p, t in totals.items() if t == best))


def settle_prize(
    tied: Sequence[str], circuits: Mapping[int, Mapping[str, int]]
) -> tuple[tuple[str, ...], int | None]:
    """A prize's winners once its roll-off circuits so far are applied, and the circuit to
    roll next (None once one winner is left, or none was tied). `circuits` maps circuit 1, 2...
    to each player's three-dice total; a circuit counts only once every player still tied has
    a total in it, and only they (section 9: those still level throw again)."""
    winners, circuit = tuple(tied), 1
    while len(winners) > 1:
        totals = circuits.get(circuit, {})
        if set(totals) != set(winners):
            return winners, circuit
        winners = settle_tie(totals)
        circuit += 1
    return winners, None
