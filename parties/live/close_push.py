"""What a round's close pushes, so that no phone has to refetch its page at the moment every
phone of the party would (docs/performance.md, S6).

Each phone is told its new seat in the push: a table's page the pieces that show its round and
seats, rendered by the partials the page itself includes (`_round_head.html` and
`_seating_card.html`; parties.live.close_pieces); a player's page its seat as data (`where`),
which the page fills into the slots `_where.html` names (rendering 400 players' pieces too
made a 400-player close's last phone wait 30-35 ms more: bench/ S6). The messages go to the
closed round's table groups, those of one table together, since every page that shows a
table watches that table: one event per table, carrying each of its pages' own message,
rendered and serialised once; each socket sends its page only the one named by the page's
`data-view` (player-<id>, table-<n>). The page shows its seat and refetches the rest of
itself a little later: not before `refetch_after` seconds, while the close is still going out
to the rest of the party, then at a moment of its own within `refetch_within` seconds, so
that a big party's phones do not all ask at once. Pages without a piece (the host's, the TV,
the party page) refetch on the party-wide message as before.
"""

from django.utils import translation

from parties import selectors
from parties.live import close_pieces, languages

# A phone refetches the rest of its page within this many seconds per player of the party
# (4 s for 400 players), at a random moment: spread out, each refetch costs the server what it
# did when they all came at once, but they no longer hold up the pushes or each other.
REFETCH_SPREAD_PER_PLAYER = 0.01
REFETCH_SPREAD_MAX = 5.0


# ... and not in the first seconds after the close, this many per player (1 s for 400): the
# close's pushes to the rest of the party are still going out, and a page rendered meanwhile
# holds them up (bench/ S6: the slowest 400-player closes were those with a few refetches
# inside their window; docs/performance.md has the figures).
REFETCH_AFTER_PER_PLAYER = 0.0025
REFETCH_AFTER_MAX = 1.0


def refetch_spread(players):
    return round(min(REFETCH_SPREAD_MAX, REFETCH_SPREAD_PER_PLAYER * players), 2)


def refetch_after(players):
    return round(min(REFETCH_AFTER_MAX, REFETCH_AFTER_PER_PLAYER * players), 2)


def where(place, round_):
    """A player's new seat, as `_where.html` names its slots (data-where)."""
    return {
        "set": round_.bunco_set.number,
        "round": round_.number,
        "table": place.table,
        "seat": place.seat.position,
        "partner": place.seat.partner,
        "target": round_.target,
    }


def next_seat_views(*, party_id, status, rules, closed_seating, next_round, seats):
    """{language: {table number in the closed round: {view: piece}}}, in each language the
    party's phones read (parties.live.languages): for each table of the closed round, the new
    view of its table page ({"html", "tables"}) and of the page of every player who sat there
    ({"where", "tables"}).
    `seats` are the next round's seats as the close wrote them (round_close.NewSeat, with
    `table` and `player` as a Seat has them), in table and seat order;
    `status` the party's status once the round has closed."""
    views = {}
    for language in languages.read_at(party_id):
        with translation.override(language):
            tables = selectors.table_views(seats, rules)  # a ghost's name is in the language
            views[language] = _views(party_id, status, rules, closed_seating, next_round, tables)
    return views


def _views(party_id, status, rules, closed_seating, next_round, tables):
    pieces = close_pieces.ClosePieces(
        party_id=party_id, status=status, rules=rules, round_=next_round
    )
    by_number = {table.number: table for table in tables}
    place_of = {
        seat.player_id: selectors.Place(table.number, seat)
        for table in tables
        for seat in table.seats
    }
    views = {}
    for number, seated in enumerate(closed_seating, start=1):
        table_views = {}
        table = by_number.get(number)
        if table is not None:
            table_views[f"table-{number}"] = {
                "html": pieces.table_page(table),
                "tables": str(number),
            }
        for player_id in seated:
            place = place_of.get(int(player_id))
            if place is None or place.seat.is_ghost:
                continue  # a ghost has no page; a player not seated now refetches as before
            table_views[f"player-{player_id}"] = {
                "where": where(place, next_round),
                "tables": str(place.table),
            }
        views[number] = table_views
    return views
