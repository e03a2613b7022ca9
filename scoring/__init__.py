"""The rules of Bunco as a pure core: options, scoring, table and round state, seating, prizes.

No Django, I/O, randomness or clock lives here; the simulator (`python -m scoring.simulate`)
owns its seeded dice. Sides: at a team table side 0 is seats 1+3 and side 1 seats 2+4; at a
table of players alone (`team_size=1`, or a boxed plan's table of 2 or 3 and its one-table
game) each seat is its own side (`TableRound.alone`). Seats in the API are 1-based.

Rules (scoring.rules)
    Rules(...)                      frozen; every docs/rules.md option is a field with a default
                                    (`Rules()` is standard) and metadata {"help", "choices"}.
                                    Wrong types, ranges or contradictions raise RulesError.
    Rules.to_options() -> dict      JSON-ready; Rules.from_options(d) -> Rules (unknown keys
                                    raise, missing keys take defaults, lists ok for prizes).
    PRESETS, PRESET_HELP            name -> Rules, name -> one line for the host.
    PRESET_TITLES                   name -> what a person reads ("World Bunco Association").
    PRIZE_CATEGORIES                the section 9 keys, in order.

One roll (scoring.roll)
    score_roll(dice, target, rules=PRESETS["standard"], called=True) -> RollScore
        RollScore(points, kind, keeps_turn, takes_fuzzy_die); kind is "bunco", "mini_bunco",
        "points" or "miss". Bad dice or target raise InvalidRoll (a ValueError).

A table's round (scoring.table): a pure fold over facts
    RollFact(dice: tuple, called=True)  a roll as a fact.   Bell()  the round ends from outside.
    TableRound.start(seats, rules, target, *, head=False, ghosts=frozenset(), first_seat=1,
                     alone=None)    alone: every seat its own side (None: from the rules)
    table.apply(fact) -> TableRound raises InvalidRoll or NotAllowed (a ValueError), e.g. a
                                    roll after the table is done; table.check(fact) only checks.
    table.bell_rung() -> TableRound the bell from outside: the player holding the dice
                                    finishes their turn (finish_turn_after_bell), even before
                                    its first roll is entered; else the table stops at once.
    table.before_bell(RollFact)         a roll made before the bell, entered after it: played on
                                    the table as it stood at the bell (`unbelled`, while no
                                    roll was made since; `at_bell` keeps it for good).
    replay(seats, rules, target, facts, *, head, ghosts, first_seat, alone) -> TableRound
    Questions: turn_seat, roller (a ghost's partner on its turn), points (per side), sides
    (each side's seats), dice_needed (3 in a dice-total roll-off, None once done),
    personal_points / buncos / mini_buncos (player -> n, ghosts left out), rang_bell,
    finishing, rolloff_needed, rolloff (RollOff), done, winner (side), winners, losers,
    rolls, last (Outcome: seat, roller, score, rang_bell, turn_passed, rolloff_total).
    side_seats(size, alone) -> ((seat, ...), ...)   who plays with whom, each side's seats.
    partner_seat(seat, alone) -> seat | None        across the table; None at a table alone.

A round across tables (scoring.round)
    RoundState.start(seating, rules, target, *, ghosts=frozenset(), first_seats=None)
    round.roll(table, RollFact, before_bell=False) -> RoundState
                                        a roll that rings the bell rings it at every table.
    round.ring_bell() -> RoundState          the host's bell or the clock (timed rounds).
    round.apply((table, RollFact) | Bell()); replay_round(seating, rules, target, facts, ...)
    Questions: over, winners, bell, bell_table, last_bunco, fuzzy_die, tables.

Seating (scoring.seating)
    seat_players(players, rules, ghost_names=()) -> (seating, ghosts)   round 1.
    next_seating(seating, winners, rules, ghosts=frozenset()) -> list[list[str]]
    check_seating(seating, rules, ghosts=frozenset())   raises SeatingError unless playable.
    ghost_swap(seating, rules, ghosts, ghost) -> player | None   who gives a new ghost a partner.
    tables_needed(players) -> int; ghosts_needed(players, rules) -> int.
    plan_for(players, rules) -> (TablePlan(size, alone), ...)   the tables a count sits at.
    tables_alone(seating, rules) -> (bool, ...)   which tables play alone.
    small_group="boxed_plans" (scoring.small_groups): the boxed set's plans for 2 to 10.

The party (scoring.party) and prizes (scoring.prizes)
    Progress(rules): bunco_set, round, target, state ("playing" | "break" | "over");
        round_over(), resume(), end_early() -> Progress (NotAllowed when the party cannot).
    schedule(rules) -> [(set, round, target)]
    ScoreSheet(marks, buncos, mini_buncos, points) with wins, losses;
        round_sheets(done_table) -> dict[player, ScoreSheet]   that table's round alone;
        record_round(sheets, done_table) -> dict[player, ScoreSheet]
    award_prizes(sheets, rules, *, ghosts, last_bunco, fuzzy_die, categories=None)
        -> {category: tuple of winners}; several winners = a tie to roll off.
    settle_tie(totals) -> the players with the highest roll-off total.
    settle_prize(tied, {circuit: totals}) -> (winners, next circuit or None)   every circuit.

Words for people (scoring.messages, scoring.rules_text)
    Every error above is a RuleError (a ValueError): `msgid` (English, named placeholders,
    marked by gettext_noop for makemessages) and `params`; str(error) == msgid % params.
    rules_sentences(rules, tables, tied_prize, *, gettext, ngettext) -> [(heading, text)]
                                    the rule sheet, in the language of the gettext passed.
"""

from scoring.party import Progress, ScoreSheet, record_round, round_sheets, schedule
from scoring.prizes import award_prizes, settle_prize, settle_tie
from scoring.roll import InvalidRoll, RollScore, score_roll
from scoring.round import RoundState, replay_round
from scoring.rules import PRESET_HELP, PRESET_TITLES, PRESETS, PRIZE_CATEGORIES, Rules, RulesError
from scoring.seating import (
    SeatingError,
    check_seating,
    ghost_swap,
    ghosts_needed,
    next_seating,
    seat_players,
    tables_needed,
)
from scoring.table import (
    Bell,
    NotAllowed,
    Outcome,
    RollFact,
    RollOff,
    TableRound,
    partner_seat,
    replay,
    side_seats,
)

__all__ = [
    "PRESETS",
    "PRESET_HELP",
    "PRESET_TITLES",
    "PRIZE_CATEGORIES",
    "Bell",
    "InvalidRoll",
    "NotAllowed",
    "Outcome",
    "Progress",
    "RollFact",
    "RollOff",
    "RollScore",
    "RoundState",
    "Rules",
    "RulesError",
    "ScoreSheet",
    "SeatingError",
    "TableRound",
    "award_prizes",
    "next_seating",
    "check_seating",
    "ghost_swap",
    "ghosts_needed",
    "tables_needed",
    "partner_seat",
    "record_round",
    "round_sheets",
    "replay",
    "replay_round",
    "schedule",
    "score_roll",
    "seat_players",
    "settle_prize",
    "settle_tie",
    "side_seats",
]
