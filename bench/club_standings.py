"""A club's season of 12 nights (12 members, 4 subs): how long its standings page takes.

    .venv/bin/python -m bench.club_standings [--runs 20] [--nights 12] [--database-url URL]

Builds the season through the app's services (each night made from the club, then played
round by round through roll_record, as the scorekeepers' phones would), then renders the
club's standings page and its club page through Django's test client in production settings
(DEBUG off), as a member holding the club code reads them. Prints one JSON line per page and
way: the worst and the median of `--runs` renders (the first, which loads the templates, not
counted), the page's bytes and its queries; "cold" reads every night afresh from its party
before each render (as after a change to every night), "kept" lets the process keep the
nights it read (clubs.selectors.party_night, by each party's sequence number). `cpu_*`: the
process's own CPU time for the render (SQLite runs in the process, so its work is in it), the
figure that does not grow with other processes' load on a shared machine, beside the wall
clock's.

The database is a fresh SQLite file (the party server's own) unless `--database-url` names a
PostgreSQL server, where a fresh database is made and dropped. It is not a test: it times, and
asserts nothing but that the pages answer 200. The target: under 200 ms for the standings page
of a 12-night season.

`build_season` and `play_night` are shared with the tests (tests/clubs), which play a season
the same way.
"""

import argparse
import datetime
import json
import os
import random
import statistics
import tempfile
import time
import uuid

MEMBERS = ["Ann", "Bea", "Cleo", "Dot", "Edie", "Fran", "Gail", "Hope", "Iris", "June", "Kay",
           "Lou"]
SUBS = ["Sam", "Tess", "Uma", "Vi"]


def season_rules():
    """The standard rules, one set of six rounds a night (a club night at home)."""
    from dataclasses import replace

    from scoring import PRESETS

    return replace(PRESETS["standard"], sets=1, break_after_set=0)


def build_season(*, nights=12, seed=1, name="Thursday Club", subs_count_for_member=True,
                 buy_in_cents=500):
    """A club of MEMBERS whose first season has `nights` nights, each played to its end: on
    night n, n % 3 members stay home and a sub (of SUBS, in turn) plays for each."""
    from clubs.services.club import club_create
    from clubs.services.night import night_create
    from scoring.pot import Pot

    rng = random.Random(seed)
    start = datetime.date(2026, 1, 8)
    club = club_create(
        name=name, member_names=MEMBERS, preset="standard", rules=season_rules(),
        pot=Pot(buy_in_cents), subs_count_for_member=subs_count_for_member, ranking="wins",
        today=start,
    )
    members = list(club.members.order_by("position"))
    for n in range(nights):
        out = rng.sample(members, n % 3)
        night = night_create(
            club=club, date=start + datetime.timedelta(days=28 * n), host=members[n % 12],
            coming=[m for m in members if m not in out],
            subs=[(SUBS[(n + i) % len(SUBS)], m) for i, m in enumerate(out)],
        )
        play_night(night.party, rng)
    return club


def play_night(party, rng, max_taps=20_000):
    """Play `party` to its end through the services: each round started, random quick taps
    at random tables (called, where a call is asked) until the head table rings the bell, then
    every table finishing its turn and any roll-off (the scorekeeper's side winning it)."""
    from parties import selectors, state
    from parties.models import AccessLink, Party, Round
    from parties.services.party import party_resume
    from parties.services.roll import roll_record
    from parties.services.round import round_start

    keepers = {link.table.number: [link.id] for link in
               AccessLink.objects.filter(party=party, role="table").select_related("table")}
    for _ in range(max_taps):
        party.refresh_from_db()
        if party.status == Party.Status.FINISHED:
            return party
        if party.status == Party.Status.BREAK:
            party_resume(party=party)
            continue
        round_ = selectors.current_round(party)
        if round_.status == Round.Status.WAITING:
            round_start(party=party)
            continue
        now = state.load(round_, party.rules)
        number, outcome = _next_tap(now.state, rng)
        roll_record(
            party_id=party.id, table_number=number, tap_id=uuid.uuid4(), outcome=outcome,
            called=True, seen=now.extras[number - 1].version, link_ids=keepers[number],
        )
    raise RuntimeError(f"{party} did not end in {max_taps} taps")


# Before the bell: mostly misses and points, now and then a mini or a Bunco (the head table's
# Bunco rings the bell at once, so a round is a few dozen taps).
OUTCOMES = ["miss"] * 4 + ["one"] * 3 + ["two"] * 2 + ["mini", "bunco"]


def _next_tap(round_state, rng):
    """(table number, quick outcome) of the next tap."""
    tables = round_state.tables
    open_tables = [n for n, t in enumerate(tables, 1) if not t.done]
    if not round_state.bell:
        head = 1 in open_tables and rng.random() < 1 / 3  # the head table's 21 rings the bell
        return 1 if head else rng.choice(open_tables), rng.choice(OUTCOMES)
    number = open_tables[0]
    table = tables[number - 1]
    first_roll = table.turn == table.first_seat and table.turn_rolls == 0
    if table.rolloff_needed and first_roll and table.rolloff.scores == (0, 0):
        return number, "one"  # the scorekeeper's side wins the roll-off
    return number, "miss"


def _reader_browser(club):
    """A member's browser: the club code typed at /join/, as a member does."""
    from django.test import Client

    browser = Client(HTTP_HOST="127.0.0.1")
    answer = browser.post("/join/", {"code": club.code})
    assert answer.status_code == 302, answer.status_code
    return browser


def _timed(browser, url, runs, cold):
    """Worst and median of `runs` renders of `url`; `cold`: every night read afresh from its
    party (clubs.selectors forgets the nights it read before each), as after a change to each."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from clubs.selectors import forget_nights

    answer = browser.get(url)  # the first render loads the templates: not counted
    assert answer.status_code == 200, answer.status_code
    times, cpu = [], []
    for _ in range(runs):
        if cold:
            forget_nights()
        start, start_cpu = time.perf_counter(), time.process_time()
        answer = browser.get(url)
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
        assert answer.status_code == 200, answer.status_code
    if cold:
        forget_nights()
    with CaptureQueriesContext(connection) as queries:
        browser.get(url)
    return {"worst_ms": round(max(times), 1), "median_ms": round(statistics.median(times), 1),
            "cpu_worst_ms": round(max(cpu), 1), "cpu_median_ms": round(statistics.median(cpu), 1),
            "runs": runs, "bytes": len(answer.content), "queries": len(queries)}


def _collect_static(root):
    """Production serves hashed static names from a manifest: collected here, as a deploy does."""
    from django.conf import settings
    from django.core.management import call_command

    settings.STATIC_ROOT = root  # before the storage is first used
    call_command("collectstatic", "--noinput", verbosity=0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--nights", type=int, default=12)
    parser.add_argument("--database-url", default=None,
                        help="a PostgreSQL server to make a fresh database on (default SQLite)")
    args = parser.parse_args()
    from bench.databases import Database
    from bench.fixtures import setup_django
    from bench.servers import prepare, production_env

    with Database(args.database_url, "bunco_bench_club") as database:
        env = production_env(database.env, None)
        prepare(env, static=False)
        setup_django(env)
        static = tempfile.TemporaryDirectory()
        _collect_static(static.name)
        started = time.perf_counter()
        club = build_season(nights=args.nights)
        built_s = round(time.perf_counter() - started, 1)
        browser = _reader_browser(club)
        pages = (("standings", f"/clubs/{club.id}/standings/"),
                 ("club_page", f"/clubs/{club.id}/"))
        for page, url in pages:
            for cold in (True, False):
                line = {"figure": page, "nights_read": "cold" if cold else "kept",
                        "nights": args.nights, "members": 12, "subs": 4,
                        "database": "postgresql" if args.database_url else "sqlite",
                        **_timed(browser, url, args.runs, cold), "season_built_s": built_s,
                        "loadavg_1m": os.getloadavg()[0]}
                print(json.dumps(line), flush=True)
        from django.db import connections

        connections.close_all()


if __name__ == "__main__":
    main()
