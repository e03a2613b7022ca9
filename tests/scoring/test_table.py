"""A table's round: the seeds' worked examples, the bell, finishing turns, roll-offs, ghosts."""

import pytest

from scoring import PRESETS, Rules
from scoring.roll import InvalidRoll
from scoring.table import Bell, NotAllowed, RollFact, TableRound, replay

SEATS = ("ann", "bea", "cal", "dot")  # ann and cal are partners, bea and dot the other team
MISS = (1, 1, 4)  # a miss whenever the target is 2, 3, 5 or 6


def play(table, *rolls):
    for dice in rolls:
        table = table.apply(RollFact(tuple(dice)))
    return table


def test_seed_000_one_turn_in_round_3_scores_7_and_passes_left():
    table = TableRound.start(SEATS, Rules(), 3)
    table = play(table, (3, 5, 3))
    assert (table.points, table.turn_seat) == ((2, 0), 1)
    table = play(table, (6, 6, 6))
    assert (table.points, table.mini_buncos["ann"], table.turn_seat) == ((7, 0), 1, 1)
    table = play(table, (1, 4, 2))
    assert (table.points, table.turn_seat, table.roller) == ((7, 0), 2, "bea")


def test_seed_000_your_teams_round_is_29_and_wins_against_14():
    # Round 2 at table 2: you in seat 1, Sam across in seat 3.
    table = TableRound.start(("you", "opp1", "sam", "opp2"), Rules(), 2)
    table = play(table, (2, 2, 5), (2, 4, 6), (4, 4, 4), (1, 3, 6))
    assert table.points == (8, 0)
    table = play(table, (2, 2, 1), (5, 5, 5), (2, 1, 1), (3, 3, 3), (2, 4, 4), (1, 3, 4))
    assert table.points == (8, 14)
    table = play(table, (2, 2, 2))
    assert table.points == (29, 14) and table.last.score.kind == "bunco"
    assert table.turn_seat == 3  # Sam called it and rolls again
    table = play(table, (3, 5, 6))
    table = table.apply(Bell())  # the head table rang; opp2 holds the dice and finishes
    assert table.finishing and table.roller == "opp2"
    table = play(table, (1, 3, 6))
    assert table.done and table.points == (29, 14)
    assert table.winner == 0 and set(table.winners) == {"you", "sam"}
    assert table.buncos == {"you": 0, "opp1": 0, "sam": 1, "opp2": 0}
    assert table.personal_points["you"] == 8 and table.personal_points["sam"] == 21


def nora_reaches_16(head):
    # Target 5 at table 2: the teal team (Nora in seat 2, partner Pat in seat 4) starts at 9.
    table = TableRound.start(("x1", "nora", "x2", "pat"), Rules(), 5, head=head)
    table = play(table, MISS, MISS, MISS, (4, 4, 4), (5, 1, 1), (5, 5, 2), (5, 3, 3), MISS, MISS)
    assert table.points == (0, 9) and table.roller == "nora"
    table = play(table, (5, 5, 1))
    assert table.points[1] == 11
    table = play(table, (2, 2, 2))
    assert table.points[1] == 16
    table = play(table, (1, 3, 6))
    assert table.points[1] == 16 and table.roller == "x2"
    assert table.personal_points["nora"] == 7
    return play(table, MISS)


def test_seed_002_target_5_at_table_2_reaches_37_and_rings_no_bell():
    table = play(nora_reaches_16(head=False), (5, 5, 5))
    assert table.points == (0, 37)
    assert table.buncos["pat"] == 1 and table.buncos["nora"] == 0
    assert table.roller == "pat" and not table.last.turn_passed  # the roller continues
    assert not table.rang_bell and not table.last.rang_bell and not table.finishing


def test_the_same_bunco_at_the_head_table_rings_the_bell():
    table = play(nora_reaches_16(head=True), (5, 5, 5))
    assert table.last.rang_bell and table.rang_bell and table.finishing


def head_team_on_20():
    table = TableRound.start(SEATS, Rules(), 5, head=True)
    table = play(table, (2, 2, 2), (3, 3, 3), (4, 4, 4), (6, 6, 6))
    assert table.points == (20, 0) and not table.rang_bell
    return table


def test_seed_002_boundary_a_head_team_on_20_reaching_21_rings_the_bell():
    table = play(head_team_on_20(), (5, 1, 3))
    assert table.points == (21, 0)
    assert table.last.rang_bell and table.rang_bell and not table.done


def test_the_bell_ringer_finishes_the_turn_and_those_points_count():
    table = play(head_team_on_20(), (5, 1, 3))
    assert table.finishing and table.roller == "ann"
    table = play(table, (5, 5, 2))
    assert table.points == (23, 0) and table.finishing
    table = play(table, MISS)
    assert table.done and table.winner == 0 and table.points == (23, 0)
    assert table.personal_points["ann"] == 23
    with pytest.raises(NotAllowed, match="over"):
        table.apply(RollFact((5, 5, 5)))


def test_without_finishing_turns_the_bell_stops_the_table_at_once():
    table = TableRound.start(SEATS, Rules(finish_turn_after_bell=False), 5, head=True)
    table = play(table, (2, 2, 2), (3, 3, 3), (4, 4, 4), (6, 6, 6), (5, 1, 3))
    assert table.done and table.rang_bell and table.winner == 0


def test_a_bunco_that_ends_the_turn_and_rings_the_bell_leaves_the_table_done():
    rules = Rules(bunco_ends_turn=True)
    table = play(TableRound.start(SEATS, rules, 5, head=True), (5, 5, 5))
    assert table.rang_bell and table.done and table.winner == 0


def test_at_other_tables_passing_21_ends_nothing():
    table = play(TableRound.start(SEATS, Rules(), 3), (3, 3, 3), (3, 3, 1))
    assert table.points == (23, 0) and not table.rang_bell and not table.done


def test_a_bell_from_outside_finishes_a_turn_under_way():
    table = play(TableRound.start(SEATS, Rules(), 3), (3, 1, 1)).apply(Bell())
    assert table.finishing and table.roller == "ann"
    table = play(table, (3, 3, 1), MISS)
    assert table.done and table.points == (3, 0) and table.winner == 0


def test_a_bell_between_turns_is_finished_by_whoever_holds_the_dice():
    # RULES 2.4: the turn in progress is that of the player holding the dice, even before the
    # first of its rolls has been entered (the scorekeeper may be a few seconds behind).
    table = play(TableRound.start(SEATS, Rules(), 3), (3, 1, 1), MISS, (3, 3, 1), MISS)
    table = table.apply(Bell())
    assert table.finishing and table.roller == "cal"
    table = play(table, MISS)
    assert table.done and table.points == (1, 2) and table.winner == 1
    assert set(table.losers) == {"ann", "cal"}


def test_a_second_bell_changes_nothing():
    table = play(TableRound.start(SEATS, Rules(), 3), (3, 1, 1)).apply(Bell())
    assert table.apply(Bell()) == table


def test_each_table_play_wins_at_once_on_reaching_the_score():
    table = TableRound.start(SEATS, PRESETS["quick"], 3)
    table = play(table, MISS, (3, 3, 3))  # bea's Bunco wins the round there on the spot
    assert table.done and table.winner == 1 and table.points == (0, 21)
    assert not table.rang_bell  # each table ends alone; nothing rings for the others


def test_short_rounds_end_at_11():
    table = play(TableRound.start(SEATS, PRESETS["short"], 5, head=True), (2, 2, 2), (3, 3, 3))
    assert not table.rang_bell
    table = play(table, (5, 1, 1))
    assert table.points == (11, 0) and table.rang_bell


def test_boxed4_a_bunco_at_any_table_wins_there_and_rings_for_everyone():
    table = play(TableRound.start(SEATS, PRESETS["boxed4"], 3), (3, 3, 3, 3))
    assert table.done and table.winner == 0 and table.rang_bell


def test_a_tie_at_the_end_goes_to_a_roll_off_of_turns():
    table = play(TableRound.start(SEATS, Rules(), 3), (3, 1, 1), MISS, (3, 1, 1), MISS)
    table = play(table.apply(Bell()), MISS)  # ann held the dice at the bell
    assert table.rolloff_needed and table.winner is None and table.points == (1, 1)
    assert table.turn_seat == 1  # the scorekeeper starts
    table = play(table, (3, 3, 3), MISS)  # ann: a Bunco in the roll-off, then a miss
    table = play(table, MISS, MISS)  # bea and cal score nothing
    assert table.rolloff_needed and table.turn_seat == 4
    table = play(table, (3, 1, 1), (3, 3, 1), MISS)  # dot scores 3: still behind 21
    assert table.done and table.winner == 0
    assert table.points == (1, 1)  # roll-off points decide the tie only
    assert table.personal_points == {"ann": 1, "bea": 1, "cal": 0, "dot": 0}
    assert table.buncos["ann"] == 1  # but the Bunco is still tallied


def test_a_roll_off_still_tied_after_everyone_has_rolled_goes_around_again():
    table = play(play(TableRound.start(SEATS, Rules(), 3), MISS).apply(Bell()), MISS)
    assert table.rolloff_needed
    table = play(table, MISS, MISS, MISS, MISS)
    assert table.rolloff_needed and table.rolloff.circuit == 2 and table.turn_seat == 1
    table = play(table, MISS, (3, 1, 1), MISS, MISS, MISS)
    assert table.winner == 1


def test_a_dice_total_roll_off_is_won_by_the_higher_total_and_repeats_while_equal():
    rules = Rules(tie_break="rolloff_dice_total")
    table = play(play(TableRound.start(SEATS, rules, 3), MISS).apply(Bell()), MISS)
    assert table.rolloff_needed and table.turn_seat == 1
    table = play(table, (6, 2, 2))
    assert table.turn_seat == 2
    table = play(table, (5, 4, 1))  # 10 and 10: again
    assert table.rolloff_needed and table.rolloff.circuit == 2
    table = play(table, (3, 3, 4), (6, 5, 1))  # seed 002: totals 10 and 12
    assert table.done and table.winner == 1
    assert table.buncos == {p: 0 for p in SEATS} and table.points == (0, 0)


def test_a_dice_total_roll_off_throws_three_dice_even_in_the_four_dice_game():
    rules = Rules(dice=4, tie_break="rolloff_dice_total")
    table = play(TableRound.start(SEATS, rules, 3).apply(Bell()), (1, 2, 4, 5))
    with pytest.raises(InvalidRoll, match="3 dice"):
        table.apply(RollFact((1, 2, 3, 4)))
    assert play(table, (6, 6, 6), (1, 1, 1)).winner == 0


def test_on_a_ghosts_turn_its_partner_rolls_and_keeps_the_bunco():
    table = TableRound.start(("ann", "bea", "cal", "G1"), Rules(), 2, ghosts=frozenset({"G1"}))
    table = play(table, MISS, MISS, MISS)
    assert table.turn_seat == 4 and table.roller == "bea"
    table = play(table, (2, 2, 2), MISS)
    assert table.points == (0, 21)
    assert table.buncos == {"ann": 0, "bea": 1, "cal": 0}  # no sheet for the ghost
    assert table.personal_points["bea"] == 21
    assert table.last.seat == 4 and table.last.roller == "bea"


def test_two_ghosts_may_not_be_partners():
    with pytest.raises(NotAllowed, match="ghosts"):
        TableRound.start(("ann", "G1", "cal", "G2"), Rules(), 2, ghosts=frozenset({"G1", "G2"}))


def test_individual_play_scores_each_seat_and_the_clock_ends_it():
    rules = PRESETS["tournament"]
    table = TableRound.start(("ann", "bea", "cal"), rules, 5)
    table = play(table, (5, 5, 1), (5, 1, 1), MISS)
    table = play(table, (5, 5, 5))  # Big BUNCO: 21, then the dice pass
    assert table.points == (3, 21, 0) and table.roller == "cal"
    table = table.apply(RollFact((2, 2, 2), called=False))  # a Little BUNCO not called: 0
    assert table.points == (3, 21, 0) and table.roller == "ann"
    table = play(table, (3, 3, 3))  # called: 5, then the dice pass
    assert table.points == (8, 21, 0) and table.roller == "bea"
    assert not table.done  # reaching 21 ends nothing in timed play
    table = play(table.apply(Bell()), MISS)  # bea finishes the turn she holds
    assert table.done and table.winner == 1 and table.winners == ("bea",)


def test_in_individual_play_only_the_tied_leaders_roll_off():
    rules = PRESETS["tournament"]
    table = play(TableRound.start(("ann", "bea", "cal"), rules, 5), (5, 1, 1), MISS, (5, 1, 1))
    table = play(play(table, MISS, MISS).apply(Bell()), MISS)
    assert table.rolloff_needed and table.rolloff.sides == (0, 1)
    assert table.turn_seat == 1
    table = play(table, MISS)
    assert table.roller == "bea"  # cal, not tied for the lead, sits the roll-off out
    table = play(table, (5, 1, 1), MISS)
    assert table.winner == 1


def test_the_scorekeeper_rolls_first_and_may_be_any_seat():
    table = TableRound.start(SEATS, Rules(), 2, first_seat=3)
    assert table.turn_seat == 3 and table.roller == "cal"


@pytest.mark.parametrize(
    "seats, kwargs",
    [
        (("a", "b", "c"), {}),
        (("a", "b", "c", "a"), {}),
        (("a", "b", "c", "d", "e"), {}),
        (("a", "b", "c", "d"), {"first_seat": 5}),
    ],
)
def test_tables_that_cannot_play_are_refused(seats, kwargs):
    with pytest.raises(NotAllowed):
        TableRound.start(seats, Rules(), 2, **kwargs)


def test_replay_folds_the_facts_in_order():
    facts = [RollFact((3, 1, 1)), Bell(), RollFact((3, 3, 1)), RollFact(MISS)]
    table = replay(SEATS, Rules(), 3, facts)
    by_hand = play(play(TableRound.start(SEATS, Rules(), 3), (3, 1, 1)).apply(Bell()), (3, 3, 1))
    assert table == play(by_hand, MISS)
    assert table.done and table.winner == 0 and table.points == (3, 0)


def test_a_bad_roll_leaves_the_table_as_it_was():
    table = TableRound.start(SEATS, Rules(), 3)
    with pytest.raises(InvalidRoll):
        table.apply(RollFact((3, 3)))
    assert table.rolls == 0


# -- a roll made before the bell, entered after it (its phone had not heard the bell) ----------


def test_a_roll_made_before_the_bell_counts_before_it():
    table = play(TableRound.start(SEATS, Rules(), 3), (3, 1, 1), MISS)  # bea holds the dice
    belled = table.apply(Bell())
    late = belled.before_bell(RollFact((3, 3, 1)))  # bea's 2 points, entered a moment late
    assert late.finishing and late.roller == "bea" and late.points == (1, 2)
    assert play(late, MISS).done and play(late, MISS).winner == 1


def test_a_miss_made_before_the_bell_passes_the_dice_and_the_next_holder_finishes():
    table = play(TableRound.start(SEATS, Rules(), 3), (3, 1, 1), MISS)
    late = table.apply(Bell()).before_bell(RollFact(MISS))  # bea's miss came before the bell
    assert late.finishing and late.roller == "cal"
    assert not table.apply(Bell()).apply(RollFact(MISS)).finishing  # as an ordinary roll, it ends the table


def test_several_rolls_made_before_the_bell_are_played_in_their_order():
    table = play(TableRound.start(SEATS, Rules(), 3), MISS).apply(Bell())
    table = table.before_bell(RollFact((3, 3, 1))).before_bell(RollFact((3, 2, 2))).before_bell(RollFact(MISS))
    assert table.points == (0, 3) and table.finishing and table.roller == "cal"


def test_without_finishing_turns_a_late_roll_still_counts_and_the_table_stays_done():
    rules = Rules(finish_turn_after_bell=False)
    table = play(TableRound.start(SEATS, rules, 3), (3, 1, 1), MISS, (3, 1, 1), MISS)
    belled = table.apply(Bell())
    assert belled.rolloff_needed  # 1 to 1
    late = belled.before_bell(RollFact((3, 3, 1)))  # ann's 2 points before the bell
    assert late.done and late.points == (3, 1) and late.winner == 0


def test_once_a_roll_was_made_after_the_bell_a_late_one_is_just_the_next_roll():
    table = play(TableRound.start(SEATS, Rules(), 3), MISS).apply(Bell())
    after = table.apply(RollFact((3, 1, 1)))  # bea, finishing
    assert after.unbelled is None
    assert after.before_bell(RollFact(MISS)) == after.apply(RollFact(MISS))


def test_without_a_bell_a_late_roll_is_an_ordinary_roll():
    table = play(TableRound.start(SEATS, Rules(), 3), (3, 1, 1))
    assert table.before_bell(RollFact(MISS)) == table.apply(RollFact(MISS))


# -- a roll entered for a named player (docs/rules.md section 7: corrections) --------------------


def test_the_dice_handed_to_the_player_whose_turn_it_is_change_nothing():
    table = play(TableRound.start(SEATS, Rules(), 2), (2, 5, 6))
    assert table.handed_to("ann") == table


def test_a_roll_entered_for_a_later_player_moves_the_turn_to_them_and_is_theirs():
    # Ann's 2 points were corrected to a miss, so the rules pass the dice to Bea; Ann rolled
    # again, and her roll stays hers.
    table = play(TableRound.start(SEATS, Rules(), 2), MISS)
    assert table.roller == "bea"
    table = table.handed_to("ann")
    assert (table.roller, table.turn_seat, table.turn_rolls) == ("ann", 1, 0)
    table = table.apply(RollFact((2, 3, 4)))
    assert table.personal_points == {"ann": 1, "bea": 0, "cal": 0, "dot": 0}
    assert table.points == (1, 0) and table.roller == "ann"


def test_the_dice_go_round_to_the_players_next_turn_and_a_stranger_changes_nothing():
    table = TableRound.start(SEATS, Rules(), 2)
    assert table.handed_to("dot").turn_seat == 4
    assert table.handed_to("nobody") == table


def test_on_a_ghosts_seat_the_partner_who_throws_for_it_is_handed_the_ghosts_turn_next():
    seats = ("ann", "bea", "cal", "G1")
    table = TableRound.start(seats, Rules(), 2, ghosts=frozenset({"G1"}))
    table = play(table, MISS, MISS)  # ann, then bea missed: cal's turn
    handed = table.handed_to("bea")  # bea throws next for the ghost in seat 4
    assert (handed.turn_seat, handed.roller) == (4, "bea")


def test_after_the_bell_and_in_a_roll_off_the_turn_is_the_rules_own():
    table = play(TableRound.start(SEATS, Rules(), 2), (2, 5, 6)).apply(Bell())
    assert table.finishing and table.handed_to("cal") == table
    tied = play(TableRound.start(SEATS, Rules(), 2).apply(Bell()), MISS)  # 0-0: a roll-off
    assert tied.rolloff_needed and tied.handed_to("bea") == tied


def test_the_thrower_of_a_roll_is_the_named_player_or_the_turns():
    table = play(TableRound.start(SEATS, Rules(), 2), MISS)
    assert table.thrower() == "bea" and table.thrower("ann") == "ann"
    rung = table.apply(Bell())  # bea finishes; a roll made before the bell was bea's too
    assert rung.thrower("ann", before_bell=True) == "ann"
