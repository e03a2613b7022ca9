"""A randomized checker in the spirit of Jepsen: many short runs of a party on the production
topology (two daphne processes, PostgreSQL, Redis, DEBUG off), two phones per table, one on
each process, tapping in random interleavings as the page does (the outbox retries a tap
with its id until it gets an answer; a phone trusts the version its answers give it); the host
rings, voids, pauses and starts rounds at random; and faults: a daphne killed and restarted,
Redis restarted, a phone's answer lost (the tap sent again). Afterwards the rows must say:

- every tap answered "saved" is stored, exactly once; no tap answered "stale" or "refused"
  every time it was sent is stored; a tap is answered "saved" at most once;
- every round replays through scoring/ from its rows; a closed round is over by its rules,
  closed once (its sheets marked once, no roll after its close, at most one host bell), and
  the next round is seated once with every player;
- every phone ends showing what the database says;
- no request was answered with a 5xx.

CI runs a few (BUNCO_CHECKER_RUNS, 3 by default, BUNCO_CHECKER_SECONDS of play each, 8). For
many more: `BUNCO_CHECKER_RUNS=200 .venv/bin/pytest -m slow tests/faults/test_checker.py -x`; each run
prints its seed, and BUNCO_CHECKER_SEED=<seed> replays the schedule of one (the interleavings
the processes choose still vary).
"""

import os
import random
import threading
import time
import uuid
from collections import defaultdict

import pytest

from tests.faults.party import TWELVE
from tests.faults.phone import Phone
from tests.faults.watcher import assert_phone_shows_db

pytestmark = pytest.mark.slow

RUNS = int(os.environ.get("BUNCO_CHECKER_RUNS", "3"))
SECONDS = float(os.environ.get("BUNCO_CHECKER_SECONDS", "8"))
FIXED_SEED = os.environ.get("BUNCO_CHECKER_SEED")


class History:
    """Every attempt of every tap, as the phones saw them."""

    def __init__(self):
        self.lock = threading.Lock()
        self.answers = defaultdict(list)  # tap id -> [status word or "no answer"]
        self.server_errors = []

    def record(self, tap_id, answer):
        with self.lock:
            if answer is None:
                self.answers[tap_id].append("no answer")
            else:
                if answer.status >= 500:
                    self.server_errors.append(answer)
                self.answers[tap_id].append(answer.json["status"] if answer.json else "no answer")


def send_until_answered(phone, table, tap_id, seen, history, deadline, fields):
    """The outbox: send the same tap until the server answers it (a killed server, a reset
    connection: sent again), as table.js does."""
    while time.monotonic() < deadline + 30:
        try:
            answer = phone.tap_once(table, tap_id, seen, **fields)
        except OSError:
            history.record(tap_id, None)
            time.sleep(0.2)
            continue
        history.record(tap_id, answer)
        if answer.json is not None and answer.status < 500:
            return answer
        time.sleep(0.2)
    raise AssertionError(f"tap {tap_id} got no answer")


def scorekeeper(phone, table, rng, history, deadline, stop):
    seen = 0
    while time.monotonic() < deadline and not stop.is_set():
        dice = tuple(rng.choice((1, 2, 3, 4, 5, 6)) for _ in range(3))
        if rng.random() < 0.08:
            dice = (rng.randint(1, 6),) * 3  # a Bunco or a mini Bunco: it asks, so say
        fields = {"dice": dice, "called": rng.choice(("yes", "no"))}
        tap_id = uuid.uuid4()
        answer = send_until_answered(phone, table, tap_id, seen, history, deadline, fields)
        if rng.random() < 0.1:  # the answer was lost on the way: the outbox sends it again
            again = send_until_answered(phone, table, tap_id, seen, history, deadline, fields)
            if answer.json["status"] == "saved":
                assert again.json["status"] == "duplicate", (answer, again)
        status = answer.json["status"]
        if status in ("saved", "duplicate", "stale"):
            seen = answer.json["version"]
        elif status == "refused":
            seen = phone_table_version(phone, table, seen)
        time.sleep(rng.uniform(0, 0.15))


def phone_table_version(phone, table, fallback):
    """What the page shows after a refusal (it refetches its live region, and its round)."""
    try:
        view = phone.learn(table)
    except (AssertionError, OSError):
        return fallback
    return view["version"] if view else fallback


def host_actions(host, pg, party, rng, deadline, stop, errors):
    paused = False
    while time.monotonic() < deadline and not stop.is_set():
        time.sleep(rng.uniform(0.3, 1.0))
        try:
            round_ = pg.current_round(party.id)
            if round_[2] == "waiting" and not paused:
                answer = host.press(f"/parties/{party.id}/start/", f"/parties/{party.id}/host/")
                if answer.status == 302 and not answer.ok:  # a break between sets
                    answer = host.host_button("resume")
            elif paused:
                answer = host.host_button("resume")
                paused = False
            else:
                action = rng.choice(("bell", "void", "pause", "nothing", "nothing"))
                if action == "bell":
                    answer = host.host_button("bell")
                elif action == "void":
                    rolls = [r[0] for r in pg.rolls(round_[0]) if r[8] is None]
                    if not rolls:
                        continue
                    answer = host.host_button(f"rolls/{rng.choice(rolls)}/void")
                elif action == "pause":
                    answer = host.host_button("pause")
                    paused = answer.ok
                else:
                    continue
        except OSError:
            continue  # the host's server is the one being restarted
        if answer.status >= 500:
            errors.append(answer)
    if paused:
        host.host_button("resume")


def faults(servers, redis, rng, deadline, stop, done):
    time.sleep(rng.uniform(1, 3))
    if stop.is_set() or time.monotonic() > deadline:
        return
    kind = rng.choice(("kill daphne", "restart redis", "none"))
    done.append(kind)
    if kind == "kill daphne":
        server = rng.choice(servers)
        server.kill()
        time.sleep(rng.uniform(0.2, 1.0))
        server.restart()
    elif kind == "restart redis":
        redis.restart()


def check_rows(pg, party, history):
    # Taps: saved at most once, stored exactly once if saved, never if only refused.
    stored = {
        tap: count for tap, count in pg.rows(
            "SELECT ro.tap_id::text, count(*) FROM parties_roll ro JOIN parties_round r "
            "ON r.id = ro.round_id WHERE r.party_id = %s GROUP BY ro.tap_id", party.id)
    }
    for tap_id, answers in history.answers.items():
        key = str(tap_id)
        assert answers.count("saved") <= 1, (key, answers)
        if "saved" in answers or "duplicate" in answers:
            assert stored.get(key) == 1, (key, answers, stored.get(key))
        elif "no answer" not in answers:
            assert key not in stored, (key, answers)
    # The host's voids may enter a later roll again in its place, for the player it was
    # entered for (docs/rules.md section 7): those rows carry the place, and a new tap id.
    again = {
        tap for (tap,) in pg.rows(
            "SELECT ro.tap_id::text FROM parties_roll ro JOIN parties_round r "
            "ON r.id = ro.round_id WHERE r.party_id = %s AND ro.place IS NOT NULL", party.id)
    }
    assert set(stored) - again <= {str(t) for t in history.answers}, "a roll no phone sent"
    # Rounds: each replays; a closed one is over, closed once, and the next seated once.
    players = pg.value("SELECT count(*) FROM parties_player WHERE party_id = %s "
                       "AND NOT is_ghost", party.id)
    everyone = pg.value("SELECT count(*) FROM parties_player WHERE party_id = %s", party.id)
    rounds = pg.rows("SELECT id, status, closed_at FROM parties_round WHERE party_id = %s "
                     "ORDER BY id", party.id)
    for round_id, status, closed_at in rounds:
        state, _versions = pg.replay(party.id, round_id)
        seats = pg.rows("SELECT count(*), count(DISTINCT player_id) FROM parties_seat "
                        "WHERE round_id = %s", round_id)[0]
        assert seats == (everyone, everyone), (round_id, seats)
        bells = pg.value("SELECT count(*) FROM parties_roundbell WHERE round_id = %s", round_id)
        assert bells <= 1, (round_id, bells)
        lines = pg.value("SELECT count(*) FROM parties_scoresheetline WHERE round_id = %s",
                         round_id)
        if status == "closed":
            assert state.over, f"round {round_id} closed but its rolls do not end it"
            assert lines == players, (round_id, lines)
            late = pg.value("SELECT count(*) FROM parties_roll WHERE round_id = %s "
                            "AND created_at > %s", round_id, closed_at)
            assert late == 0, f"{late} rolls saved into round {round_id} after it closed"
        else:
            assert lines == 0 and not state.over, (round_id, status, lines)
    assert sum(1 for r in rounds if r[1] != "closed") <= 1


@pytest.mark.parametrize("run", range(RUNS))
def test_random_interleavings_and_faults_keep_every_tap_once_and_every_round_whole(
    run, daphnes, make_party, pg, redis, watchers
):
    seed = int(FIXED_SEED) if FIXED_SEED else random.SystemRandom().randrange(2**32)
    print(f"checker run {run}: BUNCO_CHECKER_SEED={seed}")
    rng = random.Random(seed)
    party = make_party(names=TWELVE)
    servers = [daphnes(), daphnes()]
    host = Phone(servers[0], party, party.host_token)
    host.start_round()
    keepers = [(Phone(server, party, party.table_tokens[n]), n)
               for n in (1, 2, 3) for server in servers]
    screens = [watchers(Phone(server, party, party.host_token), [1, 2, 3]) for server in servers]

    history, host_errors, stop, faulted = History(), [], threading.Event(), []
    deadline = time.monotonic() + SECONDS
    jobs = [threading.Thread(target=scorekeeper, daemon=True,
                             args=(phone, n, random.Random(rng.random()), history, deadline,
                                   stop))
            for phone, n in keepers]
    jobs.append(threading.Thread(target=host_actions, daemon=True, args=(
        host, pg, party, random.Random(rng.random()), deadline, stop, host_errors)))
    jobs.append(threading.Thread(target=faults, daemon=True,
                                 args=(servers, redis, random.Random(rng.random()), deadline,
                                       stop, faulted)))
    for job in jobs:
        job.start()
    for job in jobs:
        job.join(SECONDS + 90)
    stop.set()
    assert not any(job.is_alive() for job in jobs), "a phone or the host got stuck"

    words = [w for answers in history.answers.values() for w in answers]
    closed = pg.value("SELECT count(*) FROM parties_round WHERE party_id = %s "
                      "AND status = 'closed'", party.id)
    print(f"  {len(history.answers)} taps, {len(words)} sends: "
          + ", ".join(f"{w} {words.count(w)}" for w in sorted(set(words)))
          + f"; {closed} rounds closed; fault: {faulted or ['none']}")
    assert not history.server_errors and not host_errors, (history.server_errors, host_errors)
    assert sum(len(a) for a in history.answers.values()) > 20, "the run made too few taps"
    check_rows(pg, party, history)
    for screen in screens:
        assert_phone_shows_db(screen, pg, party.id, timeout=10)
