"""The host's dashboard for a big party: every table as one small cell of a grid (its state,
its scores, whether it is holding up the round), a filter (tables not done, tables with a late
roll waiting for the host) and a search by a player's name that finds their table.

A party of more than COMPACT_FROM tables gets it instead of a full card for each table: the
host's page is refetched (at most once a second) as the tables roll, and at 100 tables a card
each, with every roll of the round under them, made every refetch 385 KB (docs/performance.md).
The filter and the search are the page's query (?show=open&find=ann), so the page's refetch,
which asks for the address shown, keeps them. The players' view of a big party has the same
search ("find your table"), its every table folded away.
"""

from dataclasses import dataclass

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

COMPACT_FROM = 8  # more tables than this: the grid (8 tables are 32 players, a big room)
SHOW = {"all": _("All tables"), "open": _("Not done"), "late": _("With a late roll")}
EMPTY = {
    "all": _("No tables."), "open": _("Every table is done."), "late": _("No late roll is waiting.")
}
FOUND_SHOWN = 12  # of the players a search finds, this many are listed (each cell shows all)
FIND_MAX = 40  # a player's name is at most 40 characters (party_limits.NAME_MAX)
# A cell is 7 characters wide: the live card's labels ("Bell! Finish your turn") do not fit.
# Translators: a table's state in a cell 7 characters wide on the host's grid.
SHORT_LABELS = {"waiting": _("Waiting"), "playing": _("Rolling"), "finishing": _("Finishing"),
                "rolloff": _("Roll-off"), "done": _("Done")}


@dataclass(frozen=True)
class GridCell:
    number: int
    phase: str
    phase_label: str
    scores: tuple  # each side's points, seats 1 & 3 first in team play
    leader: int | None  # the side ahead (None: level)
    names: str  # every side's names, for the cell's title
    done: bool
    behind: bool  # the bell has rung and this table is still playing
    late: int  # late rolls at this table waiting for the host
    found: bool  # a searched-for player sits here


@dataclass(frozen=True)
class FoundPlayer:
    player_id: int
    name: str
    table: int
    seat: int
    partner: str


def grid_query(get):
    """(show, find) from the page's query: unknown values fall back to showing everything."""
    show = get.get("show", "all")
    find = " ".join(get.get("find", "").split())[:FIND_MAX]
    return (show if show in SHOW else "all"), find


def host_grid_context(*, live_contexts, tables, late_taps, bell, query):
    """The grid's context from the live tables' contexts (parties.pages.fragments.table_context),
    the round's seating (selectors.seating) and the pending late taps; empty below COMPACT_FROM
    tables, where the host's page shows each table whole."""
    if len(tables) <= COMPACT_FROM:
        return {"compact": False}
    show, find = query
    found = find_players(tables, find)
    found_tables = {player.table for player in found}
    late = {}
    for tap in late_taps:
        late[tap.table_number] = late.get(tap.table_number, 0) + 1
    cells = [_cell(context, late.get(context["number"], 0), context["number"] in found_tables)
             for context in live_contexts]
    if not cells:  # before the round starts: the seating, with nothing rolled yet
        cells = [_waiting_cell(table, late.get(table.number, 0), table.number in found_tables)
                 for table in tables]
    shown = [cell for cell in cells if _shows(cell, show)]
    return {
        "compact": True,
        "grid": {
            "show": show,
            "show_choices": [(key, str(label)) for key, label in SHOW.items()],
            "show_label": str(SHOW[show]),
            "empty_note": str(EMPTY[show]),
            "find": find,
            "cells": shown,
            "hidden": len(cells) - len(shown),
            "total": len(cells),
            "done": sum(cell.done for cell in cells),
            "behind": [cell.number for cell in cells if cell.behind],
            "late": sum(cell.late for cell in cells),
            "found": found[:FOUND_SHOWN],
            "found_more": max(0, len(found) - FOUND_SHOWN),
            "bell": bell,
        },
    }


def _shows(cell, show):
    if show == "open":
        return not cell.done
    if show == "late":
        return cell.late > 0
    return True


def _cell(context, late, found):
    scores = tuple(side.points for side in context["sides"])
    top = max(scores) if scores else 0
    leaders = [i for i, points in enumerate(scores) if points == top]
    done = context["phase"] == "done"
    return GridCell(
        number=context["number"],
        phase=context["phase"],
        phase_label=str(SHORT_LABELS[context["phase"]]),
        scores=scores,
        leader=leaders[0] if len(leaders) == 1 else None,
        names=_versus([side.names for side in context["sides"]]),
        done=done,
        behind=bool(context["round_bell"]) and not done,
        late=late,
        found=found,
    )


def _waiting_cell(table, late, found):
    if table.team_play:
        sides = [[s.name for s in table.seats if s.team == team] for team in "ab"]
    else:
        sides = [[s.name] for s in table.seats]
    return GridCell(
        number=table.number, phase="waiting", phase_label=str(SHORT_LABELS["waiting"]), scores=(),
        leader=None,
        names=_versus(sides), done=False, behind=False,
        late=late, found=found,
    )


def _versus(sides):
    """The sides at a table, for a cell's title: "Ann & Cleo vs Bea & Dot"."""
    names = [" & ".join(side) for side in sides]
    said = names[0] if names else ""
    for other in names[1:]:
        # Translators: the sides at a table, in a cell's title ("Ann & Cleo vs Bea & Dot").
        said = gettext("%(first)s vs %(second)s") % {"first": said, "second": other}
    return said


def find_players(tables, find):
    """The players seated this round whose name holds `find` (any case), table by table."""
    if not find:
        return []
    key = find.casefold()
    return [
        FoundPlayer(seat.player_id, seat.name, table.number, seat.position, seat.partner)
        for table in tables
        for seat in table.seats
        if not seat.is_ghost and key in seat.name.casefold()
    ]
