"""Invariants of the core, checked with hypothesis over many random games."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import PRESETS, Rules
from scoring.roll import score_roll
from scoring.round import RoundState
from scoring.seating import next_seating, seat_players
from scoring.simulate import simulate
from scoring.table import ROLLOFF, Bell, NotAllowed, RollFact, TableRound

die = st.integers(1, 6)
three_dice = st.tuples(die, die, die)


@given(target=st.integers(1, 6), rolls=st.lists(three_dice, max_size=60))
def test_a_teams_points_are_the_sum_of_its_rolls_points(target, rolls):
    # At a table other than the head table nothing ends the round, so every roll counts.
    table = TableRound.start(("a", "b", "c", "d"), Rules(), target)
    expected, seat = [0, 0], 0
    for dice in rolls:
        score = score_roll(dice, target)
        expected[seat % 2] += score.points
        if not score.keeps_turn:
            seat = (seat + 1) % 4
        table = table.apply(RollFact(dice))
    assert list(table.points) == expected
    assert sum(table.seat_points) == sum(expected)
    assert table.turn_seat == seat + 1


def play_round(rules, tables, target, rng):
    seating = [[f"P{t}{s}" for s in range(4)] for t in range(tables)]
    state = RoundState.start(seating, rules, target)
    dice_total = rules.tie_break == "rolloff_dice_total"
    seen_over_early = False
    while not state.over:
        for n in range(1, tables + 1):
            phase = state.tables[n - 1].phase  # afresh: a bell this pass may have ended it
            if phase == "done":
                continue
            count = 3 if dice_total and phase == ROLLOFF else rules.dice
            state = state.roll(n, RollFact(tuple(rng.randint(1, 6) for _ in range(count))))
            seen_over_early |= state.over and not all(t.done for t in state.tables)
    return state, seen_over_early


rules_with_head_bell = st.sampled_from(
    [
        Rules(),
        Rules(play_to=11),
        Rules(finish_turn_after_bell=False),
        Rules(tie_break="rolloff_dice_total"),
        Rules(bunco_ends_turn=True, mini_bunco_ends_turn=True),
        Rules(dice=4),
    ]
)


@settings(max_examples=60)
@given(
    rules=rules_with_head_bell,
    tables=st.integers(1, 5),
    target=st.integers(1, 6),
    seed=st.integers(0, 2**32),
)
def test_exactly_one_bell_a_round_rung_by_the_head_table(rules, tables, target, seed):
    state, _ = play_round(rules, tables, target, random.Random(seed))
    assert state.bell and state.bell_table == 1
    assert [t.rang_bell for t in state.tables] == [True] + [False] * (tables - 1)


@settings(max_examples=60)
@given(
    preset=st.sampled_from(["standard", "quick", "short", "boxed4", "wba"]),
    tables=st.integers(1, 5),
    target=st.integers(1, 6),
    seed=st.integers(0, 2**32),
)
def test_every_table_is_done_with_a_winner_before_the_round_ends(preset, tables, target, seed):
    state, seen_over_early = play_round(PRESETS[preset], tables, target, random.Random(seed))
    assert not seen_over_early
    assert all(t.done and t.winner in (0, 1) for t in state.tables)
    for n in range(1, tables + 1):
        try:
            state.roll(n, RollFact((1,) * PRESETS[preset].dice))
        except NotAllowed:
            continue
        raise AssertionError(f"table {n} took a roll after the round ended")


@st.composite
def a_round_to_move(draw):
    tables = draw(st.integers(1, 7))
    players = draw(st.integers(max(4, 4 * tables - 3), 4 * tables))
    names = [f"P{i}" for i in range(players)]
    draw(st.randoms(use_true_random=False)).shuffle(names)
    seating, ghosts = seat_players(names, Rules())
    winners = draw(st.lists(st.integers(0, 1), min_size=tables, max_size=tables))
    rotation = draw(
        st.sampled_from(["ladder", "head_losers_to_bottom", "losers_down_wrap", "none"])
    )
    partners = draw(st.sampled_from(["new_every_round", "movers_keep_partners"]))
    return seating, winners, Rules(rotation=rotation, partners=partners), ghosts


def partners_of(seating):
    pairs = set()
    for t in seating:
        pairs |= {frozenset((t[0], t[2])), frozenset((t[1], t[3]))}
    return pairs


@settings(max_examples=300)
@given(a_round_to_move())
def test_next_seating_keeps_everyone_seated_once_at_tables_of_4(case):
    seating, winners, rules, ghosts = case
    new = next_seating(seating, winners, rules, ghosts)
    assert len(new) == len(seating) and all(len(t) == 4 for t in new)
    assert sorted(p for t in new for p in t) == sorted(p for t in seating for p in t)
    for pair in partners_of(new):
        assert not pair <= ghosts, "two ghosts are partners"
    head_winners = {seating[0][winners[0]], seating[0][winners[0] + 2]}
    assert head_winners <= set(new[0])  # head winners stay at the head table, in every scheme
    if rules.partners == "new_every_round":
        assert not partners_of(new) & partners_of(seating), "someone kept a partner"
    else:
        # A pair that stayed at its table still splits up.
        for i, table in enumerate(seating):
            for side in (0, 1):
                pair = frozenset((table[side], table[side + 2]))
                if pair <= set(new[i]):
                    assert pair not in partners_of([new[i]])


@settings(max_examples=15, deadline=None)
@given(
    players=st.sampled_from([4, 5, 8, 11, 12, 16, 23]),
    preset=st.sampled_from(["standard", "wba", "quick", "short", "boxed4", "tournament"]),
    seed=st.integers(0, 10_000),
)
def test_wins_plus_losses_equal_the_rounds_played_for_every_player(players, preset, seed):
    document = simulate(players, preset, 1, seed)
    rounds = len(document["rounds"])
    assert rounds == 6
    for entry in document["players"].values():
        assert entry["wins"] + entry["losses"] == rounds


@given(
    target=st.integers(1, 6),
    rolls=st.lists(three_dice, max_size=30),
    late=st.integers(0, 30),
    finish=st.booleans(),
)
def test_rolls_made_before_the_bell_count_as_if_entered_before_it(target, rolls, late, finish):
    # A phone a few rolls behind: the last `late` rolls were made before the bell but reach
    # the table after it. Played as before-bell rolls, the table ends as if all had come first.
    rules = Rules(finish_turn_after_bell=finish)
    start = TableRound.start(("a", "b", "c", "d"), rules, target)
    cut = max(0, len(rolls) - late)
    on_time = start
    for dice in rolls:
        on_time = on_time.apply(RollFact(dice))
    on_time = on_time.apply(Bell())
    entered = start
    for dice in rolls[:cut]:
        entered = entered.apply(RollFact(dice))
    entered = entered.apply(Bell())
    for dice in rolls[cut:]:
        entered = entered.before_bell(RollFact(dice))
    assert entered.points == on_time.points
    assert entered.phase == on_time.phase and entered.turn == on_time.turn
    assert entered.seat_buncos == on_time.seat_buncos


@given(target=st.integers(1, 6), rolls=st.lists(st.tuples(three_dice, st.integers(0, 3)),
                                                max_size=40))
def test_a_roll_handed_to_a_player_is_scored_as_that_players(target, rolls):
    # Whoever a roll is entered for, it goes on their sheet and their team's points.
    seats = ("a", "b", "c", "d")
    table = TableRound.start(seats, Rules(), target)
    personal = dict.fromkeys(seats, 0)
    for dice, who in rolls:
        table = table.handed_to(seats[who])
        assert table.roller == seats[who]
        personal[seats[who]] += score_roll(dice, target).points
        table = table.apply(RollFact(dice))
    assert table.personal_points == personal
    assert table.points == (personal["a"] + personal["c"], personal["b"] + personal["d"])
