"""A 400-player party (100 tables): how long seating takes, and what the host's page weighs.

    .venv/bin/python -m bench.big_party [--runs 5] [--rolls 5]

Prints one JSON line per figure, each the worst (and the median) of `--runs` runs:

- `seating`: scoring alone (no database): round 1's seating of 400 players, and the next
  round's seating after every table's result, for `ladder`, `head_losers_to_bottom` and the
  tournament's individual play; then the services that seat in the database: a 400-player
  party created (`party_create`, its players, tables, seats and 501 links) and reshuffled.
- `host_page`: the host's page during round 1 with `--rolls` rolls at every table: the whole
  page (as the laptop first opens it) and its live region (what the page refetches, at most
  once a second, as tables roll): bytes and milliseconds of the server's render, through
  Django's test client in production settings (DEBUG off) on PostgreSQL; the same before the
  first round (the seating form) and after the bell; and the players' view and the TV board
  in play, the same two ways.

It makes its own database (bench.fixtures: created, migrated and dropped) and uses Redis
database 7 unless BENCH_REDIS_URL says otherwise. It is not a test: it times, it asserts
nothing but that the pages answer 200.
"""

import argparse
import json
import os
import random
import statistics
import tempfile
import time
import uuid

from bench import fixtures
from bench.servers import prepare

PLAYERS = 400


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rolls", type=int, default=5, help="rolls at each table, round 1")
    args = parser.parse_args()
    os.environ.setdefault("BENCH_REDIS_URL", "redis://127.0.0.1:6379/7")
    database = fixtures.create_database()
    try:
        env = fixtures.server_env(database)
        prepare(env, static=False)
        fixtures.setup_django(env)
        static = tempfile.TemporaryDirectory()
        _collect_static(static.name)
        for line in seating_figures(args.runs) + host_page_figures(args.runs, args.rolls):
            print(json.dumps({**line, "loadavg_1m": os.getloadavg()[0]}), flush=True)
    finally:
        from django.db import connections

        connections.close_all()
        database.drop()


def _collect_static(root):
    """Production serves hashed static names from a manifest: collected here, as a deploy does."""
    from django.conf import settings
    from django.core.management import call_command

    settings.STATIC_ROOT = root  # before the storage is first used
    call_command("collectstatic", "--noinput", verbosity=0)


def _timed(work, runs):
    """(worst, median) milliseconds of `runs` calls of `work`."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append((time.perf_counter() - start) * 1000)
    return round(max(times), 2), round(statistics.median(times), 2)


def _figure(name, work, runs, **extra):
    worst, median = _timed(work, runs)
    return {"figure": "seating", "what": name, "worst_ms": worst, "median_ms": median,
            "runs": runs, **extra}


def seating_figures(runs):
    from dataclasses import replace

    from parties.services.party import party_create, party_reshuffle
    from scoring import PRESETS, next_seating, seat_players

    ids = [str(n) for n in range(1, PLAYERS + 1)]
    ghosts = [f"g{n}" for n in range(1, 4)]
    figures = []
    for preset, rotation in (("standard", "ladder"), ("standard", "head_losers_to_bottom"),
                             ("tournament", "none")):
        rules = replace(PRESETS[preset], rotation=rotation)
        first, ghost_ids = seat_players(ids, rules, ghost_names=ghosts)
        figures.append(_figure(f"seat_players 400 ({preset}, {rotation})",
                               lambda rules=rules: seat_players(ids, rules, ghost_names=ghosts),
                               runs))
        winners = [random.randrange(2) for _ in first]

        def one_round(first=first, rules=rules, ghost_ids=ghost_ids, winners=winners):
            next_seating(first, winners, rules, ghost_ids)

        figures.append(_figure(f"next_seating 100 tables ({preset}, {rotation})", one_round,
                               runs))
    names = [f"Guest {n}" for n in range(1, PLAYERS + 1)]
    made = []

    def create():
        made.append(party_create(name="The hall", player_names=names,
                                 preset="standard", rules=PRESETS["standard"]))

    figures.append(_figure("party_create 400 players (database)", create, runs))
    figures.append(_figure("party_reshuffle 400 players (database)",
                           lambda: party_reshuffle(party=made[-1]), runs))
    return figures


def _host_browser(party):
    from django.test import Client

    from parties import access
    from parties.models import AccessLink

    browser = Client(HTTP_HOST="127.0.0.1")
    link = AccessLink.objects.get(party=party, role=AccessLink.Role.HOST)
    answer = browser.get(f"/l/{access.token_for(link)}/")
    assert answer.status_code == 302, answer.status_code
    return browser


def _page_figures(state, browser, url, runs, page="host_page"):
    figures = []
    ways = (("whole page", {}), ("live region (refetch)", {"HTTP_HX_REQUEST": "true"}))
    for what, headers in ways:
        sizes = []

        def fetch(headers=headers, sizes=sizes):
            answer = browser.get(url, **headers)
            assert answer.status_code == 200, answer.status_code
            sizes.append(len(answer.content))

        fetch()  # the first render warms template loading; not counted
        worst, median = _timed(fetch, runs)
        figures.append({"figure": page, "state": state, "what": what,
                        "bytes": max(sizes), "worst_ms": worst, "median_ms": median,
                        "runs": runs})
    return figures


def host_page_figures(runs, rolls):
    from parties import selectors, state
    from parties.models import AccessLink
    from parties.services.party import party_create
    from parties.services.roll import roll_record
    from parties.services.round import bell_ring, round_start
    from scoring import PRESETS

    party = party_create(name="The hall", player_names=[f"Guest {n}" for n in
                                                             range(1, PLAYERS + 1)],
                         preset="standard", rules=PRESETS["standard"])
    browser = _host_browser(party)
    url = f"/parties/{party.id}/host/"
    figures = _page_figures("before round 1", browser, url, runs)
    round_start(party=party)
    keepers = {link.table.number: [link.id] for link in
               AccessLink.objects.filter(party=party, role="table").select_related("table")}
    rng = random.Random(15)
    for _ in range(rolls):
        for number in range(2, 101):  # the head table stays short of 21: no bell yet
            party.refresh_from_db()
            now = state.load(selectors.current_round(party), party.rules)
            dice = tuple(rng.choice((1, 2, 3, 4, 5, 6)) for _ in range(3))
            if dice == (1, 1, 1):
                dice = (1, 1, 2)
            roll_record(party_id=party.id, table_number=number, tap_id=uuid.uuid4(),
                        dice=dice, called=None, seen=now.extras[number - 1].version,
                        link_ids=keepers[number])
    in_play = f"round 1 in play, {rolls} rolls a table"
    figures += _page_figures(in_play, browser, url, runs)
    figures += _page_figures(in_play, browser, f"/parties/{party.id}/", runs, "players_view")
    figures += _page_figures(in_play, browser, f"/parties/{party.id}/tv/", runs, "tv_board")
    bell_ring(party=party, by="host")
    figures += _page_figures("round 1 after the bell", browser, url, runs)
    return figures


if __name__ == "__main__":
    main()
