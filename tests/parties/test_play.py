"""Live play through the services: taps, the bell, finishing turns, roll-offs, closing a round,
and every preset played to the end of the night."""

import json
import random
import uuid
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from parties import selectors, state
from parties.models import (
    AccessLink,
    Correction,
    LateTap,
    Party,
    Roll,
    Round,
    RoundBell,
    ScoreSheetLine,
    Seat,
)
from parties.services.errors import PartyError, StaleTap
from parties.services.party import party_create, party_end, party_pause, party_resume
from parties.services.roll import roll_record, roll_undo
from parties.services.roll_correction import roll_void
from parties.services.round import bell_ring, round_start
from parties.translation import late_tap_description
from scoring import PRESETS

pytestmark = pytest.mark.django_db
NAMES = ["Ann", "Bea", "Cleo", "Dot", "Edie", "Fran", "Gail", "Hope", "Iris", "June", "Kay", "Lou"]


def new_party(preset="standard", names=NAMES, **changes):
    from dataclasses import replace

    rules = replace(PRESETS[preset], **changes) if changes else PRESETS[preset]
    return party_create(name="Test night", player_names=list(names), preset=preset, rules=rules)


def live(party):
    party.refresh_from_db()
    round_ = selectors.current_round(party)
    return round_, state.load(round_, party.rules)


def scorer(party, table):
    """The link ids of the table's scorekeeper's session."""
    return [AccessLink.objects.get(party=party, role="table", table__number=table).id]


def tap(party, table, dice, called=None, tap_id=None):
    _round, now = live(party)
    return roll_record(
        party_id=party.id, table_number=table, tap_id=tap_id or uuid.uuid4(), dice=tuple(dice),
        called=called, seen=now.extras[table - 1].version, link_ids=scorer(party, table),
    )


def writes_while(call, refused=""):
    """The statements that would change a row, run while `call` runs and is refused (with a
    message matching `refused`)."""
    with CaptureQueriesContext(connection) as queries, pytest.raises(PartyError, match=refused):
        call()
    return [q["sql"] for q in queries if q["sql"].split()[0] in ("INSERT", "UPDATE", "DELETE")]


def points(party, table):
    return live(party)[1].table(table).points


@pytest.fixture
def party():
    p = new_party()
    round_start(party=p)
    return p


def test_taps_before_the_round_starts_are_refused_and_change_nothing():
    p = new_party()
    with pytest.raises(PartyError, match="has not started yet"):
        tap(p, 1, (1, 2, 3))
    assert Roll.objects.count() == 0


def test_a_roll_is_scored_by_the_rules_and_keeps_the_turn(party):
    result = tap(party, 2, (1, 1, 4))  # round 1: two 1s
    assert result.status == "saved" and result.table_version == 1
    table = live(party)[1].table(2)
    assert table.points == (2, 0)
    assert table.turn_seat == 1  # it scored, so the same player rolls again
    tap(party, 2, (2, 2, 6))  # nothing for 1s: 2, 2, 6 is not 10
    assert live(party)[1].table(2).turn_seat == 2
    assert points(party, 2) == (2, 0)


def test_a_retried_tap_is_recorded_once(party):
    tap_id = uuid.uuid4()
    first = tap(party, 2, (1, 3, 4), tap_id=tap_id)
    again = roll_record(
        party_id=party.id, table_number=2, tap_id=tap_id, dice=(1, 3, 4), called=None, seen=0,
        link_ids=scorer(party, 2),
    )
    assert (first.status, again.status) == ("saved", "duplicate")
    assert Roll.objects.count() == 1
    assert points(party, 2) == (1, 0)


def test_a_stale_tap_is_refused_with_the_current_version(party):
    tap(party, 2, (1, 3, 4))
    with pytest.raises(StaleTap) as refused:
        roll_record(party_id=party.id, table_number=2, tap_id=uuid.uuid4(),
                    dice=(1, 1, 1), called=True, seen=0, link_ids=scorer(party, 2))
    assert refused.value.version == 1
    assert Roll.objects.count() == 1


def test_bad_dice_are_refused_with_a_readable_message(party):
    for dice in [(1, 2), (0, 1, 2), (1, 2, 7), (1, 2, 3, 4)]:
        with pytest.raises(PartyError):
            tap(party, 2, dice)
    assert Roll.objects.count() == 0


def test_a_bunco_asks_whether_it_was_called_and_an_uncalled_one_scores_nothing(party):
    asked = tap(party, 2, (1, 1, 1))
    assert (asked.status, asked.ask) == ("ask_call", "bunco")
    assert Roll.objects.count() == 0
    tap(party, 2, (1, 1, 1), called=False)
    table = live(party)[1].table(2)
    assert table.points == (0, 0) and table.turn_seat == 2  # no points, so the dice pass
    tap(party, 2, (1, 1, 1), called=True)
    assert points(party, 2) == (0, 21)


def test_a_bunco_at_another_table_rings_no_bell_under_standard_rules(party):
    tap(party, 2, (1, 1, 1), called=True)
    round_, now = live(party)
    assert not now.state.bell and round_.bell_at is None
    assert not RoundBell.objects.exists()


def play_until_bell(party):
    """The head table rolls a Bunco: 21 points rings the bell for every table."""
    tap(party, 1, (1, 1, 1), called=True)


def test_the_head_table_reaching_21_rings_the_bell_once_for_every_table(party):
    tap(party, 3, (1, 2, 3))  # table 3's scorekeeper is mid-turn with 1 point
    seq_before = Party.objects.get(pk=party.pk).seq
    play_until_bell(party)
    round_, now = live(party)
    assert now.state.bell and now.state.bell_table == 1 and round_.bell_at is not None
    assert Party.objects.get(pk=party.pk).seq > seq_before
    assert now.table(1).finishing  # the bell ringer finishes the turn
    assert now.table(3).finishing  # a turn under way is finished
    # No roll yet at table 2: its scorekeeper holds the dice, and that turn is finished too.
    assert now.table(2).finishing and now.table(2).turn_rolls == 0
    tap(party, 1, (1, 4, 5))  # points rolled while finishing count
    assert points(party, 1) == (22, 0)
    bell_ring(party=party, by="host")  # a second bell changes nothing
    assert not RoundBell.objects.exists()


def test_a_table_that_is_done_refuses_taps(party):
    play_until_bell(party)
    tap(party, 1, (2, 3, 4))  # the ringer's turn ends: table 1 is done
    assert live(party)[1].table(1).done
    count = Roll.objects.count()
    with pytest.raises(PartyError, match="table's round is over"):
        tap(party, 1, (1, 1, 2))
    assert Roll.objects.count() == count


def finish_round(party, taps=200):
    """Bell at the head table, then every table finishes and settles its roll-off."""
    round_, _now = live(party)
    play_until_bell(party)
    for _ in range(taps):
        if Round.objects.get(pk=round_.pk).status == Round.Status.CLOSED:
            return
        _round, now = live(party)
        number, table = next((n, t) for n, t in enumerate(now.state.tables, 1) if not t.done)
        # In a roll-off the scorekeeper's first roll scores 1 and everything else misses,
        # so the scorekeeper's side leads once everyone has rolled.
        first_roll = table.turn == table.first_seat and table.turn_rolls == 0
        scores = table.rolloff_needed and first_roll and table.rolloff.scores == (0, 0)
        tap(party, number, (1, 2, 3) if scores else (2, 3, 4))
    raise AssertionError("the round did not close")


def test_when_every_table_is_done_the_sheets_are_marked_and_everyone_moves_once(party):
    round_, before = live(party)
    finish_round(party)
    round_.refresh_from_db()
    assert round_.status == Round.Status.CLOSED
    lines = ScoreSheetLine.objects.filter(round=round_)
    assert lines.count() == 12
    assert sorted(lines.values_list("won", flat=True)) == [False] * 6 + [True] * 6
    head_winners = {int(p) for p in before.state.tables[0].seats[::2]}  # seats 1, 3: 21 points
    nxt = Round.objects.get(party=party, number=2)
    assert (nxt.target, nxt.status) == (2, Round.Status.WAITING)
    seats = Seat.objects.filter(round=nxt)
    assert seats.count() == 12
    assert {s.player_id for s in seats.filter(table__number=1)} >= head_winners
    # The head winners split up: new partners for everyone at the head table.
    head = {s.position: s.player_id for s in seats.filter(table__number=1)}
    assert {head[1], head[3]} != head_winners
    bunco_roller = Roll.objects.filter(round=round_, die1=1, die2=1, die3=1).get().roller
    assert ScoreSheetLine.objects.get(round=round_, player=bunco_roller).buncos == 1


def test_taps_after_the_round_closed_are_refused(party):
    finish_round(party)
    with pytest.raises(PartyError, match="has not started yet"):
        tap(party, 2, (2, 2, 2))


def test_undo_voids_the_last_roll_and_the_numbers_recompute(party):
    tap(party, 2, (1, 1, 3))
    tap(party, 2, (1, 4, 5))
    _round, now = live(party)
    version = roll_undo(party=party, table_number=2, seen=now.extras[1].version, by="table 2")
    assert version == 3  # three facts at the table: two rolls and a void
    assert points(party, 2) == (2, 0)
    voided = Roll.objects.get(voided_by__isnull=False)
    assert voided.dice == (1, 4, 5)
    assert Correction.objects.get().made_by == "table 2"


def test_undoing_the_bell_ringing_roll_unrings_the_bell(party):
    play_until_bell(party)
    _round, now = live(party)
    roll_undo(party=party, table_number=1, seen=now.extras[0].version, by="table 1")
    round_, now = live(party)
    assert not now.state.bell and round_.bell_at is None
    assert now.table(1).points == (0, 0)


def test_the_host_voids_any_roll_and_the_correction_is_kept(party):
    tap(party, 3, (1, 1, 2))
    tap(party, 3, (1, 5, 6))
    first = Roll.objects.order_by("id").first()
    roll_void(party=party, roll_id=first.id, by="host", note="misheard")
    assert points(party, 3) == (1, 0)
    correction = Correction.objects.get()
    assert (correction.made_by, correction.note) == ("host", "misheard")
    with pytest.raises(PartyError):
        roll_void(party=party, roll_id=first.id, by="host")


def test_the_host_rings_the_bell_by_hand_once(party):
    tap(party, 2, (1, 2, 3))
    bell_ring(party=party, by="host")
    bell_ring(party=party, by="host")
    assert RoundBell.objects.get().rung_by == "host"
    _round, now = live(party)
    assert now.state.bell and now.state.bell_table is None
    assert now.table(2).finishing and now.table(1).finishing  # whoever holds the dice


def test_a_paused_party_refuses_taps_until_it_resumes(party):
    party_pause(party=party)
    with pytest.raises(PartyError, match="paused"):
        tap(party, 2, (1, 2, 3))
    party_resume(party=party)
    assert tap(party, 2, (1, 2, 3)).status == "saved"


def test_the_clock_rings_the_bell_only_once_time_is_up():
    p = new_party("tournament")
    round_start(party=p)
    round_ = Round.objects.get(party=p, number=1)
    assert round_.ends_at is not None
    with pytest.raises(PartyError, match="not run out"):
        bell_ring(party=p, by="clock")
    Round.objects.filter(pk=round_.pk).update(ends_at=timezone.now() - timedelta(seconds=1))
    bell_ring(party=p, by="clock")
    assert RoundBell.objects.get().rung_by == "clock"


def test_a_tap_after_the_clock_ran_out_rings_the_bell_first():
    p = new_party("tournament")
    round_start(party=p)
    tap(p, 1, (1, 2, 3))
    Round.objects.filter(party=p).update(ends_at=timezone.now() - timedelta(seconds=1))
    tap(p, 1, (1, 4, 5))  # finishes the turn under way
    assert RoundBell.objects.get().rung_by == "clock"


def test_a_tap_refused_after_the_clock_ran_out_writes_nothing_not_even_the_bell():
    # The roll is judged on the round with the clock's bell in it before the bell is saved.
    p = new_party("tournament")
    round_start(party=p)
    tap(p, 1, (1, 2, 3))
    Round.objects.filter(party=p).update(ends_at=timezone.now() - timedelta(seconds=1))
    assert writes_while(lambda: tap(p, 1, (1, 2)), refused="dice") == []  # two dice
    tap(p, 1, (1, 4, 5))
    assert RoundBell.objects.get().rung_by == "clock"


def close_seats_as_one(event):
    """A round close's event for a table (parties.live.announce.on_commit_close), as the one message
    carrying every view there: each page's own message, checked to carry that page's view
    alone, merged."""
    messages = {view: json.loads(text) for view, text in event["texts"].items()}
    for view, message in messages.items():
        assert list(message["views"]) == [view]
        assert message["seq"] == event["shows_close"]
    first = next(iter(messages.values()))
    return {**first, "views": {view: m["views"][view] for view, m in messages.items()}}


@pytest.fixture
def pushes(monkeypatch):
    """What the writes push, in order: (group, message); `sent.cached` holds, per push, the
    round versions the process had remembered when it went out."""
    from parties.live import announce

    class Sent(list):
        cached = []

    sent = Sent()

    class Recorder:
        async def group_send(self, group, message):
            if message["type"] == "close.seats":  # one message a page: recorded as one
                sent.append((group, close_seats_as_one(message)))
            else:
                sent.append((group, json.loads(message["text"])))
            sent.cached.append({rid: known.version for rid, known in state._cache.items()})

    monkeypatch.setattr(announce, "get_channel_layer", Recorder)
    return sent


@pytest.mark.parametrize("rung_by", ["host", "clock"])
def test_the_bell_goes_to_everyone_first_then_every_tables_update(
    rung_by, pushes, django_capture_on_commit_callbacks
):
    p = new_party("tournament")
    round_start(party=p)
    tap(p, 2, (1, 2, 3))
    Round.objects.filter(party=p).update(ends_at=timezone.now() - timedelta(seconds=1))
    with django_capture_on_commit_callbacks(execute=True):
        if rung_by == "host":
            bell_ring(party=p, by="host")
        else:
            tap(p, 2, (1, 4, 5))  # the clock has run out: the bell rings before this roll
    (group, bell), *tables = pushes
    assert (group, bell["type"], bell["by"]) == (f"party-{p.id}", "bell", rung_by)
    assert [m["table"] for _group, m in tables] == [1, 2, 3]
    assert all(m["bell"] and m["seq"] == bell["seq"] for _group, m in tables)
    assert [group for group, _m in tables] == [f"party-{p.id}-table-{n}" for n in (1, 2, 3)]
    round_, now = live(p)
    assert [m["version"] for _g, m in tables] == [x.version for x in now.extras]
    # the state after the bell was remembered before it went out: the next tap replays nothing
    assert pushes.cached[0][round_.id] == round_.version


def test_ending_the_party_early_refuses_taps_and_keeps_the_rolls(party):
    tap(party, 2, (1, 2, 3))
    party_end(party=party)
    party.refresh_from_db()
    assert party.status == Party.Status.FINISHED
    with pytest.raises(PartyError, match="over"):
        tap(party, 2, (1, 2, 3))
    assert Roll.objects.count() == 1


def test_a_party_ends_once_and_resumes_only_from_a_pause_or_a_break(party):
    """docs/rules.md section 7: the host resumes a pause or a break and ends the night early;
    anything else is refused with why, and changes nothing (scoring's Progress says)."""
    with pytest.raises(PartyError, match="neither paused nor on a break"):
        party_resume(party=party)
    party_end(party=party)
    party.refresh_from_db()
    seq = party.seq
    with pytest.raises(PartyError, match="already over"):
        party_end(party=party)
    with pytest.raises(PartyError, match="neither paused nor on a break"):
        party_resume(party=party)
    party.refresh_from_db()
    assert (party.status, party.seq) == (Party.Status.FINISHED, seq)


# Whole nights through the services, a persistence test: every preset at 12, a ghost, and the
# boxed set's plans at 2 (two players alone), 4 (one team table), 5 (a table alone beside one
# of teams) and 10 (three tables, the last one wrapping). The default tier plays three (teams
# of 12, a ghost, a one-table boxed plan); the rest are the slow tier's. Every boxed count from
# 2 to 10 plays whole nights in scoring's simulator (tests/scoring/test_small_groups.py).
DEFAULT_NIGHTS = {("standard", 12), ("standard", 11), ("boxed_small", 4)}
NIGHTS = [
    pytest.param(preset, players, marks=() if (preset, players) in DEFAULT_NIGHTS
                 else pytest.mark.slow)
    for preset, players in [(p, 12) for p in sorted(PRESETS) if p != "boxed_small"]
    + [("standard", 11), ("boxed4", 9)]
    + [("boxed_small", count) for count in (2, 4, 5, 10)]
]


@pytest.mark.django_db(transaction=True)  # real commits: pushes go out, the state cache fills
@pytest.mark.parametrize("preset, players", NIGHTS)
def test_every_preset_plays_a_whole_night_through_the_services(preset, players, settings):
    """Random dice (seeded), every table rolling in turn, the host ringing the bell in timed
    rounds, roll-offs settled: the night ends with every round closed exactly once.

    What is tested is the database's: the pushes go to the in-memory layer on either stack
    (through Redis, one round trip and a fresh event loop a push made the night 3x slower; the
    pushes through Redis are the fault tests' and the browser tests' to check)."""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    rng = random.Random(f"{preset}-{players}")
    p = new_party(preset, names=NAMES[:players], sets=1, break_after_set=0)
    rules = p.rules
    rounds_played = 0
    scorers = {}  # each table's scorekeeper's link ids, read once

    def tap_at(number, dice, called=None):
        links = scorers.setdefault(number, scorer(p, number))
        return roll_record(
            party_id=p.id, table_number=number, tap_id=uuid.uuid4(), dice=dice, called=called,
            seen=now.extras[number - 1].version, link_ids=links,
        )

    for _ in range(20000):
        p.refresh_from_db()
        if p.status == Party.Status.FINISHED:
            break
        if p.status == Party.Status.BREAK:
            party_resume(party=p)
            continue
        round_ = selectors.current_round(p)
        now = state.load(round_, rules)
        if round_.status == Round.Status.WAITING:
            round_start(party=p)
            rounds_played += 1
            continue
        open_tables = [n for n, t in enumerate(now.state.tables, 1) if not t.done]
        if rules.round_end == "timed" and not now.state.bell and now.state.tables[0].rolls > 30:
            bell_ring(party=p, by="host")
            continue
        number = rng.choice(open_tables)
        dice = tuple(rng.randint(1, 6) for _ in range(rules.dice))
        result = tap_at(number, dice)
        if result.status == "ask_call":
            tap_at(number, dice, called=rng.random() < 0.9)
    else:
        raise AssertionError("the night did not end")
    assert rounds_played == 6
    assert Round.objects.filter(party=p, status=Round.Status.CLOSED).count() == 6
    real = p.players.filter(is_ghost=False)
    for player in real:
        assert ScoreSheetLine.objects.filter(player=player).count() == 6  # W + L = rounds
    rows, prizes = selectors.party_results(p)
    assert len(rows) == players
    assert [prize.key for prize in prizes] == list(p.rules.prizes)


def test_a_tap_for_a_round_that_has_closed_is_held_for_the_host_not_counted_in_the_next(party):
    first, _now = live(party)
    finish_round(party)
    round_start(party=party)
    count = Roll.objects.count()
    tap_id = uuid.uuid4()
    seqs = []
    for _ in range(2):  # resent: held once
        result = roll_record(
            party_id=party.id, table_number=2, tap_id=tap_id, outcome="two", called=None,
            seen=0, link_ids=scorer(party, 2), round_id=first.id, bell_seen=False,
        )
        assert result.status == "held" and "went to the host" in result.message
        seqs.append(result.seq)
    assert seqs[1] == seqs[0]  # the host's page heard of it once
    assert Roll.objects.count() == count
    late = LateTap.objects.get()
    assert (late.round_id, late.table.number, late.status) == (first.id, 2, "pending")
    assert late.fields == {"dice": [], "outcome": "two", "face": None, "called": None,
                           "seen": 0, "bell_seen": False}
    # It was entered on version 0; the table's rolls since are pointed out to the host.
    said = late_tap_description(late)
    assert said.startswith("2 points for ")
    assert said.endswith(
        "; made before the bell; another phone had entered rolls at that table since"
    )


def test_a_tap_for_a_round_that_is_not_a_closed_round_of_the_party_is_refused(party):
    count = Roll.objects.count()
    with pytest.raises(PartyError, match="round that has ended"):
        roll_record(party_id=party.id, table_number=2, tap_id=uuid.uuid4(),
                    dice=(2, 2, 3), called=None, seen=0, link_ids=scorer(party, 2),
                    round_id=10**9)
    assert Roll.objects.count() == count and not LateTap.objects.exists()


def test_a_late_tap_that_no_game_could_have_is_refused_and_not_held(party):
    first, _now = live(party)
    finish_round(party)
    with pytest.raises(PartyError, match="dice"):
        roll_record(party_id=party.id, table_number=2, tap_id=uuid.uuid4(),
                    dice=(2, 2), called=None, seen=0, link_ids=scorer(party, 2),
                    round_id=first.id, bell_seen=False)
    assert not LateTap.objects.exists()


def test_a_lost_push_fails_no_write_and_the_phones_are_told_to_resync_later(monkeypatch):
    import time

    from parties.live import announce

    sent, down = [], [3]  # the layer refuses the push and the first two recovery attempts

    class FlakyLayer:
        async def group_send(self, group, message):
            if down[0]:
                down[0] -= 1
                raise ConnectionError("redis is down")
            sent.append((group, json.loads(message["text"])))

    layer = FlakyLayer()
    monkeypatch.setattr(announce, "get_channel_layer", lambda: layer)
    monkeypatch.setattr(announce, "RECOVERY_INTERVAL", 0.01)
    announce._send(7, announce.table_group(7, 2), {"type": "table"})  # raises nothing
    deadline = time.monotonic() + 5
    while not sent and time.monotonic() < deadline:
        time.sleep(0.01)
    assert sent == [("party-7", {"type": "resync"})]


# -- a roll entered before its phone heard the bell ----------------------------------------------


def late_tap(party, table, seen, bell_seen, **roll):
    return roll_record(
        party_id=party.id, table_number=table, tap_id=uuid.uuid4(), called=None, seen=seen,
        link_ids=scorer(party, table), bell_seen=bell_seen, **roll,
    )


def test_a_roll_made_before_the_bell_counts_for_the_player_holding_the_dice(party):
    tap(party, 3, (1, 2, 3))
    tap(party, 3, (2, 3, 4))  # seat 2 holds the dice now, no roll of theirs entered yet
    bell_ring(party=Party.objects.get(pk=party.pk), by="host")
    result = late_tap(party, 3, seen=2, bell_seen=False, outcome="two")
    assert result.status == "saved"
    table = live(party)[1].table(3)
    assert table.points == (1, 2) and table.finishing and table.turn_seat == 2
    state.forget_all()  # the rows replay to the same table
    again = live(party)[1].table(3)
    assert (again.points, again.phase, again.turn) == (table.points, table.phase, table.turn)
    assert Roll.objects.get(outcome="two").before_bell


def test_a_miss_made_before_the_bell_hands_the_finishing_turn_on(party):
    tap(party, 3, (1, 2, 3))
    bell_ring(party=Party.objects.get(pk=party.pk), by="host")
    late_tap(party, 3, seen=1, bell_seen=False, dice=(2, 3, 4))  # seat 1's miss, pre-bell
    table = live(party)[1].table(3)
    assert table.finishing and table.turn_seat == 2  # seat 2 held the dice at the bell
    late_tap(party, 3, seen=2, bell_seen=True, dice=(2, 3, 4))  # seat 2's miss, after it
    assert live(party)[1].table(3).done


def test_where_tables_stop_at_the_bell_a_roll_made_before_it_still_counts():
    p = new_party(finish_turn_after_bell=False)
    round_start(party=p)
    tap(p, 3, (1, 2, 3))
    bell_ring(party=Party.objects.get(pk=p.pk), by="host")
    assert live(p)[1].table(3).done
    with pytest.raises(PartyError, match="over"):  # made after the bell: nothing to finish
        late_tap(p, 3, seen=1, bell_seen=True, outcome="one")
    late_tap(p, 3, seen=1, bell_seen=False, outcome="one")
    table = live(p)[1].table(3)
    assert table.done and table.points == (2, 0)


def test_without_a_fuzzy_die_nobody_holds_it_at_a_close_and_no_query_asks(party):
    # The close asks who holds the die; with the rules' traveling off the answer is known
    # without the two queries it takes otherwise (a 400-player close, bench/close_cpu.py).
    from parties.fuzzy_die import fuzzy_holder

    round_, now = live(party)
    with CaptureQueriesContext(connection) as queries:
        assert fuzzy_holder(party, round_, now) is None
    assert not queries.captured_queries


def test_with_a_fuzzy_die_the_close_finds_its_holder_from_earlier_rounds():
    from parties.fuzzy_die import fuzzy_holder

    p = new_party("wba")
    round_start(party=p)
    round_, now = live(p)
    assert now.state.fuzzy_die is None and fuzzy_holder(p, round_, now) == round_.fuzzy_die_id
    assert round_.fuzzy_die_id is not None  # wba: the die starts at the head table


def test_the_fuzzy_die_changing_hands_tells_every_page():
    # A roll's push goes to its table only; who holds the fuzzy die is on every page, so a
    # taker moves the party's seq on (every phone refetches), and a roll that takes nothing
    # does not.
    p = new_party("wba")
    round_start(party=p)
    seq = Party.objects.get(pk=p.pk).seq
    tap(p, 2, (1, 2, 3))
    assert Party.objects.get(pk=p.pk).seq == seq
    tap(p, 2, (1, 1, 1), called=True)  # a Bunco at table 2 takes the die
    assert Party.objects.get(pk=p.pk).seq == seq + 1
    assert live(p)[1].state.fuzzy_die is not None


def test_a_correction_while_paused_pushes_tables_that_still_say_paused(
    pushes, django_capture_on_commit_callbacks
):
    p = new_party()
    round_start(party=p)
    tap(p, 2, (1, 2, 3))
    party_pause(party=p)
    pushes.clear()
    with django_capture_on_commit_callbacks(execute=True):
        roll_void(party=p, roll_id=Roll.objects.get().id, by="host")
    tables = [message for _group, message in pushes if message["type"] == "table"]
    assert tables, pushes
    for message in tables:
        assert ">Paused<" in message["html"] and "Rolling" not in message["html"]
