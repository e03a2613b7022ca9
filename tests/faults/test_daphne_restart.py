"""The server process dies mid-round (SIGKILL, as a crash or an OOM kill) and comes back:
taps in flight are retried by the phones and saved exactly once; phones reconnect, resync
and show what the database holds."""

import threading
import uuid

from bench.waiting import wait_until
from tests.faults.phone import Phone
from tests.faults.watcher import assert_phone_shows_db

# Round 1's target is 1: (1, 2, 3) scores 1 and keeps the dice, (2, 3, 4) misses and passes
# them. Twelve of these per table stay far from 21, so no bell rings in these tests.
SCORE, MISS = (1, 2, 3), (2, 3, 4)


def keeper_loop(phone, table, count, log, errors, progress):
    """One scorekeeper entering `count` rolls one after another, each retried until answered."""
    version = 0
    try:
        for i in range(count):
            tap_id = uuid.uuid4()
            answer = phone.tap(table, tap_id, version, dice=SCORE if i % 3 else MISS)
            log.append((tap_id, answer))
            assert answer.status == 200 and answer.json["status"] in ("saved", "duplicate"), (
                table, i, answer)
            version = answer.json["version"]
            progress.release()
    except BaseException as error:  # noqa: BLE001 - reported by the test thread
        errors.append(error)


def test_a_daphne_killed_mid_round_loses_no_tap_and_counts_none_twice(
    daphnes, make_party, pg, watchers
):
    party = make_party()
    server = daphnes()
    host = Phone(server, party, party.host_token)
    host.start_round()
    keepers = {n: Phone(server, party, party.table_tokens[n]) for n in (1, 2, 3)}
    screens = [watchers(host, [1, 2, 3]), watchers(keepers[2], [2])]

    count = 12
    logs = {n: [] for n in keepers}
    errors = []
    progress = threading.Semaphore(0)
    threads = [
        threading.Thread(target=keeper_loop, args=(keepers[n], n, count, logs[n], errors, progress))
        for n in keepers
    ]
    for thread in threads:
        thread.start()
    for _ in range(6):  # a few taps are in, the phones keep tapping: now the server dies
        assert progress.acquire(timeout=30), errors
    server.kill()
    server.restart()  # same port: the phones' retries and reconnects find it again
    for thread in threads:
        thread.join(90)
        assert not thread.is_alive()
    assert not errors, errors

    round_id = pg.current_round(party.id)[0]
    retried = 0
    for table, log in logs.items():
        rows = pg.rolls(round_id, table)
        # Every tap the phone entered is in the database once, in the order entered.
        assert [r[2] for r in rows] == [str(tap_id) for tap_id, _answer in log]
        assert all(r[8] is None for r in rows)
        retried += sum(answer.tries > 1 for _tap, answer in log)
    assert retried >= 1, "no tap was in flight while the server was down: the kill missed"

    for screen in screens:
        screen.wait(lambda s=screen: s.opened >= 2, 30, "the websocket to reconnect")
        assert_phone_shows_db(screen, pg, party.id)
    for table in (1, 2, 3):
        assert pg.truth(party.id, table)["version"] == count


def test_a_tap_inside_its_transaction_when_daphne_dies_is_saved_once_by_its_retry(
    daphnes, make_party, pg, watchers
):
    """Deterministic mid-request death: the test holds the round's row lock, so the tap waits
    inside its transaction; daphne is killed there; the retry on the new process saves it."""
    party = make_party()
    server = daphnes()
    host = Phone(server, party, party.host_token)
    host.start_round()
    keeper = Phone(server, party, party.table_tokens[2])
    screen = watchers(keeper, [2])
    first = keeper.tap(2, uuid.uuid4(), 0, dice=SCORE)
    assert first.json["status"] == "saved" and first.json["version"] == 1
    round_id = pg.current_round(party.id)[0]

    tap_id = uuid.uuid4()
    answers = []
    lock = pg.connect(autocommit=False)
    try:
        lock.execute("SELECT id FROM parties_round WHERE id = %s FOR UPDATE", (round_id,))
        sender = threading.Thread(
            target=lambda: answers.append(keeper.tap(2, tap_id, 1, dice=SCORE, timeout=60)))
        sender.start()
        wait_until(lambda: pg.value(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
            "AND datname = current_database()"), 15, "the tap to wait on the party's lock")
        server.kill()
    finally:
        lock.rollback()
        lock.close()
    server.restart()
    sender.join(60)
    assert answers and answers[0].status == 200, answers
    assert answers[0].json["status"] in ("saved", "duplicate")
    assert answers[0].tries > 1
    rows = pg.rolls(round_id, 2)
    assert [r[2] for r in rows].count(str(tap_id)) == 1
    assert len(rows) == 2
    screen.wait(lambda: screen.opened >= 2, 30, "the websocket to reconnect")
    assert_phone_shows_db(screen, pg, party.id)
    assert screen.view[2]["version"] == 2 and screen.view[2]["points"] == [2, 0]
