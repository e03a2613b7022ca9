"""The races a review found on the production topology (two daphne processes, PostgreSQL,
Redis, DEBUG off, taps sent as the page sends them), each made to happen every time by holding
the party's row lock while the racing requests arrive (PartyLock). The first lean tap path
judged a tap that had waited for the lock on the round as it was before the wait: each test
below failed on it."""

import time
import uuid

import pytest

from tests.faults.db import PartyLock
from tests.faults.party import BUNCO, MISS, SCORE, SIXTEEN, started_party
from tests.faults.phone import Phone
from tests.faults.watcher import assert_phone_shows_db

pytestmark = pytest.mark.slow


def saved(answer):
    assert answer.status == 200 and answer.json["status"] == "saved", answer
    return answer.json["version"]


def assert_round_replays_and_pages_answer(pg, party, phones):
    """Every table of the round in play replays from its rows through scoring/ (a roll the
    rules refuse makes the replay raise), and the pages answer."""
    tables = pg.value("SELECT count(*) FROM parties_table WHERE party_id = %s", party.id)
    for table in range(1, tables + 1):
        pg.truth(party.id, table)
    for phone in phones:
        answer = phone.request("GET", f"/parties/{party.id}/host/")
        assert answer.status in (200, 403), answer  # 403: not the host's phone; never a 500


def test_a_tap_at_a_table_the_bell_stopped_as_the_host_rings_is_refused_and_play_goes_on(
    daphnes, make_party, pg
):
    # Where every table stops at the bell (finish_turn_after_bell off; by default the player
    # holding the dice finishes, so a tap behind the bell is a finishing roll and is taken).
    party, servers, host = started_party(make_party, daphnes, finish_turn_after_bell=False)
    keeper = Phone(servers[1], party, party.table_tokens[3])
    version = saved(keeper.tap_once(3, uuid.uuid4(), 0, dice=SCORE))
    version = saved(keeper.tap_once(3, uuid.uuid4(), version, dice=MISS))  # the dice pass
    before = pg.snapshot(party.id)

    with PartyLock(pg, party.id) as lock:  # the bell first, the tap right behind it
        lock.send("bell", lambda: host.host_button("bell"))
        lock.send("tap", lambda: keeper.tap_once(3, uuid.uuid4(), version, dice=SCORE,
                                                 bell_seen="1"))
        answers = lock.release()

    assert answers["bell"].ok, answers
    tap = answers["tap"]
    assert tap.status == 400 and tap.json["status"] == "refused", tap  # the table had stopped
    assert "over" in tap.json["message"]
    assert pg.snapshot(party.id)["rolls"] == before["rolls"]  # the refused tap saved nothing
    assert_round_replays_and_pages_answer(pg, party, [host])
    head = Phone(servers[1], party, party.table_tokens[1])
    saved(head.tap_once(1, uuid.uuid4(), 0, dice=MISS))  # the head table's 0-0 roll-off


def test_a_roll_begun_before_the_phone_heard_the_bell_counts_before_it_though_it_lands_after(
    daphnes, make_party, pg
):
    # The same race, but the scorekeeper began the roll before the phone showed the bell: it
    # is played on the table as it stood at the bell, on both processes, and replays so.
    party, servers, host = started_party(make_party, daphnes, finish_turn_after_bell=False)
    keeper = Phone(servers[1], party, party.table_tokens[3])
    version = saved(keeper.tap_once(3, uuid.uuid4(), 0, dice=SCORE))
    version = saved(keeper.tap_once(3, uuid.uuid4(), version, dice=MISS))  # seat 2's turn

    with PartyLock(pg, party.id) as lock:
        lock.send("bell", lambda: host.host_button("bell"))
        lock.send("tap", lambda: keeper.tap_once(3, uuid.uuid4(), version, dice=SCORE,
                                                 bell_seen="0"))
        answers = lock.release()

    assert answers["bell"].ok, answers
    saved(answers["tap"])
    truth = pg.truth(party.id, 3)
    assert truth["points"] == [1, 1] and truth["version"] == 3  # seat 2's point counted
    state, _versions = pg.replay(party.id, truth["round"])
    assert state.bell and state.tables[2].rolloff_needed  # 1-1 at the bell: a roll-off
    assert_round_replays_and_pages_answer(pg, party, [host])


def test_the_last_misses_of_two_tables_through_two_processes_close_the_round_once(
    daphnes, make_party, pg, watchers
):
    party, servers, host = started_party(make_party, daphnes, names=SIXTEEN)
    keepers = {n: Phone(servers[n % 2], party, party.table_tokens[n]) for n in (1, 2, 3, 4)}
    seen = {n: saved(keepers[n].tap_once(n, uuid.uuid4(), 0, dice=SCORE)) for n in (2, 3)}
    seen[4] = saved(keepers[4].tap_once(4, uuid.uuid4(), 0, dice=SCORE))
    seen[4] = saved(keepers[4].tap_once(4, uuid.uuid4(), seen[4], dice=MISS))  # 1-0, passed
    saved(keepers[1].tap_once(1, uuid.uuid4(), 0, dice=BUNCO, called="yes"))  # the bell
    seen[1] = saved(keepers[1].tap_once(1, uuid.uuid4(), 1, dice=MISS))  # head table done
    saved(keepers[4].tap_once(4, uuid.uuid4(), seen[4], dice=MISS))  # its new holder: done
    round1 = pg.current_round(party.id)[0]
    screen = watchers(host, [1, 2, 3, 4])

    with PartyLock(pg, party.id) as lock:  # tables 2 and 3 finish at the same moment
        for n in (2, 3):
            lock.send(n, lambda n=n: keepers[n].tap_once(n, uuid.uuid4(), seen[n], dice=MISS))
        answers = lock.release()

    for n in (2, 3):
        saved(answers[n])
    assert pg.rows("SELECT status FROM parties_round WHERE id = %s", round1) == [("closed",)]
    assert pg.value("SELECT count(*) FROM parties_scoresheetline WHERE round_id = %s",
                    round1) == 16
    waiting = pg.rows("SELECT number, status FROM parties_round WHERE party_id = %s "
                      "AND status <> 'closed'", party.id)
    assert waiting == [(2, "waiting")]
    screen.wait(lambda: screen.live_round != round1, 15, "the phone to show round 2")


def test_the_same_roll_from_two_phones_of_a_table_on_two_processes_is_counted_once(
    daphnes, make_party, pg, watchers
):
    party, servers, _host = started_party(make_party, daphnes)
    phones = [Phone(server, party, party.table_tokens[2]) for server in servers]
    screen = watchers(phones[0], [2])
    for attempt in range(3):
        version = pg.truth(party.id, 2)["version"]
        with PartyLock(pg, party.id) as lock:
            for k, phone in enumerate(phones):
                lock.send(k, lambda phone=phone, seen=version: phone.tap_once(
                    2, uuid.uuid4(), seen, dice=SCORE))
            answers = lock.release()
        statuses = sorted((a.status, a.json["status"]) for a in answers.values())
        assert statuses == [(200, "saved"), (409, "stale")], (attempt, answers)
        stale = next(a for a in answers.values() if a.json["status"] == "stale")
        assert stale.json["version"] == version + 1
    rows = pg.rolls(pg.current_round(party.id)[0], 2)
    assert len(rows) == 3
    assert pg.truth(party.id, 2)["points"] == [3, 0]  # three points for the first team
    assert_phone_shows_db(screen, pg, party.id, timeout=10)


def test_no_roll_is_saved_into_a_round_after_its_closing_roll(daphnes, make_party, pg):
    party, servers, host = started_party(make_party, daphnes)
    finishing = [Phone(server, party, party.table_tokens[2]) for server in servers]
    seen2 = saved(finishing[0].tap_once(2, uuid.uuid4(), 0, dice=SCORE))
    closers = {}
    for n in (1, 3):
        keeper = Phone(servers[0], party, party.table_tokens[n])
        version = saved(keeper.tap_once(n, uuid.uuid4(), 0, dice=SCORE))
        version = saved(keeper.tap_once(n, uuid.uuid4(), version, dice=MISS))  # 1-0, passed
        closers[n] = (keeper, version)
    assert host.host_button("bell").ok
    for n, (keeper, version) in closers.items():  # the dice's new holders finish: done
        saved(keeper.tap_once(n, uuid.uuid4(), version, dice=MISS))
    round1 = pg.current_round(party.id)[0]

    with PartyLock(pg, party.id) as lock:  # the closing miss, and another phone's roll
        lock.send("closing", lambda: finishing[0].tap_once(2, uuid.uuid4(), seen2, dice=MISS))
        lock.send("late", lambda: finishing[1].tap_once(2, uuid.uuid4(), seen2, dice=SCORE))
        answers = lock.release()

    saved(answers["closing"])
    late = answers["late"]
    # Behind the closing roll, the other phone's roll counts nowhere: it is held for the host
    # as a late roll, marked as made on a table another phone had changed since.
    assert late.status == 200 and late.json["status"] == "held", late
    assert pg.rows("SELECT status FROM parties_round WHERE id = %s", round1) == [("closed",)]
    description = pg.value(  # its words, kept as message ids and their values
        "SELECT description_messages::text FROM parties_latetap WHERE round_id = %s", round1
    )
    assert "another phone" in description, description
    last = pg.value("SELECT max(id) FROM parties_roll WHERE round_id = %s", round1)
    closing = pg.rows("SELECT id FROM parties_roll WHERE round_id = %s AND table_id = "
                      "(SELECT id FROM parties_table WHERE party_id = %s AND number = 2) "
                      "ORDER BY id DESC LIMIT 1", round1, party.id)[0][0]
    assert last == closing  # nothing after the closing roll
    lines = pg.value("SELECT count(*) FROM parties_scoresheetline WHERE round_id = %s", round1)
    assert lines == 12


def test_taps_waiting_for_one_party_do_not_hold_up_another_partys_tap(
    daphnes, make_party, pg
):
    server = daphnes()
    busy, other = make_party(), make_party()
    for party in (busy, other):
        Phone(server, party, party.host_token).start_round()
    busy_phones = [Phone(server, busy, busy.table_tokens[1 + k % 3]) for k in range(8)]
    other_phone = Phone(server, other, other.table_tokens[2])

    with PartyLock(pg, busy.id) as lock:
        for k, phone in enumerate(busy_phones):
            n = 1 + k % 3
            lock.send(k, lambda phone=phone, n=n: phone.tap_once(n, uuid.uuid4(), 0, dice=MISS))
        start = time.monotonic()
        answer = other_phone.tap_once(2, uuid.uuid4(), 0, dice=MISS)
        took = time.monotonic() - start
        assert not lock.results, "the busy party's taps went through while it was locked"
        answers = lock.release()
    saved(answer)
    assert took < 2, f"the other party's tap waited {took:.1f} s behind the busy party"
    for n in (1, 2, 3):  # each table's first tap is taken, the others are stale
        statuses = sorted(a.json["status"] for k, a in answers.items() if 1 + k % 3 == n)
        assert statuses[0] == "saved" and set(statuses[1:]) <= {"stale"}, answers
