"""The pieces of a table's page that a round's close pushes (parties.live.close_push), rendered
by the partials the page itself includes: `_round_head.html` and `_seating_card.html` (with
`_table.html`), without the keep-score form, which the page's refetch brings with its CSRF
token. The markup is written once, in the templates. (A player's page is pushed its new seat
as data, which the page fills in: close_push.where.)

A 400-player close renders 100 of these inside the closing tap, and the engine's cost is a
few microseconds a variable or tag. So each close fetches the templates once and renders
every piece in one plain `Context` (no request, no context processors), pushing a piece's own
names onto it and popping them after; every name the partials read is in it (a missing one
costs an exception); the partials turn localization off (their numbers are data).
tests/parties/test_close_pieces.py checks each pushed piece against the page the phone refetches.
"""

from typing import NamedTuple

from django.template import Context
from django.template.loader import get_template


class PartyFacts(NamedTuple):
    """What the partials read of the party (the close has no model instance at hand)."""

    id: int
    status: str
    rules: object


def _template(name):
    return get_template(name).template  # the engine's own Template: it renders a Context


class ClosePieces:
    """The partials of the round a close has just seated, rendered for one table at a time."""

    def __init__(self, *, party_id, status, rules, round_):
        party = PartyFacts(party_id, status, rules)
        self._context = Context({
            "party": party,
            "round": round_,
            "rules": rules,
            "live_html": "",  # the next round is not being played: the seating card is open
            "offer_keep_score": None,  # the form carries the session's CSRF token
        })
        self._round_head = _template("parties/_round_head.html")
        self._seating_card = _template("parties/_seating_card.html")

    def table_page(self, table):
        """The table page's pieces for `table` (a selectors.TableView): its round and seats."""
        with self._context.push(table=table, number=table.number):
            return self._round_head.render(self._context) + self._seating_card.render(
                self._context
            )

