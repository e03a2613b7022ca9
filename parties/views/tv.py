"""The room's scoreboard: a read-only page for a TV or projector, opened with the host's link or
the party code. In play it shows every table's live fragment (the same `table-N` partial the
phones get, pushed over the same socket); between rounds, where everyone sits next and the
standings; always the set, round and target, the party code and a QR code to join."""

import math
from dataclasses import dataclass

import segno
from django.core.exceptions import PermissionDenied
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from parties import access, party_codes, selectors
from parties.models import Party, Round
from parties.pages import fragments
from parties.pages.links import join_url
from scoring.party import standing

# The board's area on a 1920x1080 screen, less the header and the join column (tv.css lays
# them out). Only the shape matters: a smaller screen scales every card alike.
BOARD_WIDTH, BOARD_HEIGHT = 1560, 880
SEATING_WIDTH, SEATING_HEIGHT = 1000, 800
# The cards' shape, width / height: a live table is two scores side by side under a title; a
# seating card is a title over four names.
TABLE_CARD_ASPECT, SEAT_CARD_ASPECT = 1.3, 1.2
SEAT_CARD_TALLEST = 320  # px: tv.css keeps a seating card no taller than four names need
NEAR_BEST = 0.75  # a seating layout this close to the largest cards may balance its rows
MAX_COLUMNS = 12  # tv.css has a class for each of 1 to 12 columns
# Up to this many tables the next seating fits the screen with names large enough to read
# across a room; past it (a party of more than 100 players) the
# cards keep their size and the list scrolls by itself.
SEATING_FITS = 25
SEATING_SCROLL_COLUMNS = 5
SEATING_ROWS_SHOWN = 4  # of the scrolling list's fixed-height rows (tv.css)
SCROLL_SECONDS = (30, 60, 90, 120)  # tv.css has a class for each
STANDINGS_SHOWN = 10  # the leaders: everyone's whole sheet is on their phone and the results


@never_cache
@require_GET
def tv(request, party_id):
    try:
        # A table's or a player's link alone does not open it: a scoreboard for the whole room
        # is the host's to put up (or anyone's with the code, which is on every table card).
        party, _grant = access.require(request, party_id, lambda a: a.host or a.by_code)
    except PermissionDenied:
        return render(
            request,
            "parties/_tv_refused.html",
            {"join_url": join_url(request), "here": request.get_full_path()},
            status=403,
        )
    context = tv_context(request, party)
    # htmx asks for the live region alone: live.js refetches it after every push.
    return render(request, "parties/tv.html#live" if request.htmx else "parties/tv.html", context)


def tv_context(request, party):
    round_ = selectors.current_round(party)
    tables_html = [
        render_to_string("parties/_live_table.html", table)
        for table in fragments.live_tables(party, round_)
    ]
    between = not tables_html  # no round in play: the next seats and the standings
    over = party.status == Party.Status.FINISHED
    seating = selectors.seating(round_) if between and not over else []
    rows, prizes = selectors.party_results(party) if between else ([], [])
    rounds_played = len(rows[0].sheet.marks) if rows else 0
    numbers = ",".join(str(n) for n in party.tables.values_list("number", flat=True))
    join = join_url(request)
    return {
        "party": party,
        "round": round_,
        "rules": party.rules,
        "stage": stage(party, round_),
        "table_numbers": numbers,
        "tables_html": tables_html,
        "board_columns": grid_columns(
            len(tables_html), BOARD_WIDTH, BOARD_HEIGHT, aspect=TABLE_CARD_ASPECT
        ),
        "seating": seating,
        **seating_layout(len(seating), beside_standings=bool(rounds_played)),
        "leaders": leaders(rows, party.rules),
        "players_ranked": len(rows),
        "rounds_played": rounds_played,
        "prizes": prizes if over else [],
        "fuzzy_die": selectors.fuzzy_die(party),
        "code_shown": party_codes.party_code_shown(party.code),
        "join_url": join,
        # The URL is ours (the join page's address), nothing a user typed.
        "join_qr": segno.make(join, error="m").svg_inline(border=2, omitsize=True),
    }


@dataclass(frozen=True)
class Stage:
    """What the room is doing, in a few words for the header, and its key for tv.css."""

    key: str
    words: str


def stage(party, round_) -> Stage:
    if party.status == Party.Status.FINISHED:
        return Stage("over", _("The party is over"))
    if party.status == Party.Status.BREAK:
        return Stage("break", _("Break time"))
    if round_.status == Round.Status.PLAYING:
        if party.paused_at:
            return Stage("paused", _("Paused"))
        if round_.bell_at:
            return Stage("bell", _("Bell! Finish your turn"))
        return Stage("playing", _("In play"))
    return Stage("waiting", _("Find your seat"))


def grid_columns(count, width, height, *, aspect, tallest=None, balanced=False):
    """The columns that give `count` cards of about `aspect` (width / height) the largest size
    in a `width` x `height` area, the rows sharing its height, no card taller than `tallest`.
    `balanced`: of the layouts whose cards are at least NEAR_BEST of the largest, the one that
    leaves the fewest places empty in its last row (no card alone on a row of its own)."""
    if count <= 1:
        return 1

    def card_size(columns):
        rows = math.ceil(count / columns)
        size = min(width / columns / aspect, height / rows)
        return min(size, tallest) if tallest else size

    sizes = {columns: card_size(columns) for columns in range(1, min(count, MAX_COLUMNS) + 1)}
    best = max(sizes, key=sizes.get)
    if not balanced:
        return best
    near = [columns for columns, size in sizes.items() if size >= NEAR_BEST * sizes[best]]
    return min(near, key=lambda columns: (-count % columns, -sizes[columns], -columns))


def seating_layout(count, *, beside_standings):
    """How the next seating is laid out: a grid that fits the screen (the whole board before
    round 1, which has no standings yet), or past SEATING_FITS tables a list that scrolls by
    itself, slowly enough to read: about 6 seconds for each row that was out of sight (a few
    speeds, one class each in tv.css)."""
    if count <= SEATING_FITS:
        width = SEATING_WIDTH if beside_standings else BOARD_WIDTH
        columns = grid_columns(count, width, SEATING_HEIGHT, aspect=SEAT_CARD_ASPECT,
                               tallest=SEAT_CARD_TALLEST, balanced=True)
        return {"seating_columns": columns, "seating_scroll": 0}
    hidden_rows = math.ceil(count / SEATING_SCROLL_COLUMNS) - SEATING_ROWS_SHOWN
    wanted = 6 * hidden_rows
    seconds = next((s for s in SCROLL_SECONDS if s >= wanted), SCROLL_SECONDS[-1])
    return {"seating_columns": SEATING_SCROLL_COLUMNS, "seating_scroll": seconds}


@dataclass(frozen=True)
class Leader:
    place: int
    row: selectors.ResultRow


def leaders(rows, rules, shown=STANDINGS_SHOWN):
    """The first `shown` of the results page's standings (`rows`, already in its order), each
    with its place: players level on what ranks them (scoring's `standing`) share one."""
    ranked = []
    for index, row in enumerate(rows[:shown], start=1):
        level = ranked and standing(ranked[-1].row.sheet, rules) == standing(row.sheet, rules)
        ranked.append(Leader(ranked[-1].place if level else index, row))
    return ranked
