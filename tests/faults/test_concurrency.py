"""Writes that arrive together, on two daphne processes sharing PostgreSQL and Redis: two
phones on one table, the same tap from two tabs, the last rolls of every table at once, and
two party-wide changes at once. Where "together" must be exact, the test holds the party's
row lock while the requests arrive (PartyLock), so every run races the same way."""

import threading
import uuid

import pytest

from tests.faults.db import PartyLock
from tests.faults.party import BUNCO, MISS, SCORE, SIXTEEN, started_party
from tests.faults.phone import Phone
from tests.faults.watcher import assert_phone_shows_db

pytestmark = pytest.mark.slow


def test_two_phones_tapping_one_table_at_once_count_each_saved_tap_once(
    daphnes, make_party, pg, watchers
):
    party, servers, _host = started_party(make_party, daphnes)
    phones = [Phone(server, party, party.table_tokens[2]) for server in servers]
    screens = [watchers(phone, [2]) for phone in phones]

    saved, stale, version = [], [], 0
    for i in range(15):
        gate = threading.Barrier(2)
        answers = [None, None]
        taps = [uuid.uuid4(), uuid.uuid4()]

        def send(k, i=i, gate=gate, answers=answers, taps=taps, seen=version):
            gate.wait(10)
            answers[k] = phones[k].tap_once(2, taps[k], seen, dice=SCORE if i % 3 else MISS)

        threads = [threading.Thread(target=send, args=(k,)) for k in (0, 1)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        statuses = sorted((a.status, a.json["status"]) for a in answers)
        # Both phones saw the same table: one roll is taken, the other is refused as stale
        # (never both saved, never a 500), and the refusal says what the table is at now.
        assert statuses == [(200, "saved"), (409, "stale")], answers
        for tap_id, answer in zip(taps, answers, strict=True):
            if answer.json["status"] == "saved":
                saved.append(str(tap_id))
                version = answer.json["version"]
        for tap_id, answer in zip(taps, answers, strict=True):
            if answer.json["status"] == "stale":
                stale.append(str(tap_id))
                assert answer.json["message"]
                assert answer.json["version"] == version  # the table as the winner left it

    rows = pg.rolls(pg.current_round(party.id)[0], 2)
    assert [r[2] for r in rows] == saved  # each saved tap once, in order; no stale one
    assert not set(stale) & {r[2] for r in rows}
    for screen in screens:
        assert_phone_shows_db(screen, pg, party.id)
        assert screen.view[2]["version"] == 15


def test_the_same_tap_from_two_tabs_at_once_is_saved_once_and_answered_duplicate(
    daphnes, make_party, pg
):
    """Two tabs (or a reload while the first send is in flight) share one outbox, so one tap
    can arrive twice at the same moment. It is one fact: one answer "saved", the other
    "duplicate". A "stale" (409) or "refused" answer would make table.js drop its whole
    outbox and tell the scorekeeper to enter the roll again, though it was saved."""
    party, servers, _host = started_party(make_party, daphnes)
    tabs = [Phone(server, party, party.table_tokens[2]) for server in servers]
    round_id = pg.current_round(party.id)[0]
    tap_id = uuid.uuid4()
    with PartyLock(pg, party.id) as lock:
        for k, tab in enumerate(tabs):
            lock.send(k, lambda tab=tab: tab.tap_once(2, tap_id, 0, dice=SCORE))
        answers = lock.release()
    assert [r[2] for r in pg.rolls(round_id, 2)] == [str(tap_id)]  # saved once: holds today
    statuses = sorted((a.status, a.json and a.json["status"]) for a in answers.values())
    assert statuses == [(200, "duplicate"), (200, "saved")], answers


def test_last_rolls_of_every_table_at_once_close_and_rotate_the_round_once(
    daphnes, make_party, pg, watchers
):
    party, servers, host = started_party(make_party, daphnes, names=SIXTEEN)
    keepers = {n: Phone(servers[n % 2], party, party.table_tokens[n]) for n in (1, 2, 3, 4)}
    second_host = Phone(servers[1], party, party.host_token)
    screens = [watchers(host, [1, 2, 3, 4]), watchers(Phone(servers[1], party, party.table_tokens[3]), [3])]
    round1 = pg.current_round(party.id)[0]

    def tap(n, seen, dice, **fields):
        answer = keepers[n].tap_once(n, uuid.uuid4(), seen, dice=dice, **fields)
        assert answer.status == 200 and answer.json["status"] == "saved", (n, answer)
        return answer

    # Tables 2 and 3 are mid-turn (1-0), table 4 has just passed the dice (1-0, no roll of the
    # new turn entered), then the head table's called Bunco (21) rings the bell.
    for n in (2, 3, 4):
        tap(n, 0, SCORE)
    tap(4, 1, MISS)
    tap(1, 0, BUNCO, called="yes")
    for screen in screens:
        screen.wait(lambda s=screen: any(m["type"] == "bell" for m in s.messages), 10,
                    "the bell on the phone")
    assert pg.value("SELECT bell_at IS NOT NULL FROM parties_round WHERE id = %s", round1)

    # At table 4 the player the dice had passed to finishes that turn (docs/rules.md 2.4) with
    # a miss; the table is then done, and refuses more taps; nothing changes.
    tap(4, 2, MISS)
    before = pg.snapshot(party.id)
    refused = keepers[4].tap_once(4, uuid.uuid4(), 3, dice=SCORE)
    assert refused.status == 400 and refused.json["status"] == "refused", refused
    assert "over" in refused.json["message"]
    assert pg.snapshot(party.id) == before

    # The last rolls of tables 1, 2 and 3 (each ends its turn, so its table is done) and the
    # host's second press of the bell, all at the same moment, on both processes.
    last = {n: uuid.uuid4() for n in (1, 2, 3)}
    with PartyLock(pg, party.id) as lock:
        for n in (1, 2, 3):
            lock.send(n, lambda n=n: keepers[n].tap_once(n, last[n], 1, dice=MISS))
        lock.send("bell", lambda: second_host.host_button("bell"))
        answers = lock.release()
    for n in (1, 2, 3):
        assert answers[n].status == 200 and answers[n].json["status"] == "saved", answers
    bell = answers["bell"]
    assert bell.status == 302 and bell.message, bell  # rang, or "already over": never a 500
    assert all(a.status < 500 for a in answers.values())

    # Closed once, sheets marked once, one next round seated once; the bell rang once.
    assert pg.rows("SELECT status FROM parties_round WHERE id = %s", round1) == [("closed",)]
    assert pg.value("SELECT count(*) FROM parties_scoresheetline WHERE round_id = %s",
                    round1) == 16
    rounds = pg.rows("SELECT id, number, status FROM parties_round WHERE party_id = %s "
                     "AND status <> 'closed'", party.id)
    assert [(number, status) for _id, number, status in rounds][0] == (2, "waiting")
    round2 = rounds[0][0]
    assert pg.value("SELECT count(*) FROM parties_round WHERE party_id = %s AND number = 2 "
                    "AND bunco_set_id = (SELECT bunco_set_id FROM parties_round WHERE id = %s)",
                    party.id, round1) == 1
    assert pg.value("SELECT count(*) FROM parties_seat WHERE round_id = %s", round2) == 16
    assert pg.value("SELECT count(DISTINCT player_id) FROM parties_seat WHERE round_id = %s",
                    round2) == 16
    assert pg.value("SELECT count(*) FROM parties_roundbell WHERE round_id = %s", round1) == 0

    # Every phone heard one bell and one close, and moved on to round 2.
    for screen in screens:
        screen.wait(lambda s=screen: s.live_round == round2, 15, "the phone to show round 2")
        kinds = [(m["type"], m.get("what")) for m in screen.messages if m["type"] != "table"]
        assert kinds.count(("bell", None)) == 1, kinds
        # One close, one message a page (parties/live/consumers.py): the table's page takes its new
        # seat from its table's message (parties/live/close_push.py); the host's page, with no
        # view, gets the party-wide message and refetches.
        closes = [m for m in screen.messages if (m["type"], m.get("what")) == ("round", "closed")]
        assert len(closes) == 1, closes
        assert ("views" in closes[0]) == bool(screen.phone.view), (screen.phone.view, closes)
    party_seq = pg.value("SELECT seq FROM parties_party WHERE id = %s", party.id)
    assert max(m["seq"] for m in screens[0].messages if m["type"] != "table") == party_seq

    # Taps for the closed round count nowhere: each is held for the host as a late roll, with
    # a message for the phone; no roll, round or sheet changes. A retry of a tap the round
    # saved is still recognised as that tap.
    before = pg.snapshot(party.id)
    for n in (1, 2, 3, 4):
        late = keepers[n].tap_once(n, uuid.uuid4(), 2, dice=SCORE)
        assert late.status == 200 and late.json["status"] == "held", late
        assert "went to the host" in late.json["message"]
    again = keepers[2].tap_once(2, last[2], 1, dice=MISS)
    assert again.status == 200 and again.json["status"] == "duplicate", again
    after = pg.snapshot(party.id)
    assert {k: v for k, v in after.items() if k != "party"} == {
        k: v for k, v in before.items() if k != "party"
    }
    assert pg.value("SELECT count(*) FROM parties_latetap WHERE party_id = %s AND round_id = %s "
                    "AND status = 'pending'", party.id, round1) == 4


def test_two_party_wide_changes_at_once_announce_two_different_seqs(
    daphnes, make_party, pg, watchers
):
    """Phones drop a bell/round message whose seq is not above the last one they saw (live.js
    receive()). So two party-wide writes racing each other must announce different seqs, the
    last one being the party's seq in the database; otherwise one of them, here the bell,
    is silently ignored by every phone that heard the other first."""
    party, servers, host = started_party(make_party, daphnes)
    head = Phone(servers[0], party, party.table_tokens[1])
    third = Phone(servers[1], party, party.table_tokens[3])
    second_host = Phone(servers[1], party, party.host_token)
    screen = watchers(host, [1, 2, 3])
    round1 = pg.current_round(party.id)[0]
    assert third.tap_once(3, uuid.uuid4(), 0, dice=SCORE).json["status"] == "saved"
    roll3 = pg.rolls(round1, 3)[0][0]
    assert_phone_shows_db(screen, pg, party.id)

    with PartyLock(pg, party.id) as lock:  # the head table's Bunco and the host's correction
        lock.send("bunco", lambda: head.tap_once(1, uuid.uuid4(), 0, dice=BUNCO, called="yes"))
        lock.send("void", lambda: second_host.host_button(f"rolls/{roll3}/void"))
        answers = lock.release()
    assert answers["bunco"].json["status"] == "saved", answers
    assert answers["void"].ok, answers

    party_seq = pg.value("SELECT seq FROM parties_party WHERE id = %s", party.id)
    screen.wait(lambda: len([m for m in screen.messages if m["type"] != "table"]) >= 2, 10,
                "the bell and the correction")
    wide = [m for m in screen.messages if m["type"] != "table"]
    seqs = [m["seq"] for m in wide]
    assert len(set(seqs)) == len(seqs) and max(seqs) == party_seq, (
        f"party-wide messages {[(m['type'], m.get('what'), m['seq']) for m in wide]}, "
        f"party seq in the database {party_seq}")
    assert_phone_shows_db(screen, pg, party.id)
