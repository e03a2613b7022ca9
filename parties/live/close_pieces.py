"""The pieces of pages that a round's close pushes (parties.live.close_push), formatted in Python:
byte for byte what the partials the pages include render in the close's context
(`_where.html`, `_round_head.html`, `_seating_card.html` with `_table.html`, without the
keep-score form, which the page's refetch brings). At 400 players the template engine took
about half of a close's time for these 500 renders (docs/performance.md, S6, has the figures);
formatted here they cost a small part of it. tests/parties/test_close_pieces.py renders the
templates beside these for tricky names and every branch, so a change to a partial that is not
made here fails there.

Everything that comes from a user (a name) goes through Django's escaping
(`conditional_escape`, what the templates' autoescaping calls); the rest is the app's own
numbers and words. (`format_html` escaped the numbers too, and that was most of these pieces'
cost.)
"""

from django.urls import reverse
from django.utils.html import conditional_escape, format_html


def _play_to(rules):
    return "" if rules.play_to == 21 else f" · play to {rules.play_to}"


def where_html(*, party_id, status, rules, round_, place):
    """`_where.html`: where a player sits in `round_`; `place` is (table number, SeatView) or
    None; `status` the party's."""
    finished = status == "finished"
    if finished:
        said = format_html(
            '<p class="where-big">That\'s the night! <a href="{}">See the prizes</a></p>',
            reverse("parties:results", args=[party_id]),
        )
    elif place:
        number, seat = place
        partner = (
            f", partner: <strong>{conditional_escape(seat.partner)}</strong>"
            if seat.partner
            else ""
        )
        said = (
            f'<p class="where-big">Set {round_.bunco_set.number}, round {round_.number}: '
            f"<strong>table {number}</strong>, seat {seat.position}{partner}</p>"
        )
    else:
        said = "<p>Not seated this round.</p>"
    target = ""
    if place and not finished:
        target = (
            f'<p class="target-line" id="target">Target <strong class="target-number">'
            f"{round_.target}</strong>: roll for {round_.target}s{_play_to(rules)}</p>"
        )
    return f'\n<section class="card where" id="where">\n  \n  {said}\n  \n</section>\n{target}\n'


def round_head_html(*, rules, round_, table):
    """`_round_head.html`: the table's round, its target and who keeps score."""
    keeper = table.scorekeeper
    keeps = (
        f' · <span class="scorekeeper-now">{conditional_escape(keeper.name)} keeps score</span>'
        if keeper
        else ""
    )
    target = round_.target
    return (
        f'\n<section class="round-head" id="round-head">\n'
        f'  <p class="set-round">Set {round_.bunco_set.number} · round {round_.number}</p>\n'
        f'  <div class="target" aria-label="Target: {target}">{target}</div>\n'
        f'  <p class="help">roll for {target}s{_play_to(rules)}{keeps}</p>\n'
        f"</section>\n"
    )


def seating_card_html(*, table, number):
    """`_seating_card.html` as a page shows it before the round is played (open, no live
    table), with `_table.html` for `table`, without the keep-score form."""
    return (
        f'\n<details class="card seating-card" id="seating-card" open>\n'
        f"  <summary>Who sits where at table {number}</summary>\n"
        f'  <div class="tables single">{table_html(table)}</div>\n'
        f"</details>\n"
    )


def table_html(table):
    """`_table.html` for a TableView, with no seat highlighted and no keep-score form."""
    classes = (" head" if table.is_head else "") + ("" if table.team_play else " solo")
    badge = ' <span class="badge head">head table</span>' if table.is_head else ""
    seats = "".join(_seat_html(seat) for seat in table.seats)
    keeper = table.scorekeeper
    keeps = (
        f'<p class="help scorekeeper">Scorekeeper: <strong>{conditional_escape(keeper.name)}'
        "</strong> (rolls first)</p>\n  "
        if keeper
        else ""
    )
    return (
        f'<div class="table-card{classes}" id="seats-{table.number}">\n'
        f"  <h3>Table {table.number}{badge}</h3>\n"
        f'  <ol class="seats">\n    {seats}\n  </ol>\n  {keeps}\n</div>\n'
    )


def _seat_html(seat):
    team = f" team-{seat.team}" if seat.team else ""  # scoring's sides (selectors.SeatView)
    ghost = " ghost" if seat.is_ghost else ""
    ghost_badge = ' <span class="badge ghost">ghost</span>' if seat.is_ghost else ""
    partner = (
        f'<span class="seat-partner">partner: {conditional_escape(seat.partner)}</span>'
        if seat.partner
        else ""
    )
    return (
        f'\n    <li class="seat{team}{ghost}">\n'
        f'      <span class="seat-no">Seat {seat.position}</span>\n'
        f'      <span class="seat-name">{conditional_escape(seat.name)}{ghost_badge}</span>\n'
        f"      {partner}\n"
        f"    </li>\n    "
    )
