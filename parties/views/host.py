"""The host's page: the seating, the tables live, the links and QR codes, the table cards; and the
seat changes the host makes before round 1."""

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from parties import access, party_codes, selectors
from parties.models import AccessLink
from parties.pages import corrections as correction_context
from parties.pages import facts as page_facts
from parties.pages import fragments, host_grid, phone_roles
from parties.pages.links import join_url, site_url
from parties.services import link as link_service
from parties.services import party as party_service
from parties.services import player as player_service
from parties.services.errors import PartyError
from parties.translation import rule_error_text
from parties.views import respond


def _host_context(request, party, grant):
    round_ = selectors.current_round(party)
    tables = selectors.seating(round_)
    common = _host_common(request, party, round_, tables, grant)
    if len(tables) > host_grid.COMPACT_FROM:
        return {**common, **_host_grid(request, party, round_, tables)}
    return {
        **common,
        "live_html": respond.live_html(party, round_, None),
        "rolls": selectors.round_rolls(round_) if round_.status != round_.Status.WAITING else [],
        **correction_context.host_context(party),
    }


def _host_grid(request, party, round_, tables):
    """A big party's dashboard (parties.pages.host_grid): a grid of small cells, not a card a table,
    and every round's rolls a page of their own, the latest round's included (one link each):
    under the grid, 100 tables' rolls would be most of every refetch."""
    late_taps = correction_context.pending_late_taps(party)
    context = host_grid.host_grid_context(
        live_contexts=fragments.live_tables(party, round_, None),
        tables=tables,
        late_taps=late_taps,
        bell=bool(round_.bell_at),
        query=host_grid.grid_query(request.GET),
    )
    return {
        **context,
        "party_rolls": [],
        "earlier_rounds": [
            correction_context.RoundLink(
                r.id, correction_context.round_name(r.bunco_set.number, r.number),
                r.get_status_display(),
            )
            for r in correction_context.played_rounds(party)
        ],
        "late_taps": late_taps,
        "corrections": correction_context.audit_lines(party),
        # Who keeps score is picked on each table's own page (each cell links to it): a
        # form at each of 100 tables was a third of the refetch between rounds.
        "offer_keep_score": None,
    }


def _host_common(request, party, round_, tables, grant):
    players = list(party.players.all())
    return {
        "party": party,
        "code_shown": party_codes.party_code_shown(party.code),
        "rules": party.rules,
        "round": round_,
        "tables": tables,
        "links": selectors.party_links(party, site_url(request)),
        "join_url": join_url(request),
        "players": players,
        "table_numbers": ",".join(str(n) for n in party.tables.values_list("number", flat=True)),
        **_guests(party),
        **page_facts.host_context(party, round_, tables),  # header, fuzzy die, reseats
        **phone_roles.phone_context(grant, round_, players),  # "I am playing"
    }


def _guests(party):
    guests = selectors.guests_waiting(party)
    return {"guests": guests, "guest_names": ", ".join(guest.name for guest in guests)}


@never_cache
@require_GET
def host(request, party_id):
    party, grant = access.require_host(request, party_id)
    return respond.page(request, "parties/host.html", _host_context(request, party, grant))


def _host_change(request, party_id, change):
    party, grant = access.require_host(request, party_id)
    try:
        change(party)
    except PartyError as error:
        messages.error(request, rule_error_text(error))
        if request.htmx:
            # 200, not 400: htmx swaps no 4xx answer (the host would see nothing), and with
            # DEBUG django-htmx puts a 4xx answer in place of the whole page.
            context = _host_context(request, party, grant)
            return render(request, "parties/_host_seating.html", context)
        return redirect("parties:host", party_id=party.id)
    if request.htmx:
        context = _host_context(request, party, grant)
        return render(request, "parties/_host_seating.html", context)
    return redirect(reverse("parties:host", args=[party.id]) + "#seating")


@require_POST
def paper_language(request, party_id):
    party, _grant = access.require_host(request, party_id)
    try:
        party_service.party_paper_language(party=party, language=request.POST.get("language", ""))
    except PartyError as error:
        messages.error(request, rule_error_text(error))
    else:
        name = translation.get_language_info(party.language)["name_translated"]
        messages.success(request, _("The printouts are in %(language)s.") % {"language": name})
    return redirect(reverse("parties:host", args=[party.id]) + "#paper")


@require_POST
def host_reshuffle(request, party_id):
    return _host_change(request, party_id, lambda party: party_service.party_reshuffle(party=party))


@require_POST
def host_swap(request, party_id):
    def swap(party):
        try:
            a, b = int(request.POST.get("player_a", "")), int(request.POST.get("player_b", ""))
        except ValueError:
            raise PartyError(_("Pick two players to swap.")) from None
        player_service.players_swap(party=party, player_a=a, player_b=b)

    return _host_change(request, party_id, swap)


@require_POST
def link_reissue(request, party_id, link_id):
    party, _grant = access.require_host(request, party_id)
    try:
        new = link_service.link_reissue(party=party, link_id=link_id)
    except PartyError as error:
        messages.error(request, rule_error_text(error))
        return redirect(reverse("parties:host", args=[party.id]) + "#links")
    if new.role == AccessLink.Role.HOST:
        access.redeem(request, new)  # the host keeps the access they just renewed
    messages.success(request, _("New link made; the old one no longer opens anything."))
    return redirect(reverse("parties:host", args=[party.id]) + "#links")


@require_POST
def host_plays(request, party_id):
    """"I am playing: <name>": the host's phone also holds that player's link, as if their card
    had been scanned (a session keeps every link it redeems), in place of any other player's."""
    party, _grant = access.require_host(request, party_id)
    try:
        link = access.player_link(party.id, int(request.POST.get("player", "")))
    except ValueError:
        link = None
    if link is None:
        messages.error(request, _("Pick your name from the party's players."))
    else:
        access.play_as(request, party.id, link)
        messages.success(
            request, _("This phone plays as %(name)s too.") % {"name": link.player.name}
        )
    return redirect("parties:host", party_id=party.id)  # "You play as" is at its top


@never_cache  # the code holds the link's token: no cache may keep it
@require_GET
def link_qr(request, party_id, link_id):
    """One live link's QR code, as an image: a big party's host page loads each only when the
    host opens that link (501 drawn into the page made it 1.8 MB and 3 seconds to render)."""
    party, _grant = access.require_host(request, party_id)
    link = next((v for v in selectors.party_links(party, site_url(request)) if v.id == link_id),
                None)
    if link is None:
        return HttpResponse(_("No such live link at this party."), status=404,
                            content_type="text/plain; charset=utf-8")
    svg = link.qr_svg.replace("<svg ", '<svg xmlns="http://www.w3.org/2000/svg" ', 1)
    return HttpResponse(svg, content_type="image/svg+xml")
