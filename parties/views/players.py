"""The players' pages: the party's view, a player's own sheet, and the results."""

from django.shortcuts import get_object_or_404, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from parties import access, selectors
from parties.models import Player
from parties.pages import host_grid
from parties.pages.results import results_context
from parties.views import respond


@never_cache
@require_GET
def party_view(request, party_id):
    party, grant = access.require_any(request, party_id)
    round_ = selectors.current_round(party)
    tables = selectors.seating(round_)
    return respond.page(
        request,
        "parties/party.html",
        {
            "party": party,
            "round": round_,
            "tables": tables,
            "players": party.players.filter(is_ghost=False),
            "grant": grant,
            "fuzzy_die": selectors.fuzzy_die(party),
            **_players_search(request, tables),
        },
    )


def _players_search(request, tables):
    """A big party's players' view: "find your table" by name (parties.pages.host_grid)."""
    if len(tables) <= host_grid.COMPACT_FROM:
        return {"big": False}
    _show, find = host_grid.grid_query(request.GET)
    found = host_grid.find_players(tables, find)
    return {
        "big": True,
        "find": find,
        "found": found[: host_grid.FOUND_SHOWN],
        "found_more": max(0, len(found) - host_grid.FOUND_SHOWN),
    }


@never_cache
@require_GET
def player(request, party_id, player_id):
    party, grant = access.require(
        request, party_id, lambda a: a.can_view_sheet(player_id)
    )
    player = get_object_or_404(Player, party=party, pk=player_id, is_ghost=False)
    round_ = selectors.current_round(party)
    place = selectors.seat_of(round_, player.id)
    live_html = respond.live_html(party, round_, [place[0]]) if place else []
    return respond.page(
        request,
        "parties/player.html",
        {
            "party": party,
            "player": player,
            "round": round_,
            "place": place,
            "sheet": selectors.score_sheet(player),
            "own": player.id in grant.player_ids,
            "is_host": grant.host,  # a way back to the host page (the host who plays)
            "live_html": live_html[0] if live_html else "",
            "fuzzy_die": selectors.fuzzy_die(party),
        },
    )


@never_cache
@require_GET
@respond.in_paper_language(by_default=False)  # a phone's page, which can print as the party's paper
def results(request, party_id):
    party, grant = access.require_any(request, party_id)
    return render(request, "parties/results.html", results_context(party, grant, request))
