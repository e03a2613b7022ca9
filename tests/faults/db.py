"""The database's truth, read directly (never through the app): what the fault tests assert
against. `Db` reads rows and replays a round through scoring/; `PartyLock` holds a party's row
lock from outside the app, so that requests sent meanwhile race at one point, every time."""

import threading
import time

from bench.waiting import wait_until


class Db:
    """Direct reads (and the round-row lock) on the app's database, for the assertions."""

    def __init__(self, url):
        self.url = url

    def connect(self, autocommit=True):
        import psycopg

        return psycopg.connect(self.url, autocommit=autocommit)

    def rows(self, sql, *params):
        with self.connect() as conn:
            return conn.execute(sql, params).fetchall()

    def value(self, sql, *params):
        return self.rows(sql, *params)[0][0]

    def current_round(self, party_id):
        """(id, number, status, version, target) of the round a phone shows (as the app picks)."""
        rows = self.rows(
            "SELECT r.id, r.number, r.status, r.version, r.target FROM parties_round r "
            "JOIN parties_buncoset s ON s.id = r.bunco_set_id WHERE r.party_id = %s "
            "ORDER BY s.number, r.number",
            party_id,
        )
        open_rounds = [r for r in rows if r[2] != "closed"]
        return (open_rounds or rows)[0] if open_rounds else rows[-1]

    def rolls(self, round_id, table=None):
        sql = (
            "SELECT ro.id, t.number, ro.tap_id::text, ro.die1, ro.die2, ro.die3, ro.die4, "
            "ro.called, ro.voided_by_id FROM parties_roll ro JOIN parties_table t "
            "ON t.id = ro.table_id WHERE ro.round_id = %s"
        )
        params = [round_id]
        if table is not None:
            sql += " AND t.number = %s"
            params.append(table)
        return self.rows(sql + " ORDER BY ro.id", *params)

    def snapshot(self, party_id):
        """Everything a refused tap must leave unchanged."""
        return {
            "rolls": self.rows(
                "SELECT ro.id, ro.voided_by_id FROM parties_roll ro JOIN parties_round r "
                "ON r.id = ro.round_id WHERE r.party_id = %s ORDER BY ro.id", party_id),
            "rounds": self.rows(
                "SELECT id, status, version, bell_at, closed_at FROM parties_round "
                "WHERE party_id = %s ORDER BY id", party_id),
            "party": self.rows("SELECT status, seq, paused_at FROM parties_party WHERE id = %s",
                               party_id),
            "lines": self.value(
                "SELECT count(*) FROM parties_scoresheetline l JOIN parties_round r "
                "ON r.id = l.round_id WHERE r.party_id = %s", party_id),
            "bells": self.value(
                "SELECT count(*) FROM parties_roundbell b JOIN parties_round r "
                "ON r.id = b.round_id WHERE r.party_id = %s", party_id),
        }

    def truth(self, party_id, table):
        """What table `table` of the current round must show, derived from the rows alone:
        its version (+1 per roll, +2 per voided roll) and each side's points (a replay of the
        live rolls through scoring/, not through the server's cache)."""
        round_id = self.current_round(party_id)[0]
        state, versions = self.replay(party_id, round_id)
        return {"round": round_id, "version": versions.get(table, 0),
                "points": list(state.tables[table - 1].points)}

    def replay(self, party_id, round_id):
        """The round replayed from its rows through scoring/ (raises if the rules refuse a
        roll it holds), and each table's version."""
        from scoring import RollFact, RoundState, Rules
        from scoring.quick import quick_dice

        target = self.value("SELECT target FROM parties_round WHERE id = %s", round_id)
        options = self.value("SELECT options FROM parties_party WHERE id = %s", party_id)
        seats = self.rows(
            "SELECT t.number, s.player_id, s.keeps_score FROM parties_seat s JOIN parties_table "
            "t ON t.id = s.table_id WHERE s.round_id = %s ORDER BY t.number, s.position",
            round_id)
        seating, keepers = {}, {}
        for number, player, keeps in seats:
            seating.setdefault(number, []).append(str(player))
            if keeps:
                keepers[number] = len(seating[number])
        ghosts = {str(p) for (p,) in self.rows(
            "SELECT id FROM parties_player WHERE party_id = %s AND is_ghost", party_id)}
        bells = self.rows("SELECT after_roll_id FROM parties_roundbell WHERE round_id = %s "
                          "ORDER BY after_roll_id, id", round_id)
        rules = Rules.from_options(options)
        state = RoundState.start(
            [seating[n] for n in sorted(seating)], rules, target, ghosts=frozenset(ghosts),
            first_seats=[keepers.get(n, 1) for n in sorted(seating)],
        )
        versions = {}
        # In the order played: a corrected roll in the place of the roll it corrects; each
        # roll thrown by the player it was entered for (docs/rules.md section 7).
        rows = self.rows(
            "SELECT ro.id, t.number, ro.die1, ro.die2, ro.die3, ro.die4, ro.outcome, ro.face, "
            "ro.called, ro.before_bell, ro.voided_by_id, ro.roller_id, "
            "COALESCE(ro.place, ro.id) FROM parties_roll ro JOIN parties_table "
            "t ON t.id = ro.table_id WHERE ro.round_id = %s "
            "ORDER BY COALESCE(ro.place, ro.id), ro.id", round_id)
        for _id, number, d1, d2, d3, d4, outcome, face, called, early, voided, roller, key in rows:
            versions[number] = versions.get(number, 0) + (2 if voided else 1)
            if voided:
                continue
            while bells and bells[0][0] < key:
                bells.pop(0)
                state = state.ring_bell()
            if outcome:  # a quick button, kept as tapped: scored as dice that score the same
                dice = quick_dice(outcome, target, rules, face)
            else:
                dice = tuple(d for d in (d1, d2, d3, d4) if d is not None)
            state = state.roll(number, RollFact(dice, called), before_bell=early,
                               roller=str(roller))
        if bells:
            state = state.ring_bell()
        return state, versions



class PartyLock:
    """Hold the party's row lock from outside the app, so that requests sent meanwhile all
    wait at the same point (every write of a party takes that lock first); releasing it lets
    them race for real. This turns "at the same moment" into something a test can make happen
    every time. A request can also wait inside its process (one tap of a party at a time
    there, in parties.taps): then it shows as sent and unanswered, not as a database wait."""

    QUEUED_AFTER = 1.0  # seconds unanswered, not waiting on the database: queued in daphne

    def __init__(self, db, party_id):
        self.db = db
        self.party_id = party_id

    def __enter__(self):
        self.conn = self.db.connect(autocommit=False)
        self.conn.execute("SELECT id FROM parties_party WHERE id = %s FOR UPDATE",
                          (self.party_id,))
        self.threads, self.results = [], {}
        return self

    def send(self, name, call):
        """Start `call` in a thread and wait until it is held up by the lock."""
        before = self.waiting()
        started = time.monotonic()

        def run():
            try:
                self.results[name] = call()
            except BaseException as error:  # noqa: BLE001 - reported by the test
                self.results[name] = error

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        self.threads.append(thread)
        wait_until(lambda: self.waiting() > before or name in self.results
                   or time.monotonic() - started > self.QUEUED_AFTER, 15,
                   f"{name} to wait on the party's lock")
        assert name not in self.results, f"{name} did not wait on the lock: {self.results[name]}"

    def waiting(self):
        return self.db.value(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
            "AND datname = current_database()")

    def release(self, timeout=30):
        self.conn.rollback()
        for thread in self.threads:
            thread.join(timeout)
            assert not thread.is_alive(), "a request did not finish"
        return self.results

    def __exit__(self, *exc):
        if not self.conn.closed:
            self.conn.rollback()
            self.conn.close()

