"""Taps a phone's outbox sends together (roll_record's `more`): each is taken in turn, as if
it had come alone next, until one is refused, asks a question, rings the bell or closes the
round; the table's phones get one update, of the last."""

import random
import uuid

import pytest

from parties import taps
from parties.models import Roll
from parties.services.errors import PartyError, StaleTap
from parties.services.roll import MAX_MORE, roll_record
from parties.services.round import round_start
from scoring import InvalidRoll
from tests.parties import test_play
from tests.parties.test_play import live, new_party, points, scorer

pushes = test_play.pushes  # the fixture recording what the writes push

pytestmark = pytest.mark.django_db


@pytest.fixture
def party():
    p = new_party()
    round_start(party=p)
    return p


def fields(seen, dice, called=None, tap_id=None):
    return {"tap_id": tap_id or uuid.uuid4(), "dice": tuple(dice), "called": called,
            "seen": seen}


def together(party, table, *queued):
    first, *more = queued
    return roll_record(party_id=party.id, table_number=table, link_ids=scorer(party, table),
                       **first, more=more)


def table_pushes(sent):
    return [(m["table"], m["version"]) for _group, m in sent if m["type"] == "table"]


def test_queued_taps_are_taken_in_order_with_one_update_to_the_table(
    party, pushes, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        result = together(party, 2, fields(0, (1, 1, 4)), fields(1, (2, 2, 6)), fields(2, (1, 3, 4)))
    assert (result.status, result.table_version) == ("saved", 1)
    assert [(r.status, r.table_version) for r in result.more] == [("saved", 2), ("saved", 3)]
    assert list(Roll.objects.order_by("id").values_list("die1", "die2", "die3")) == [
        (1, 1, 4), (2, 2, 6), (1, 3, 4)
    ]
    assert points(party, 2) == (2, 1)  # 2 for the 1s, the dice passed, then 1
    assert table_pushes(pushes) == [(2, 3)]  # one update, showing all three


def same_play(table):
    """The table's play, less what differs between two parties (player and roll ids)."""
    return table._replace(seats=(), last=table.last and table.last._replace(roller=""))


def test_taps_sent_together_leave_what_the_same_taps_sent_one_by_one_leave():
    rng = random.Random(11)
    for _trial in range(6):
        alone, at_once = new_party(), new_party()
        round_start(party=alone)
        round_start(party=at_once)
        queued = [tuple(rng.randint(1, 6) for _ in range(3)) for _ in range(rng.randint(2, 10))]
        version, taken = 0, []
        for dice in queued:
            answer = roll_record(party_id=alone.id, table_number=3, link_ids=scorer(alone, 3),
                                 **fields(version, dice, called=True))
            if answer.status != "saved":
                break
            version = answer.table_version
            taken.append(dice)
        together(at_once, 3, *(fields(n, dice, called=True) for n, dice in enumerate(taken)))
        assert same_play(live(alone)[1].table(3)) == same_play(live(at_once)[1].table(3)), queued
        assert Roll.objects.filter(round__party=at_once).count() == len(taken)


def test_a_stale_tap_stops_the_rest_and_what_came_before_it_is_kept(party):
    result = together(party, 2, fields(0, (1, 2, 3)), fields(5, (1, 1, 2)), fields(2, (1, 4, 5)))
    assert result.status == "saved"
    (refusal,) = result.more
    assert isinstance(refusal, StaleTap) and refusal.version == 1
    assert Roll.objects.count() == 1 and points(party, 2) == (1, 0)


def test_bad_dice_behind_a_good_tap_are_refused_alone(party):
    result = together(party, 2, fields(0, (1, 2, 3)), fields(1, (1, 9, 2)), fields(2, (1, 4, 5)))
    (refusal,) = result.more
    assert isinstance(refusal, (PartyError, InvalidRoll))
    assert Roll.objects.count() == 1


def test_a_retried_tap_in_the_queue_is_answered_as_a_retry_and_the_rest_go_on(party):
    first = fields(0, (1, 2, 3))
    roll_record(party_id=party.id, table_number=2, link_ids=scorer(party, 2), **first)
    result = together(party, 2, first, fields(1, (1, 4, 5)))
    assert result.status == "duplicate" and result.table_version == 1
    assert [(r.status, r.table_version) for r in result.more] == [("saved", 2)]
    assert Roll.objects.count() == 2 and points(party, 2) == (2, 0)


def test_a_roll_to_ask_about_stops_the_queue_there(party):
    result = together(party, 2, fields(0, (1, 2, 3)), fields(1, (1, 1, 1)), fields(1, (2, 3, 4)))
    assert [(r.status, r.ask) for r in result.more] == [("ask_call", "bunco")]
    assert Roll.objects.count() == 1


def test_the_bell_stops_the_queue_and_goes_out_once_before_the_tables(
    party, pushes, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        result = together(party, 1, fields(0, (1, 2, 3)), fields(1, (1, 1, 1), called=True),
                          fields(2, (2, 3, 4)))
    assert [r.status for r in result.more] == ["saved"]  # the third waits for the next request
    assert live(party)[1].state.bell and Roll.objects.count() == 2
    kinds = [m["type"] for _group, m in pushes]
    assert kinds == ["bell", "table", "table", "table"]  # no update of table 1 alone before it
    assert (1, 2) in table_pushes(pushes)


def test_too_many_taps_at_once_are_refused_and_nothing_is_saved(party):
    queued = [fields(n, (2, 3, 4)) for n in range(MAX_MORE + 2)]
    with pytest.raises(PartyError, match="at most"):
        together(party, 2, *queued)
    assert Roll.objects.count() == 0


@pytest.mark.parametrize(
    "more", ["[", '{"tap_id": "x"}', "[1, 2]", '[{"seen": "1", "outcome": "miss"}]']
)
def test_a_queue_the_server_cannot_read_is_refused_with_why(more):
    form = {"tap_id": str(uuid.uuid4()), "seen": "0", "outcome": "miss", "more": more}
    with pytest.raises(PartyError):
        taps.tap_fields(form)


def test_the_queue_is_read_from_the_form_as_the_outbox_sends_it():
    second = str(uuid.uuid4())
    form = {"tap_id": str(uuid.uuid4()), "seen": "0", "outcome": "miss", "round": "7",
            "more": f'[{{"tap_id": "{second}", "seen": "1", "dice": "1,2,3", "round": "7",'
                    f' "bell_seen": "0", "called": "yes"}}]'}
    (behind,) = taps.tap_fields(form)["more"]
    assert behind == {"tap_id": uuid.UUID(second), "seen": 1, "dice": (1, 2, 3), "round_id": 7,
                      "bell_seen": False, "called": True}
