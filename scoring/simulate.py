"""A seeded simulator that plays whole parties through the core and prints one JSON document.

    python -m scoring.simulate --players 12 --preset standard --sets 4 --seed 1

The dice come from `random.Random(seed)`, here and nowhere else in scoring/, so the same
arguments always print the same document. Everyone always calls their Buncos. Timed rounds
stand in for the clock with a budget of rolls a table (4 a minute of `round_minutes`).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import sys
import time

from scoring.party import Progress, ScoreSheet, record_round
from scoring.prizes import award_prizes
from scoring.round import RoundState
from scoring.rules import PRESETS, PRIZE_CATEGORIES, Rules
from scoring.seating import SeatingError, next_seating, seat_players
from scoring.table import ROLLOFF, RollFact

ROLLS_A_MINUTE = 4


def party_rules(preset: str, sets: int | None) -> Rules:
    rules = PRESETS[preset]
    if sets is None:
        return rules
    # A shorter night drops a break that would fall after its last set.
    brk = rules.break_after_set if rules.break_after_set < sets else 0
    return dataclasses.replace(rules, sets=sets, break_after_set=brk)


def simulate(players: int, preset: str, sets: int | None, seed: int) -> dict:
    """Play one party and return the JSON-ready document."""
    rules = party_rules(preset, sets)
    rng = random.Random(seed)
    rand = rng.random
    ids = [f"P{i + 1}" for i in range(players)]
    seating, ghosts = seat_players(ids, rules)
    sheets: dict[str, ScoreSheet] = {p: ScoreSheet() for t in seating for p in t}
    progress = Progress(rules)
    rounds = []
    last_bunco = fuzzy_die = None
    budget = ROLLS_A_MINUTE * rules.round_minutes if rules.round_end == "timed" else None
    dice_total = rules.tie_break == "rolloff_dice_total"
    while progress.state != "over":
        if progress.state == "break":
            progress = progress.resume()  # the host comes back from the break at once
        state = RoundState.start(seating, rules, progress.target, ghosts=ghosts)
        tick = 0
        while not state.over:
            if tick == budget:
                state = state.ring_bell()
            for number in range(1, len(state.tables) + 1):
                # Read the table afresh: a bell rung earlier in this pass may have ended it.
                phase = state.tables[number - 1].phase
                if phase == "done":
                    continue
                count = 3 if dice_total and phase == ROLLOFF else rules.dice
                if count == 3:
                    dice = (int(rand() * 6) + 1, int(rand() * 6) + 1, int(rand() * 6) + 1)
                else:
                    dice = tuple(int(rand() * 6) + 1 for _ in range(count))
                state = state.roll(number, RollFact(dice))
            tick += 1
        rounds.append(_round_entry(progress, state))
        for table in state.tables:
            sheets = record_round(sheets, table)
        last_bunco = state.last_bunco or last_bunco
        fuzzy_die = state.fuzzy_die or fuzzy_die
        if rules.team_size == 2:
            winners = [t.winner for t in state.tables]
            seating = next_seating(seating, winners, rules, ghosts)
        progress = progress.round_over()
    prizes = award_prizes(
        sheets,
        rules,
        ghosts=ghosts,
        last_bunco=last_bunco,
        fuzzy_die=fuzzy_die,
        categories=PRIZE_CATEGORIES,
    )
    return {
        "rounds": rounds,
        "players": {p: _player_entry(sheets[p], p in ghosts) for p in _in_order(sheets)},
        "prizes": {k: list(v) for k, v in prizes.items()},
    }


def _round_entry(progress: Progress, state: RoundState) -> dict:
    return {
        "set": progress.bunco_set,
        "round": progress.round,
        "target": progress.target,
        "tables": [
            {
                "table": number,
                "seats": list(table.seats),
                "team_points": list(table.points),
                "winner": table.winner,
                "rolloff": table.rolloff is not None,
                "rolls": table.rolls,
            }
            for number, table in enumerate(state.tables, start=1)
        ],
    }


def _player_entry(sheet: ScoreSheet, ghost: bool) -> dict:
    return {
        "wins": sheet.wins,
        "losses": sheet.losses,
        "buncos": sheet.buncos,
        "mini_buncos": sheet.mini_buncos,
        "points": sheet.points,
        "ghost": ghost,
    }


def _in_order(sheets: dict) -> list[str]:
    # P1, P2 ... P10, then G1 ...: numeric order, players before ghosts.
    return sorted(sheets, key=lambda p: (p[0] != "P", int(p[1:]) if p[1:].isdigit() else 0, p))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scoring.simulate", description=__doc__)
    parser.add_argument("--players", type=int, default=12)
    parser.add_argument("--preset", choices=sorted(PRESETS), default="standard")
    parser.add_argument("--sets", type=int, default=None, help="default: the preset's")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--parties",
        type=int,
        default=1,
        help="play this many (seeds K, K+1, ...) and print "
        "only the last, with the speed on stderr: for load and timing runs",
    )
    args = parser.parse_args(argv)
    started = time.perf_counter()
    try:
        for k in range(args.parties):
            document = simulate(args.players, args.preset, args.sets, args.seed + k)
    except SeatingError as error:  # e.g. 12 players on the boxed plans, which seat 2 to 10
        print(f"python -m scoring.simulate: {error}", file=sys.stderr)
        return 2
    elapsed = time.perf_counter() - started
    json.dump(document, sys.stdout, indent=1)
    sys.stdout.write("\n")
    if args.parties > 1:
        rate = args.parties / elapsed
        print(f"{args.parties} parties in {elapsed:.2f} s: {rate:.1f} a second", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
