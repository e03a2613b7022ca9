"""What the database itself refuses, whatever code tries to write."""

import uuid

import pytest
from django.db import IntegrityError, transaction

from parties.models import Roll, Round, ScoreSheetLine, Seat
from tests.parties.conftest import create_party

pytestmark = pytest.mark.django_db


@pytest.fixture
def round_and_seat(host):
    party = create_party(host)
    round_ = Round.objects.get(party=party)
    return round_, Seat.objects.filter(round=round_).select_related("table", "player").first()


def roll(round_, seat, **kwargs):
    values = dict(round=round_, table=seat.table, roller=seat.player, die1=1, die2=2, die3=3,
                  tap_id=uuid.uuid4(), entered_by="table 1")
    values.update(kwargs)
    return Roll.objects.create(**values)


def refused(make):
    with pytest.raises(IntegrityError), transaction.atomic():
        make()


def test_dice_must_show_1_to_6(round_and_seat):
    round_, seat = round_and_seat
    refused(lambda: roll(round_, seat, die1=0))
    refused(lambda: roll(round_, seat, die3=7))
    refused(lambda: roll(round_, seat, die4=9))
    assert roll(round_, seat, die4=6).dice == (1, 2, 3, 6)
    assert Roll.objects.count() == 1


def test_a_tap_is_one_fact_however_often_it_is_sent(round_and_seat):
    round_, seat = round_and_seat
    tap = uuid.uuid4()
    roll(round_, seat, tap_id=tap)
    refused(lambda: roll(round_, seat, tap_id=tap))
    assert Roll.objects.count() == 1


def test_a_player_sits_once_a_round_and_a_chair_holds_one_player(round_and_seat):
    round_, seat = round_and_seat
    other = Seat.objects.filter(round=round_).exclude(table=seat.table).first()
    refused(lambda: Seat.objects.create(round=round_, table=other.table, player=seat.player,
                                        position=other.position))
    refused(lambda: Seat.objects.create(round=round_, table=seat.table, player=other.player,
                                        position=seat.position))


def test_seat_positions_and_round_numbers_stay_in_range(round_and_seat):
    round_, seat = round_and_seat
    refused(lambda: Seat.objects.filter(pk=seat.pk).update(position=5))
    refused(lambda: Round.objects.filter(pk=round_.pk).update(number=7))
    refused(lambda: Round.objects.filter(pk=round_.pk).update(target=0))


def test_one_sheet_line_per_player_per_round(round_and_seat):
    round_, seat = round_and_seat
    ScoreSheetLine.objects.create(player=seat.player, round=round_, table=seat.table, won=True)
    refused(lambda: ScoreSheetLine.objects.create(player=seat.player, round=round_,
                                                  table=seat.table, won=False))
