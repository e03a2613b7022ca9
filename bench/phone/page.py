"""What a phone reads off its page (static/parties/live.js, table.js): the live region's
`#live` attributes (the party's seq, the round, its version, the tables the socket watches),
each table's section, where a player sits, and what <body> says. Read from the HTML the
server sends, with the page's own attribute names, so a client needs no browser to know what
its page shows.
"""

import html
import re
from typing import NamedTuple

LIVE = re.compile(r'<div id="live"([^>]*)>')
BODY = re.compile(r"<body([^>]*)>")
SECTION = re.compile(r'<section id="table-(\d+)"[^>]*>.*?</section>', re.S)


class LiveRegion(NamedTuple):
    """The page's #live: the party's seq it was rendered at, its round (None between
    rounds), that round's version, the tables it shows ("1,2", or ""), and whether the game is
    paused (a table's page)."""

    seq: int
    round: int | None
    round_version: int
    tables: str
    paused: bool = False  # the host paused the game (a table's page says; taps wait)


def attribute(tag, name):
    """The value of attribute `name` in an element's opening `tag` text, or None."""
    found = re.search(rf'\s{name}="([^"]*)"', tag)
    return html.unescape(found.group(1)) if found else None


def _int(value, empty=0):
    return int(value) if value else empty


def live_region(page):
    """The LiveRegion of a page, or of a refetched live region; None without one."""
    found = LIVE.search(page)
    if not found:
        return None
    tag = found.group(1)
    return LiveRegion(
        seq=_int(attribute(tag, "data-seq")),
        round=_int(attribute(tag, "data-round"), None),
        round_version=_int(attribute(tag, "data-round-version")),
        tables=attribute(tag, "data-tables") or "",
        paused=attribute(tag, "data-paused") == "1",
    )


def body_attribute(page, name):
    """What <body> says, as live.js reads it (`data-view`, `data-refetch-on-table`)."""
    found = BODY.search(page)
    return attribute(found.group(1), name) if found else None


def table_shown(page, table):
    """What `page` (a page, a live region, or a pushed table fragment) shows of `table`:
    round, version, each side's points, phase, and whether the bell has rung; None if the
    table is not on it."""
    for match in SECTION.finditer(page):
        if int(match.group(1)) == table:
            section = match.group(0)
            head = section[: section.index(">")]
            return {
                "round": int(re.search(r'data-round="(\d+)"', head).group(1)),
                "version": int(re.search(r'data-version="(\d+)"', head).group(1)),
                "points": [
                    int(p) for p in re.findall(r'class="side-points" data-points="(\d+)"', section)
                ],
                "phase": re.search(r'data-phase="(\w+)"', head).group(1),
                "bell": re.search(r'data-bell="(\d)"', head).group(1) == "1",
            }
    return None


WHERE_SLOT = re.compile(r'data-where="(\w+)"[^>]*>([^<]*)<')


def where_shown(page):
    """Where a player's page says they sit, by the slots live.js fills on a round's close
    (data-where): {"set", "round", "table", "seat", "partner", "target"} as the close pushes
    them (numbers as numbers, "" for no partner); None if the page shows no seat. The
    partner's <template> is not read: it is empty."""
    found = {}
    for name, text in WHERE_SLOT.findall(page):
        if text or name not in found:
            found[name] = html.unescape(text)
    if "seat" not in found:
        return None
    return {
        **{name: int(found[name]) for name in ("set", "round", "table", "seat", "target")},
        "partner": found.get("partner", ""),
    }
