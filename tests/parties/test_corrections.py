"""Every mistake can be fixed: the scorekeeper's undo reaches back across the round's close
until the next round starts; the host voids or corrects any roll of any round, and the closed
round's sheets, fuzzy die and waiting seats follow; late taps are applied or dismissed; the
changes are kept and shown with who made them."""

import uuid

import pytest
from django.urls import reverse

from parties import state
from parties.models import (
    Correction,
    LateTap,
    Party,
    Player,
    Roll,
    Round,
    ScoreSheetLine,
    Seat,
    Table,
)
from parties.pages.corrections import audit_lines
from parties.services.errors import PartyError, StaleTap
from parties.services.late_tap import late_tap_apply, late_tap_dismiss
from parties.services.roll import roll_record, roll_undo
from parties.services.roll_correction import roll_correct, roll_void
from parties.services.round import bell_ring, round_start
from parties.translation import correction_effects
from scoring import next_seating
from tests.parties.conftest import Browser, redeem
from tests.parties.test_play import new_party, scorer, writes_while

pytestmark = pytest.mark.django_db


def round_of(party, number=1, set_number=1):
    return Round.objects.select_related("bunco_set").get(
        party=party, number=number, bunco_set__number=set_number
    )


def loaded(party, round_):
    round_.refresh_from_db()
    return state.load(round_, Party.objects.get(pk=party.pk).rules)


def tap(party, table, dice, called=True):
    party.refresh_from_db()
    round_ = Round.objects.get(party=party, status=Round.Status.PLAYING)
    now = loaded(party, round_)
    return roll_record(
        party_id=party.id, table_number=table, tap_id=uuid.uuid4(), dice=tuple(dice),
        called=called, seen=now.extras[table - 1].version, link_ids=scorer(party, table),
    )


def said(correction):
    """What the correction changed, as the host reads it (in English here), a line each."""
    return "\n".join(correction_effects(correction))


def seats_of(round_):
    return list(Seat.objects.filter(round=round_).values_list("table__number", "player_id"))


def won(round_, table):
    """The W/L of the table's seats 1 and 2 (one of each team)."""
    seats = dict(Seat.objects.filter(round=round_, table__number=table)
                 .values_list("position", "player_id"))
    line = {p: ScoreSheetLine.objects.get(round=round_, player_id=p).won for p in seats.values()}
    return line[seats[1]], line[seats[2]]


def play_round_one(party):
    """Round 1 (target 1), standard rules, closed with no roll-off:
    table 2: seat 1 scores 2 (1 1 4), misses; seat 2 scores 1 (1 5 6), misses;
    table 3: seat 1 scores 1 (1 2 3), misses;
    the head table's Bunco rings the bell; then each holder finishes their turn:
    head table misses; table 2 seat 3 scores 1 (1 2 6), misses; table 3 seat 2 misses.
    Table 2 ends 3-1 and table 3 1-0 to the seat 1 and 3 team."""
    round_start(party=party)
    for dice in [(1, 1, 4), (2, 3, 4), (1, 5, 6), (2, 3, 4)]:
        tap(party, 2, dice)
    for dice in [(1, 2, 3), (2, 3, 4)]:
        tap(party, 3, dice)
    tap(party, 1, (1, 1, 1))
    tap(party, 1, (2, 3, 4))
    tap(party, 2, (1, 2, 6))
    tap(party, 2, (2, 3, 4))
    tap(party, 3, (2, 3, 4))
    round_ = round_of(party)
    assert round_.status == Round.Status.CLOSED
    return round_


def roll_at(round_, table, dice):
    return Roll.objects.get(
        round=round_, table__number=table, voided_by__isnull=True,
        die1=dice[0], die2=dice[1], die3=dice[2],
    )


@pytest.fixture
def party():
    return new_party()


# -- 1. the scorekeeper's undo, until the next round starts -------------------------------------


def test_undo_of_the_round_closing_roll_reopens_the_round_while_the_next_one_waits(party):
    closed = play_round_one(party)
    assert Round.objects.filter(party=party, number=2).exists()
    version = loaded(party, closed).extras[2].version
    new_version = roll_undo(party=party, table_number=3, seen=version, by="table 3")
    closed.refresh_from_db()
    party.refresh_from_db()
    assert closed.status == Round.Status.PLAYING and closed.closed_at is None
    assert party.status == Party.Status.PLAYING
    assert not ScoreSheetLine.objects.filter(round=closed).exists()
    assert not Round.objects.filter(party=party, number=2).exists()
    assert not Seat.objects.filter(round__number=2, round__party=party).exists()
    undo = Correction.objects.get()
    assert (undo.kind, undo.made_by, undo.round_id) == ("undo", "table 3", closed.id)
    assert Roll.objects.get(voided_by=undo).dice == (2, 3, 4)
    # The log says which roll, not "Undo: undo".
    [line] = audit_lines(party)
    assert line.what == "Undo: table 3's last roll taken back"
    now = loaded(party, closed)
    assert not now.table(3).done and now.extras[2].version == new_version
    tap(party, 3, (2, 3, 4))  # the roll entered again closes the round again, once
    closed.refresh_from_db()
    assert closed.status == Round.Status.CLOSED
    assert ScoreSheetLine.objects.filter(round=closed).count() == 12
    assert Round.objects.filter(party=party, number=2).count() == 1


def test_the_undo_form_may_name_the_round_its_page_showed(party):
    closed = play_round_one(party)
    version = loaded(party, closed).extras[2].version
    with pytest.raises(PartyError, match="moved on"):
        roll_undo(party=party, table_number=3, seen=version, by="table 3",
                  round_id=closed.id + 1)
    roll_undo(party=party, table_number=3, seen=version, by="table 3",
              round_id=closed.id)
    assert round_of(party).status == Round.Status.PLAYING


def test_undo_in_a_closed_round_checks_the_version_the_phone_saw(party):
    closed = play_round_one(party)
    version = loaded(party, closed).extras[2].version
    with pytest.raises(StaleTap) as stale:
        roll_undo(party=party, table_number=3, seen=version - 1, by="table 3")
    assert stale.value.version == version
    assert round_of(party).status == Round.Status.CLOSED


def test_once_the_next_round_has_started_undo_no_longer_reaches_the_closed_round(party):
    closed = play_round_one(party)
    round_start(party=party)
    with pytest.raises(PartyError, match="no roll to undo"):
        roll_undo(party=party, table_number=3, seen=0, by="table 3")
    closed.refresh_from_db()
    assert closed.status == Round.Status.CLOSED and not Correction.objects.exists()


def test_undo_after_the_nights_last_round_reopens_it_and_the_party_plays_on():
    party = new_party(sets=1)
    play_round_one(party)
    for number in range(2, 7):  # rounds 2 to 6 closed by hand (the test's shortcut)
        round_ = round_of(party, number)
        round_start(party=party)
        round_.refresh_from_db()
        tap(party, 1, (number,) * 3)  # the head table's Bunco rings the bell
        for table in (1, 2, 3):
            finish_turn(party, table, number)
    party.refresh_from_db()
    last = round_of(party, 6)
    assert party.status == Party.Status.FINISHED and last.status == Round.Status.CLOSED
    version = loaded(party, last).extras[0].version
    roll_undo(party=party, table_number=1, seen=version, by="table 1")
    party.refresh_from_db()
    last.refresh_from_db()
    assert party.status == Party.Status.PLAYING and last.status == Round.Status.PLAYING


def finish_turn(party, table, target):
    """At a table finishing after the bell: a miss ends the holder's turn (a tie rolls off:
    then the scorekeeper's side scores one and the other misses)."""
    miss = tuple(f for f in range(1, 7) if f != target)[:3]
    for _ in range(12):
        round_ = Round.objects.get(party=party, number__gte=1, status=Round.Status.PLAYING)
        now = loaded(party, round_)
        t = now.table(table)
        if t.done:
            return
        scores = t.rolloff_needed and t.turn == t.first_seat and t.rolloff.scores == (0, 0)
        tap(party, table, (target,) + miss[:2] if scores else miss)
        if not Round.objects.filter(pk=round_.pk, status=Round.Status.PLAYING).exists():
            return
    raise AssertionError("the table did not finish")


# -- 2. the host voids or corrects any roll of any round ---------------------------------------


def test_a_correction_in_a_closed_round_flips_its_table_and_reseats_the_waiting_round(party):
    closed = play_round_one(party)
    assert won(closed, 2) == (True, False)
    nxt = round_of(party, 2)
    seated_before = seats_of(nxt)
    correction = roll_correct(
        party=party, roll_id=roll_at(closed, 2, (1, 5, 6)).id, by="host", dice=(1, 1, 1)
    )
    assert won(closed, 2) == (False, True)  # the seat 2 and 4 team's Bunco: 21 to 3
    seat2 = Seat.objects.get(round=closed, table__number=2, position=2).player
    line = ScoreSheetLine.objects.get(round=closed, player=seat2)
    assert (line.points, line.buncos) == (21, 1)
    assert won(closed, 3) == (True, False)  # other tables are as they were
    live = loaded(party, closed)
    expected = next_seating(
        [list(t) for t in live.seating], list(live.state.winners), party.rules, live.ghosts
    )
    reseated = [(n, int(p)) for n, seated in enumerate(expected, 1) for p in seated]
    assert seats_of(nxt) == reseated != seated_before
    assert "now win" in said(correction) and "seated again" in said(correction)
    assert correction.kind == "correct" and correction.round_id == closed.id
    assert Roll.objects.filter(voided_by=correction).count() == 1  # it alone: the rest stay
    closed.refresh_from_db()
    assert closed.status == Round.Status.CLOSED


def the_nights_table(party):
    """The night's report at table 2, round 1 in play (target 1): Gail (seat 1) "2 points",
    Gail "nothing", Hope (seat 2) "1 point", Hope "nothing". Gail and Hope, by seat."""
    round_start(party=party)
    for dice in [(1, 1, 4), (2, 3, 4), (1, 5, 6), (2, 3, 4)]:
        tap(party, 2, dice)
    round_ = round_of(party)
    seated = Seat.objects.filter(round=round_, table__number=2).select_related("player")
    return round_, {seat.position: seat.player for seat in seated}


def live_rolls(round_, table):
    rolls = Roll.objects.filter(round=round_, table__number=table, voided_by__isnull=True)
    return [(r.roller_id, r.dice) for r in rolls.order_by(*state.replay_order())]


def test_a_corrected_roll_leaves_each_later_roll_with_the_player_it_was_entered_for(party):
    # Gail's 2 points corrected to nothing: the rules would have passed the dice to Hope, but
    # Gail did roll again, and Hope's point stays Hope's (the replay once gave it to Edie).
    round_, seat = the_nights_table(party)
    gail, hope = seat[1], seat[2]
    first = roll_at(round_, 2, (1, 1, 4))
    correction = roll_correct(party=party, roll_id=first.id, by="host", dice=(2, 3, 5))
    table = loaded(party, round_).table(2)
    assert table.points == (0, 1)
    assert table.personal_points == {
        str(seat[n].id): points for n, points in ((1, 0), (2, 1), (3, 0), (4, 0))
    }
    # Every screen reads the same rows: each roll is its player's, in the order rolled.
    assert live_rolls(round_, 2) == [
        (gail.id, (2, 3, 5)), (gail.id, (2, 3, 4)), (hope.id, (1, 5, 6)), (hope.id, (2, 3, 4))
    ]
    assert list(Roll.objects.filter(voided_by=correction)) == [first]  # voided once, alone
    assert f"{gail.name} 2 → 0" in said(correction)
    assert seat[3].name not in said(correction) and seat[4].name not in said(correction)


def test_the_host_may_pass_the_dice_as_the_rules_do_instead(party):
    # The other choice: after Gail's miss the dice went to Hope, so Hope's point is Gail's
    # partner's (seat 3), and every later roll at the table moves on one seat.
    round_, seat = the_nights_table(party)
    first = roll_at(round_, 2, (1, 1, 4))
    correction = roll_correct(
        party=party, roll_id=first.id, by="host", dice=(2, 3, 5), later="turns"
    )
    assert loaded(party, round_).table(2).points == (1, 0)
    assert live_rolls(round_, 2) == [
        (seat[1].id, (2, 3, 5)), (seat[2].id, (2, 3, 4)), (seat[3].id, (1, 5, 6)),
        (seat[3].id, (2, 3, 4)),
    ]
    assert Roll.objects.filter(voided_by=correction).count() == 4  # it, and 3 that moved
    assert f"{seat[2].name}'s roll (1 5 6) is now {seat[3].name}'s" in said(correction)
    with pytest.raises(PartyError, match="Choose who keeps"):
        live = Roll.objects.filter(round=round_, voided_by__isnull=True).first()
        roll_void(party=party, roll_id=live.id, by="host", later="whoever")


def test_a_void_leaves_the_later_rolls_with_their_players_too(party):
    round_, seat = the_nights_table(party)
    roll_void(party=party, roll_id=roll_at(round_, 2, (1, 1, 4)).id, by="host")
    assert loaded(party, round_).table(2).points == (0, 1)
    assert live_rolls(round_, 2) == [
        (seat[1].id, (2, 3, 4)), (seat[2].id, (1, 5, 6)), (seat[2].id, (2, 3, 4))
    ]


def test_the_preview_says_what_a_correction_would_change_and_saves_nothing(party):
    from parties.services.roll_correction import correction_preview

    round_, seat = the_nights_table(party)
    first = roll_at(round_, 2, (1, 1, 4))
    before = loaded(party, round_)
    effects = correction_preview(
        roll_correct, party=party, roll_id=first.id, by="host", dice=(2, 3, 5)
    )
    assert effects == [
        "Table 2: 1 1 4 → 2 3 5",  # what the roll becomes, then what that changes
        f"Set 1, round 1, table 2: 2 – 1 → 0 – 1; {seat[1].name} 2 → 0",
    ]
    assert not Correction.objects.exists()
    assert Roll.objects.filter(round=round_, voided_by__isnull=True).count() == 4
    assert loaded(party, round_).table(2) == before.table(2)
    with pytest.raises(PartyError, match="already"):
        correction_preview(roll_correct, party=party, roll_id=first.id, by="host", dice=(1, 1, 4))


def test_the_host_sees_the_change_and_chooses_before_the_correction_is_made(party):
    host = Browser()
    redeem(host, party.links.get(role="host"))
    round_, seat = the_nights_table(party)
    first = roll_at(round_, 2, (1, 1, 4))
    url = reverse("parties:correct", args=[party.id, first.id])
    page = host.post(url, {"dice": "2 3 5", "called": "yes"})
    text = page.content.decode()
    assert page.status_code == 200 and not Correction.objects.exists()
    assert "What this correction changes" in text and f"{seat[1].name} 2 → 0" in text
    assert 'value="turns"' in text and 'value="2 3 5"' in text  # both choices, the entry kept
    done = host.post(url, {"dice": "2 3 5", "called": "yes", "later": "entered"})
    assert done.status_code == 302
    assert loaded(party, round_).table(2).points == (0, 1)
    confirm = host.get(reverse("parties:void", args=[party.id, roll_at(round_, 2, (1, 5, 6)).id]))
    assert "What voiding it changes" in confirm.content.decode()
    assert Correction.objects.count() == 1


def test_a_correction_keeps_the_bell_between_the_same_rolls(party):
    closed = play_round_one(party)
    before = loaded(party, closed)
    roll_correct(
        party=party, roll_id=roll_at(closed, 2, (1, 1, 4)).id, by="host", dice=(1, 1, 5)
    )
    after = loaded(party, closed)
    assert after.state.over and after.table(2).points == before.table(2).points
    assert after.table(3).points == before.table(3).points


def test_a_quick_outcome_correction_is_shown_as_entered(party):
    closed = play_round_one(party)
    roll_correct(
        party=party, roll_id=roll_at(closed, 2, (1, 1, 4)).id, by="host", outcome="one"
    )
    fixed = Roll.objects.get(round=closed, outcome="one", voided_by__isnull=True)
    correction = Correction.objects.get()
    assert fixed.dice == () and correction.kind == "correct"
    assert loaded(party, closed).table(2).points == (2, 1)
    assert fixed.entered_by == "host" and correction.note == ""  # the host typed no note
    assert correction_effects(correction)[0] == "Table 2: 1 1 4 → 1 point"


def test_a_void_in_a_closed_round_after_the_next_started_keeps_its_seats(party):
    closed = play_round_one(party)
    round_start(party=party)
    nxt = round_of(party, 2)
    seated = seats_of(nxt)
    correction = roll_void(
        party=party, roll_id=roll_at(closed, 2, (1, 2, 6)).id, by="host"
    )  # table 2 is 2-1 without it: the same winners, one point less
    assert seats_of(nxt) == seated and won(closed, 2) == (True, False)
    seat3 = Seat.objects.get(round=closed, table__number=2, position=3).player
    assert ScoreSheetLine.objects.get(round=closed, player=seat3).points == 0
    assert "points 1 → 0" in said(correction) and "already started" in said(correction)


def test_a_change_that_leaves_a_closed_table_unfinished_is_refused_once_the_next_started(party):
    closed = play_round_one(party)
    round_start(party=party)
    lines = list(ScoreSheetLine.objects.filter(round=closed).values_list("player", "won"))
    last = Roll.objects.filter(round=closed, table__number=3).order_by("-id").first()
    with pytest.raises(PartyError, match="unfinished"):
        roll_void(party=party, roll_id=last.id, by="host")
    assert not Correction.objects.exists()
    assert not Roll.objects.filter(voided_by__isnull=False).exists()
    assert list(ScoreSheetLine.objects.filter(round=closed).values_list("player", "won")) == lines


def test_the_same_change_while_the_next_round_waits_reopens_the_round(party):
    closed = play_round_one(party)
    last = Roll.objects.filter(round=closed, table__number=3).order_by("-id").first()
    correction = roll_void(party=party, roll_id=last.id, by="host")
    closed.refresh_from_db()
    assert closed.status == Round.Status.PLAYING
    assert not Round.objects.filter(party=party, number=2).exists()
    assert "in play again" in said(correction)


def test_a_correction_that_makes_a_later_roll_unplayable_is_refused(party):
    closed = play_round_one(party)
    # Table 2's finishing 1 2 6 made a miss: the turn, and the table, end there, and the miss
    # rolled after it could not have been rolled.
    with pytest.raises(PartyError, match="could not be played"):
        roll_correct(
            party=party, roll_id=roll_at(closed, 2, (1, 2, 6)).id, by="host", dice=(2, 5, 6)
        )
    assert not Correction.objects.exists()
    assert Roll.objects.filter(voided_by__isnull=False).count() == 0
    assert round_of(party).status == Round.Status.CLOSED


def test_a_refused_correction_is_decided_before_anything_is_written(party):
    # Refused for what the replay finds (a later roll unplayable, a closed table left
    # unfinished, a late roll the table cannot take): nothing is written and rolled back.
    closed = play_round_one(party)
    miss = roll_at(closed, 2, (1, 2, 6))
    late = late_tap(party, closed, 3, outcome="two", bell_seen=True)
    assert writes_while(
        lambda: roll_correct(party=party, roll_id=miss.id, by="host", dice=(2, 5, 6)),
        refused="could not be played",
    ) == []
    assert writes_while(
        lambda: late_tap_apply(party=party, late_tap_id=late.id, by="host"), refused="table 3"
    ) == []
    round_start(party=party)
    last = Roll.objects.filter(round=closed, table__number=3).order_by("-id").first()
    assert writes_while(
        lambda: roll_void(party=party, roll_id=last.id, by="host"), refused="unfinished"
    ) == []


def test_a_correction_in_a_later_started_round_still_recomputes_the_closed_one(party):
    closed = play_round_one(party)
    round_start(party=party)
    seated = seats_of(round_of(party, 2))
    correction = roll_correct(
        party=party, roll_id=roll_at(closed, 2, (1, 5, 6)).id, by="host", dice=(1, 1, 1)
    )
    assert won(closed, 2) == (False, True)
    assert seats_of(round_of(party, 2)) == seated
    assert "already started" in said(correction)


def test_bad_corrections_are_refused_and_change_nothing(party):
    closed = play_round_one(party)
    roll = roll_at(closed, 2, (1, 5, 6))
    for kwargs in [{"dice": (1, 5)}, {"dice": (0, 1, 2)}, {"dice": ("x", 1, 2)},
                   {"outcome": "seven"}, {"dice": (1, 5, 6)}]:
        with pytest.raises(PartyError):
            roll_correct(party=party, roll_id=roll.id, by="host", **kwargs)
    assert not Correction.objects.exists()


def test_the_host_voids_a_roll_of_a_closed_round_and_the_sheets_follow(party):
    closed = play_round_one(party)
    roll_void(party=party, roll_id=roll_at(closed, 2, (1, 1, 4)).id, by="host")
    # Without seat 1's 2 points table 2 is 1-1 after its finishing turn: a tie, rolled off.
    closed.refresh_from_db()
    assert closed.status == Round.Status.PLAYING  # the roll-off is still to come
    assert loaded(party, closed).table(2).rolloff_needed


def test_a_voided_roll_of_another_party_is_not_found(party):
    closed = play_round_one(party)
    other = new_party()
    with pytest.raises(PartyError, match="not a live roll"):
        roll_void(party=other, roll_id=roll_at(closed, 2, (1, 1, 4)).id, by="host")


# -- 5. the fuzzy die at the close, and carried forward ----------------------------------------


def test_close_keeps_a_fuzzy_die_holder_already_stored_on_the_round():
    party = new_party(traveling="triple")  # nobody rolls 2 2 2 in round 1 here
    starter = Player.objects.filter(party=party).order_by("position").last()
    Round.objects.filter(pk=round_of(party).pk).update(fuzzy_die=starter)
    closed = play_round_one(party)
    assert closed.fuzzy_die_id == starter.id


def test_close_gives_the_fuzzy_die_to_this_rounds_taker_over_a_stored_holder():
    party = new_party(traveling="bunco")
    # Anyone but the head table's seat 1, who rolls round 1's Bunco (the seating is shuffled:
    # the last player in the list sat there in 1 run of 12).
    starter = Seat.objects.get(round=round_of(party), table__number=2, position=1).player
    Round.objects.filter(pk=round_of(party).pk).update(fuzzy_die=starter)
    closed = play_round_one(party)
    bunco = Roll.objects.get(round=closed, die1=1, die2=1, die3=1)
    assert closed.fuzzy_die_id == bunco.roller_id != starter.id


def test_a_correction_moves_the_fuzzy_die_and_later_closed_rounds_carry_it_forward():
    party = new_party(traveling="bunco")
    closed = play_round_one(party)
    head_bunco = Roll.objects.get(round=closed, table__number=1, die1=1, die2=1, die3=1)
    assert closed.fuzzy_die_id == head_bunco.roller_id
    round_start(party=party)  # round 2: nobody rolls a Bunco
    bell_ring(party=party, by="host")
    for table in (1, 2, 3):
        finish_turn(party, table, 2)
    second = round_of(party, 2)
    assert second.status == Round.Status.CLOSED
    assert second.fuzzy_die_id == head_bunco.roller_id  # carried from round 1
    # Table 2's seat 3 rolled 1 2 6 after the head table's Bunco: made a Bunco, they took it last.
    correction = roll_correct(
        party=party, roll_id=roll_at(closed, 2, (1, 2, 6)).id, by="host", dice=(1, 1, 1)
    )
    seat3 = Seat.objects.get(round=closed, table__number=2, position=3).player
    closed.refresh_from_db()
    second.refresh_from_db()
    assert closed.fuzzy_die_id == seat3.id and second.fuzzy_die_id == seat3.id
    assert f"the fuzzy die is {seat3.name}'s" in said(correction)


# -- 3. late taps ------------------------------------------------------------------------------


def late_tap(party, round_, table, **fields):
    return LateTap.objects.create(
        party=party, round=round_, table=Table.objects.get(party=party, number=table),
        tap_id=uuid.uuid4(),
        fields={"dice": [], "outcome": "", "face": None, "called": None, "seen": 0,
                "bell_seen": False, **fields},
        description="2 points for someone, made before the bell", entered_by=f"table {table}",
    )


def stop_at_bell_round():
    """finish_turn_after_bell off: every table stops at the bell. Table 3's seat 1 scores 1
    and misses; table 2's seat 1 scores 2; the head table's Bunco rings and ends the round."""
    party = new_party(finish_turn_after_bell=False)
    round_start(party=party)
    tap(party, 3, (1, 2, 3))
    tap(party, 3, (2, 3, 4))
    tap(party, 2, (1, 1, 4))
    tap(party, 1, (1, 1, 1))
    closed = round_of(party)
    assert closed.status == Round.Status.CLOSED
    return party, closed


def test_a_late_tap_applied_counts_before_the_bell_and_flips_its_table():
    party, closed = stop_at_bell_round()
    assert won(closed, 3) == (True, False)
    late = late_tap(party, closed, 3, outcome="two")
    correction = late_tap_apply(party=party, late_tap_id=late.id, by="host")
    late.refresh_from_db()
    assert late.status == "applied" and late.resolved_by == correction
    added = Roll.objects.get(tap_id=late.tap_id)  # the late tap's own roll, entered now
    assert (added.outcome, added.before_bell, added.round_id) == ("two", True, closed.id)
    assert won(closed, 3) == (False, True)  # 2 to 1 for the seat 2 and 4 team now
    assert correction.kind == "late_tap" and "now win" in said(correction)


def test_a_late_tap_the_rules_refuse_stays_pending_and_changes_nothing(party):
    closed = play_round_one(party)  # table 3 rolled after the bell: it was done there
    late = late_tap(party, closed, 3, outcome="two", bell_seen=True)
    with pytest.raises(PartyError, match="table 3"):
        late_tap_apply(party=party, late_tap_id=late.id, by="host")
    late.refresh_from_db()
    assert late.status == "pending" and not Correction.objects.exists()
    assert not Roll.objects.filter(tap_id=late.tap_id).exists()


def test_a_late_tap_is_dismissed_once_with_who_and_when(party):
    closed = play_round_one(party)
    late = late_tap(party, closed, 3, outcome="two")
    lines = list(ScoreSheetLine.objects.values_list("player", "won", "points"))
    late_tap_dismiss(party=party, late_tap_id=late.id, by="host")
    late.refresh_from_db()
    assert late.status == "dismissed" and late.resolved_by.made_by == "host"
    assert list(ScoreSheetLine.objects.values_list("player", "won", "points")) == lines
    with pytest.raises(PartyError, match="dismissed already"):
        late_tap_apply(party=party, late_tap_id=late.id, by="host")


# -- the pages ---------------------------------------------------------------------------------


def test_the_host_page_lists_closed_rounds_rolls_late_taps_and_corrections(host, party):
    from tests.parties.conftest import create_party

    party = create_party(host)
    closed = play_round_one(party)
    late_tap(party, closed, 3, outcome="two")
    roll_correct(
        party=party, roll_id=roll_at(closed, 2, (1, 5, 6)).id, by="host", dice=(1, 1, 1)
    )
    page = host.get(reverse("parties:host", args=[party.id])).content.decode()
    assert "Set 1, round 1" in page and "1 1 1" in page
    assert "Table 3 (round 1): 2 points for someone, made before the bell" in page
    # Said at the top too, above the round's controls: the list sits far below them.
    notice = '<a href="#late-taps">1 late roll waiting</a>: add it to its round or dismiss it.'
    assert page.index(notice) < page.index('aria-label="Host controls"')
    assert "now win" in page and "Correction" in page
    results = host.get(reverse("parties:results", args=[party.id])).content.decode()
    assert "now win" in results


def test_voiding_from_the_host_page_takes_a_confirmation_page_first(host):
    from tests.parties.conftest import create_party

    party = create_party(host)
    closed = play_round_one(party)
    roll = roll_at(closed, 2, (1, 5, 6))
    confirm = host.get(reverse("parties:void", args=[party.id, roll.id]))
    assert confirm.status_code == 200 and "Yes, void it" in confirm.content.decode()
    assert not Correction.objects.exists()  # asking changed nothing
    done = host.post(reverse("parties:void", args=[party.id, roll.id]), follow=True)
    assert "The roll was voided" in done.content.decode()
    assert Roll.objects.get(pk=roll.pk).voided_by.made_by == "host"


def test_the_host_corrects_a_roll_with_the_form(host):
    from tests.parties.conftest import create_party

    party = create_party(host)
    closed = play_round_one(party)
    roll = roll_at(closed, 2, (1, 5, 6))
    url = reverse("parties:correct", args=[party.id, roll.id])
    assert "Show what it changes" in host.get(url).content.decode()
    bad = host.post(url, {"dice": "1 1"})
    assert bad.status_code == 400 and "Enter 3 dice" in bad.content.decode()
    assert 'value="1 1"' in bad.content.decode()  # what the host typed stays in the form
    odd = host.post(url, {"outcome": "mini", "face": "²"})  # a digit to isdigit, not to int
    assert odd.status_code in (200, 400) and not Correction.objects.exists()  # no 500
    shown = host.post(url, {"dice": "1 1 1", "called": "yes"})
    assert "now win" in shown.content.decode() and won(closed, 2) == (True, False)
    done = host.post(url, {"dice": "1 1 1", "called": "yes", "later": "entered"}, follow=True)
    assert "The roll was corrected" in done.content.decode()
    assert won(closed, 2) == (False, True)


def test_only_the_host_corrects_or_applies_late_taps(host, keeper, party):
    closed = play_round_one(party)
    roll = roll_at(closed, 2, (1, 5, 6))
    late = late_tap(party, closed, 3, outcome="two")
    for name, args in [("void", [party.id, roll.id]), ("correct", [party.id, roll.id]),
                       ("late_apply", [party.id, late.id]), ("late_dismiss", [party.id, late.id])]:
        assert keeper.post(reverse(f"parties:{name}", args=args), {"dice": "1 1 1"}).status_code \
            in (403, 404)
    assert not Correction.objects.exists()


def test_the_table_page_offers_undo_of_the_closed_round_while_the_next_waits(party):
    closed = play_round_one(party)
    keeper = Browser()
    redeem(keeper, party.links.get(role="table", table__number=3))
    page = keeper.get(reverse("parties:table", args=[party.id, 3])).content.decode()
    assert "Undo last roll (reopens round 1)" in page
    version = loaded(party, closed).extras[2].version
    response = keeper.post(reverse("parties:undo", args=[party.id, 3]),
                           {"seen": str(version), "round": str(closed.id)})
    assert response.status_code == 302
    assert round_of(party).status == Round.Status.PLAYING
    page = keeper.get(reverse("parties:table", args=[party.id, 3])).content.decode()
    assert "reopens round" not in page


def test_a_late_roll_made_before_the_bell_goes_in_before_the_tables_after_bell_rolls(party):
    closed = play_round_one(party)  # table 3: 1-0; seat 2 held the dice at the bell and missed
    assert won(closed, 3) == (True, False)
    late = late_tap(party, closed, 3, outcome="two")  # seat 2's 2 points, made before the bell
    correction = late_tap_apply(party=party, late_tap_id=late.id, by="host")
    table = loaded(party, closed).table(3)
    assert table.done and table.points == (1, 2)  # seat 2 then finished the turn with the miss
    assert won(closed, 3) == (False, True)
    assert "no longer count" not in said(correction)


def test_after_bell_rolls_the_late_roll_makes_needless_no_longer_count():
    # Table 3 is 0-0 at the bell; its second phone enters seat 1's finishing miss and a whole
    # roll-off, while its first phone, offline, had seat 1's 2 points from before the bell.
    party = new_party()
    round_start(party=party)
    tap(party, 2, (1, 2, 3))
    tap(party, 1, (1, 1, 1))  # the bell
    tap(party, 1, (2, 3, 4))
    tap(party, 2, (2, 3, 4))
    for dice in [(2, 3, 4), (1, 2, 3), (2, 3, 4), (2, 3, 4), (2, 3, 4), (2, 3, 4)]:
        tap(party, 3, dice)  # the miss, then the roll-off: seat 1 scores 1, everyone misses
    closed = round_of(party)
    assert closed.status == Round.Status.CLOSED and won(closed, 3) == (True, False)
    late = late_tap(party, closed, 3, outcome="two")
    correction = late_tap_apply(party=party, late_tap_id=late.id, by="host")
    table = loaded(party, closed).table(3)
    assert table.done and table.points == (2, 0) and table.rolloff is None
    assert won(closed, 3) == (True, False)
    assert "5 rolls entered at table 3 after the bell" in said(correction)
    live_rolls = Roll.objects.filter(round=closed, table__number=3, voided_by__isnull=True)
    assert live_rolls.count() == 2  # the late 2 points and seat 1's miss


def test_the_host_page_shows_the_latest_rounds_rolls_and_links_the_earlier_ones(host):
    # The host's page is refetched as the tables roll: a whole night's rolls on it made it
    # megabytes and a second to render. Earlier rounds are a page each.
    from tests.parties.conftest import create_party

    party = create_party(host)
    closed = play_round_one(party)
    round_start(party=party)
    # Round 2 started, not yet rolled in: round 1's rolls stay on the page, to correct in the
    # minutes after the round, when a host notices a mistake.
    page = host.get(reverse("parties:host", args=[party.id])).content.decode()
    assert f'id="rolls-{closed.id}"' in page and "1 5 6" in page
    tap(party, 2, (2, 2, 5))  # round 2 (target 2): a roll in the round in play
    page = host.get(reverse("parties:host", args=[party.id])).content.decode()
    assert 'id="rolls-' + str(closed.id) + '"' not in page  # round 1's rows are not on it
    link = reverse("parties:round_rolls", args=[party.id, closed.id])
    assert link in page
    earlier = host.get(link)
    assert earlier.status_code == 200
    text = earlier.content.decode()
    assert f'id="rolls-{closed.id}"' in text and "1 5 6" in text and "Correct" in text
    other = host.get(reverse("parties:round_rolls", args=[party.id, 10**9]))
    assert other.status_code == 404


def test_only_the_host_sees_an_earlier_rounds_rolls(keeper, party):
    closed = play_round_one(party)
    answer = keeper.get(reverse("parties:round_rolls", args=[party.id, closed.id]))
    assert answer.status_code in (403, 404)
