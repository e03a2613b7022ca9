"""A round across all tables: which bell ends it where, and when it is over."""

from scoring import PRESETS, Rules
from scoring.round import RoundState, replay_round
from scoring.table import Bell, RollFact

SEATING = [["a1", "a2", "a3", "a4"], ["b1", "b2", "b3", "b4"], ["c1", "c2", "c3", "c4"]]
MISS = RollFact((1, 1, 4))


def test_a_head_table_bell_ends_the_round_everywhere_after_the_turns_under_way():
    state = RoundState.start(SEATING, Rules(), 3)
    state = state.roll(2, RollFact((3, 1, 1)))  # table 2 is in the middle of a turn
    state = state.roll(3, MISS)  # table 3 is between turns
    state = state.roll(1, RollFact((3, 3, 3)))  # a Bunco at the head table rings the bell
    assert state.bell and state.bell_table == 1
    assert state.tables[0].finishing and state.tables[1].finishing
    # At table 3 the dice had just passed to c2, who holds them at the bell: c2 finishes too.
    assert state.tables[2].finishing and state.tables[2].roller == "c2"
    state = state.roll(3, MISS)
    assert state.tables[2].rolloff_needed  # 0 to 0: a roll-off
    state = state.roll(1, MISS).roll(2, MISS)
    assert state.winners == (0, 0, None) and not state.over
    for _ in range(4):
        state = state.roll(3, MISS)
    state = state.roll(3, RollFact((3, 1, 1))).roll(3, MISS).roll(3, MISS).roll(3, MISS)
    assert not state.over  # everyone rolls once before the roll-off is decided
    state = state.roll(3, MISS)
    assert state.over and state.winners == (0, 0, 0)


def test_a_bunco_at_another_table_ends_nothing_under_the_standard_rules():
    state = RoundState.start(SEATING, Rules(), 3).roll(2, RollFact((3, 3, 3)))
    assert not state.bell and not any(t.done or t.finishing for t in state.tables)
    assert state.last_bunco == "b1"


def test_under_boxed4_a_bunco_at_another_table_ends_everything():
    state = RoundState.start(SEATING, PRESETS["boxed4"], 3)
    state = state.roll(1, RollFact((3, 1, 1, 1)))
    state = state.roll(3, RollFact((3, 3, 3, 3)))
    assert state.bell and state.bell_table == 3
    assert state.tables[2].winner == 0  # the Bunco's team wins there at once
    assert state.tables[0].finishing  # the head table finishes its turn
    # Table 2 had entered no roll: its scorekeeper holds the dice and finishes that turn.
    assert state.tables[1].finishing and state.tables[1].roller == "b1"
    state = state.roll(2, RollFact((1, 1, 4, 5)))
    assert state.tables[1].rolloff_needed  # 0 to 0
    state = state.roll(1, RollFact((1, 1, 4, 5)))
    assert state.tables[0].winner == 0


def test_each_table_play_ends_the_round_when_every_table_has_a_winner():
    state = RoundState.start(SEATING[:2], PRESETS["quick"], 2)
    state = state.roll(2, RollFact((2, 2, 2)))
    assert state.tables[1].winner == 0 and not state.bell and not state.over
    state = state.roll(1, MISS).roll(1, RollFact((2, 2, 2)))
    assert state.over and state.winners == (1, 0)


def test_a_timed_round_ends_when_the_host_or_clock_rings():
    state = RoundState.start(SEATING, Rules(round_end="timed"), 3)
    state = state.roll(1, RollFact((3, 3, 3))).roll(1, RollFact((3, 3, 3)))
    assert state.tables[0].points == (42, 0) and not state.bell
    state = state.ring_bell()
    assert state.bell and state.bell_table is None and state.tables[0].finishing


def test_a_traveling_die_goes_to_the_latest_taker_in_the_room():
    state = RoundState.start(SEATING, PRESETS["wba"], 3)
    state = state.roll(2, RollFact((3, 3, 3))).roll(3, RollFact((3, 3, 3)))
    assert state.fuzzy_die == "c1" and state.last_bunco == "c1"


def test_replay_round_folds_table_rolls_and_bells_in_order():
    facts = [(2, RollFact((3, 1, 1))), Bell(), (2, MISS), (1, MISS)]
    state = replay_round(SEATING, Rules(), 3, facts)
    assert state.bell and state.tables[1].winner == 0 and state.tables[0].rolloff_needed
