"""What a round's close pushes each page is what that page shows once refetched: a table's page
its partials, rendered in the close's own context (parties.live.close_pieces); a player's page
its new seat as data, the values of the slots its page fills (parties.live.close_push.where).
Each is checked here against the page its phone refetches a moment later, for names a user may type (HTML characters, quotes, braces, percent
signs), ghosts, tables of players alone and a play-to other than 21: a context the close builds
differently from the page's fails here."""

import re

import pytest

from bench.phone import where_shown
from parties import selectors
from parties.models import AccessLink
from parties.services.round import round_start
from tests.parties import test_play
from tests.parties.conftest import Browser, redeem
from tests.parties.test_play import live, new_party
from tests.parties.test_round_close_push import close_by_hand

pushes = test_play.pushes  # the fixture recording what the writes push

pytestmark = pytest.mark.django_db

TRICKY = [
    'Ann <b>"the bold"</b>',
    "O'Brien & Sons",
    "<script>alert(1)</script>",
    "{0} {name} %s %(x)s {{ x }} {% y %}",
    "Zoë 🎲 — ünïcode",
    "&amp; already escaped?",
    "Plain Pat",
    "Plain Quinn",
]

PARTIES = {
    "teams": dict(names=TRICKY),
    "ghosts": dict(names=TRICKY[:5]),  # 5 players, 3 ghosts: a ghost's partner keeps score
    "alone, to 11": dict(names=TRICKY[:6], team_size=1, rotation="none", play_to=11),
    "boxed plan": dict(preset="boxed_small", names=TRICKY[:6]),
}


def _squeezed(html):
    return re.sub(r"\s+", " ", html).strip()


def _without_keep_score_forms(html):
    """The page less its keep-score forms: they carry the session's CSRF token, so the push
    leaves them out and the page's refetch brings them."""
    return re.sub(
        r'<form method="post" action="[^"]*/scorekeeper/".*?</form>', "", html, flags=re.S
    )


def _pieces(html):
    """A pushed table page's top-level elements (its two partials)."""
    return re.split(r"\n(?=<(?:section|details|p)\b)", html.strip())


@pytest.mark.parametrize("kind", list(PARTIES))
def test_every_pushed_piece_is_what_its_page_shows_after_the_close(
    kind, pushes, django_capture_on_commit_callbacks
):
    party = new_party(**PARTIES[kind])
    round_start(party=party)
    _round, before = live(party)
    with django_capture_on_commit_callbacks(execute=True):
        close_by_hand(party, tables=len(before.seating))
    per_table = [m for _g, m in pushes if m["type"] == "round" and "views" in m]
    assert len(per_table) == len(before.seating)
    host = Browser()
    redeem(host, AccessLink.objects.get(party=party, role="host"))
    nxt = selectors.current_round(party)
    shown = 0
    for message in per_table:
        for view, piece in message["views"].items():
            kind_, key = view.split("-")
            page = host.get(
                f"/parties/{party.id}/{'players' if kind_ == 'player' else 'table'}/{key}/",
                HTTP_HX_REQUEST="true",  # what the page's own refetch (its resync) shows
            ).content.decode()
            if kind_ == "player":
                place = selectors.seat_of(nxt, int(key))
                assert piece["tables"] == str(place.table)
                assert piece["where"] == where_shown(page)
                assert piece["where"]["table"] == place.table
                assert piece["where"]["seat"] == place.seat.position
                assert piece["where"]["partner"] == place.seat.partner
            else:
                on_page = _squeezed(_without_keep_score_forms(page))
                pieces = _pieces(piece["html"])
                assert len(pieces) == 2
                for one in pieces:
                    assert _squeezed(one) in on_page, (view, one)
                assert "<script>" not in piece["html"] and "<b>" not in piece["html"]
            shown += 1
    assert shown == len(before.seating) + len(PARTIES[kind]["names"])  # every page's piece
