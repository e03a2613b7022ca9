"""The game with the speed machinery off (BUNCO_FAST=0 and BUNCO_SERVER_TUNING=0: no lean door,
no gate, no kept threads, one publish a push, Twisted's listen queue, no server patches) plays
a whole night the same: on two daphne processes, PostgreSQL and Redis, the taps sent as the
page sends them, every round of the night rung, closed once and seated once, and the phones
showing what the database says."""

import uuid

import pytest

from tests.faults.party import TWELVE, create_party
from tests.faults.phone import Phone
from tests.faults.watcher import assert_phone_shows_db

pytestmark = pytest.mark.slow

ALL_OFF = {"BUNCO_FAST": "0", "BUNCO_SERVER_TUNING": "0"}
ROUNDS_A_NIGHT = 12  # the standard preset: two sets of six rounds


def dice(target, score):
    """Three dice of a round whose target is `target`: one target die (a point), or none."""
    others = [face for face in range(1, 7) if face != target]
    return (target, others[0], others[1]) if score else tuple(others[:3])


def saved(answer):
    assert answer.status == 200 and answer.json["status"] == "saved", answer
    return answer.json["version"]


def play_round(keepers, target):
    """Tables 2 and 3 score a point; the head table's called Bunco rings the bell; each table's
    player then ends the turn with a miss, and the round is over everywhere."""
    versions = {}
    for table, keeper in keepers.items():
        keeper.round_id = None  # a new round: the page learns it as it loads
        versions[table] = keeper.learn(table)["version"]
    for table in (2, 3):
        versions[table] = saved(keepers[table].tap(table, uuid.uuid4(), versions[table],
                                                   dice=dice(target, True)))
    versions[1] = saved(keepers[1].tap(1, uuid.uuid4(), versions[1], dice=(target,) * 3,
                                       called="yes"))
    for table, keeper in keepers.items():
        saved(keeper.tap(table, uuid.uuid4(), versions[table], dice=dice(target, False)))


def test_a_whole_night_plays_the_same_with_every_speed_piece_off(pg, redis, daphnes, watchers):
    from tests.faults.conftest import servers_env

    party = create_party(servers_env(pg, redis, **ALL_OFF), "standard", TWELVE)
    servers = [daphnes(**ALL_OFF), daphnes(**ALL_OFF)]
    host = Phone(servers[0], party, party.host_token)
    keepers = {n: Phone(servers[n % 2], party, party.table_tokens[n]) for n in (1, 2, 3)}
    screen = watchers(Phone(servers[1], party, party.table_tokens[2]), [2])
    for server in servers:
        log = server.log_text()
        assert "speed pieces on: none; off: lean_door, gate, kept_threads" in log, log
        assert "server tuning: gc_policy off" in log, log

    for _ in range(ROUNDS_A_NIGHT):
        host.start_round()
        round_id, _number, status, _version, target = pg.current_round(party.id)
        assert status == "playing"
        play_round(keepers, target)
        assert pg.rows("SELECT status, bell_at IS NOT NULL FROM parties_round WHERE id = %s",
                       round_id) == [("closed", True)]
        assert pg.value("SELECT count(*) FROM parties_scoresheetline WHERE round_id = %s",
                        round_id) == 12

    # The night is over: every round of both sets closed once, nothing left to start.
    statuses = pg.rows("SELECT status FROM parties_round WHERE party_id = %s", party.id)
    assert statuses == [("closed",)] * ROUNDS_A_NIGHT
    assert_phone_shows_db(screen, pg, party.id)
