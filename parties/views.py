"""Views: each opens with its access guard, calls one service or selector, and renders."""

import secrets
import uuid

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from parties import (
    access,
    correction_views,
    host_grid,
    page_facts,
    party_codes,
    player_csv,
    pot_view,
    selectors,
    tap_hints,
)
from parties.forms import PartyCreateForm, parse_player_file, preset_initial
from parties.models import AccessLink, Party, Player
from parties.services import link as link_service
from parties.services import party as party_service
from parties.services import player as player_service
from parties.services.errors import PartyError
from scoring import PRESETS
from scoring.quick import QUICK_LABELS, mini_face_matters, quick_outcomes


@require_GET
def landing(request):
    return render(request, "parties/landing.html")


@require_http_methods(["GET", "POST"])
def party_create(request):
    # Anyone may host a party; the browser that creates it becomes its host.
    if request.method == "GET":
        preset = request.GET.get("preset", "standard")
        form = PartyCreateForm(initial=preset_initial(preset if preset in PRESETS else "standard"))
        if request.htmx:
            return render(request, "parties/create.html#rules-options", {"form": form})
        return render(request, "parties/create.html", {"form": form})

    if "load_preset" in request.POST:  # the no-JavaScript way to switch presets
        preset = request.POST.get("preset")
        kept = {key: request.POST.get(key, "") for key in ("name", "players")}
        kept["players"] = _names_kept(request, kept["players"])
        form = PartyCreateForm(
            initial={**kept, **preset_initial(preset if preset in PRESETS else "standard")}
        )
        return render(request, "parties/create.html", {"form": form})

    form = PartyCreateForm(request.POST, request.FILES)
    if not form.is_valid():
        return render(request, "parties/create.html", {"form": form}, status=400)
    if not access.party_creation_allowed(request):
        form.add_error(
            None,
            "Too many parties were created from this network in the last hour. "
            "Wait a while and try again; nothing was created.",
        )
        return render(request, "parties/create.html", {"form": form}, status=429)
    try:
        party = party_service.party_create(
            name=form.cleaned_data["name"],
            player_names=form.cleaned_data["players"],
            preset=form.cleaned_data["preset"],
            rules=form.cleaned_data["rules"],
        )
    except PartyError as error:
        form.add_error(None, str(error))
        return render(request, "parties/create.html", {"form": form}, status=400)
    host_link = AccessLink.objects.get(party=party, role=AccessLink.Role.HOST)
    access.redeem(request, host_link)
    return redirect("parties:host", party_id=party.id)


@require_POST
def party_create_plan(request):
    # The create form's plan preview: reads what was typed, writes nothing, needs no link
    # (anyone may host). POST, so the names never sit in an address or a server log.
    form = PartyCreateForm(request.POST, request.FILES)  # the names may be a CSV file's
    return render(
        request, "parties/_plan_preview.html#plan-tables", {"preview": form.plan_preview()}
    )


def _names_kept(request, typed):
    """The list to show again when the form comes back unsent: the chosen CSV file's names
    where it reads (a browser never refills a file input), else what was typed."""
    upload = request.FILES.get("players_file")
    if not upload or typed.strip() or upload.size > player_csv.MAX_BYTES:
        return typed
    try:
        return "\n".join(parse_player_file(upload.read()))
    except ValidationError:
        return typed  # sent for real, the file's mistakes are shown


# never_cache (Cache-Control: no-store) on every page of a party: they show links, QR codes,
# the party code or who is playing, which no proxy, shared cache or disk cache may keep.
@never_cache
@require_GET
def redeem(request, token):
    link = access.link_for_token(token)
    if link is None:
        return render(request, "parties/link_invalid.html", status=404)
    access.redeem(request, link)
    # Leave the token out of the address bar, history and any Referer from here on.
    if link.role == AccessLink.Role.HOST:
        return redirect("parties:host", party_id=link.party_id)
    if link.role == AccessLink.Role.TABLE:
        return redirect("parties:table", party_id=link.party_id, number=link.table.number)
    return redirect("parties:player", party_id=link.party_id, player_id=link.player_id)


def site_url(request):
    """The address that goes into links and QR codes: the one phones use (settings.BASE_URL,
    which the party server sets to the laptop's Wi-Fi address), not necessarily the one this
    request came to (the host's own browser may be on 127.0.0.1)."""
    return settings.BASE_URL or request.build_absolute_uri("/")


def join_url(request):
    """Where players without a link type the party code."""
    return site_url(request).rstrip("/") + reverse("parties:join")


def _host_context(request, party):
    round_ = selectors.current_round(party)
    tables = selectors.seating(round_)
    if len(tables) > host_grid.COMPACT_FROM:
        return {**_host_common(request, party, round_, tables),
                **_host_grid(request, party, round_, tables)}
    return {
        **_host_common(request, party, round_, tables),
        "live_html": _live_html(party, round_, None),
        "rolls": selectors.round_rolls(round_) if round_.status != round_.Status.WAITING else [],
        **correction_views.host_context(party),
    }


def _host_grid(request, party, round_, tables):
    """A big party's dashboard (parties.host_grid): a grid of small cells, not a card a table,
    and every round's rolls a page of their own, the latest round's included (one link each):
    under the grid, 100 tables' rolls would be most of every refetch."""
    late_taps = correction_views.pending_late_taps(party)
    context = host_grid.host_grid_context(
        live_contexts=selectors.live_tables(party, round_, None),
        tables=tables,
        late_taps=late_taps,
        bell=bool(round_.bell_at),
        query=host_grid.grid_query(request.GET),
    )
    return {
        **context,
        "party_rolls": [],
        "earlier_rounds": [
            correction_views.RoundLink(
                r.id, f"Set {r.bunco_set.number}, round {r.number}", r.get_status_display()
            )
            for r in correction_views.played_rounds(party)
        ],
        "late_taps": late_taps,
        "corrections": correction_views.audit_lines(party),
        # Who keeps score is picked on each table's own page (each cell links to it): a
        # form at each of 100 tables was a third of the refetch between rounds.
        "offer_keep_score": None,
    }


def _host_common(request, party, round_, tables):
    return {
        "party": party,
        "code_shown": party_codes.party_code_shown(party.code),
        "rules": party.rules,
        "round": round_,
        "tables": tables,
        "links": selectors.party_links(party, site_url(request)),
        "join_url": join_url(request),
        "players": party.players.all(),
        "table_numbers": ",".join(str(n) for n in party.tables.values_list("number", flat=True)),
        **page_facts.host_context(party, round_, tables),  # header, fuzzy die, reseats
    }


@never_cache
@require_GET
def host(request, party_id):
    party, _grant = access.require_host(request, party_id)
    return _page(request, "parties/host.html", _host_context(request, party))


def _host_change(request, party_id, change):
    party, _grant = access.require_host(request, party_id)
    try:
        change(party)
    except PartyError as error:
        messages.error(request, str(error))
        if request.htmx:
            # 200, not 400: htmx swaps no 4xx answer (the host would see nothing), and with
            # DEBUG django-htmx puts a 4xx answer in place of the whole page.
            context = _host_context(request, party)
            return render(request, "parties/_host_seating.html", context)
        return redirect("parties:host", party_id=party.id)
    if request.htmx:
        return render(request, "parties/_host_seating.html", _host_context(request, party))
    return redirect(reverse("parties:host", args=[party.id]) + "#seating")


@require_POST
def host_reshuffle(request, party_id):
    return _host_change(request, party_id, lambda party: party_service.party_reshuffle(party=party))


@require_POST
def host_swap(request, party_id):
    def swap(party):
        try:
            a, b = int(request.POST.get("player_a", "")), int(request.POST.get("player_b", ""))
        except ValueError:
            raise PartyError("Pick two players to swap.") from None
        player_service.players_swap(party=party, player_a=a, player_b=b)

    return _host_change(request, party_id, swap)


@require_POST
def link_reissue(request, party_id, link_id):
    party, _grant = access.require_host(request, party_id)
    try:
        new = link_service.link_reissue(party=party, link_id=link_id)
    except PartyError as error:
        messages.error(request, str(error))
        return redirect(reverse("parties:host", args=[party.id]) + "#links")
    if new.role == AccessLink.Role.HOST:
        access.redeem(request, new)  # the host keeps the access they just renewed
    messages.success(request, "New link made; the old one no longer opens anything.")
    return redirect(reverse("parties:host", args=[party.id]) + "#links")


@never_cache  # the code holds the link's token: no cache may keep it
@require_GET
def link_qr(request, party_id, link_id):
    """One live link's QR code, as an image: a big party's host page loads each only when the
    host opens that link (501 drawn into the page made it 1.8 MB and 3 seconds to render)."""
    party, _grant = access.require_host(request, party_id)
    link = next((v for v in selectors.party_links(party, site_url(request)) if v.id == link_id),
                None)
    if link is None:
        return HttpResponse("No such live link at this party.", status=404,
                            content_type="text/plain")
    svg = link.qr_svg.replace("<svg ", '<svg xmlns="http://www.w3.org/2000/svg" ', 1)
    return HttpResponse(svg, content_type="image/svg+xml")


@never_cache
@require_GET
def table_cards(request, party_id):
    party, _grant = access.require_host(request, party_id)
    links = selectors.party_links(party, site_url(request))
    links = [link for link in links if link.role == AccessLink.Role.TABLE]
    return render(
        request,
        "parties/table_cards.html",
        {
            "party": party,
            "links": links,
            "code_shown": party_codes.party_code_shown(party.code),
            "join_url": join_url(request),
        },
    )


def _page(request, template, context):
    """The page, or only its live region for htmx (a resync after a push or a reconnect)."""
    return render(request, f"{template}#live" if request.htmx else template, context)


def _live_html(party, round_, numbers):
    return [
        render_to_string("parties/_live_table.html", context)
        for context in selectors.live_tables(party, round_, numbers)
    ]


@never_cache
@require_GET
def table(request, party_id, number):
    party, grant = access.require(request, party_id, lambda a: a.can_score(number))
    round_ = selectors.current_round(party)
    tables = {t.number: t for t in selectors.seating(round_, [number])}
    if number not in tables:
        return render(request, "parties/link_invalid.html", status=404)
    rules = party.rules
    live_html = _live_html(party, round_, [number])
    return _page(
        request,
        "parties/table.html",
        {
            "party": party,
            "round": round_,
            "table": tables[number],
            "number": number,
            "rules": rules,
            "live_html": live_html[0] if live_html else "",
            "quick": [(key, QUICK_LABELS[key]) for key in quick_outcomes(rules)],
            "mini_faces": [f for f in range(1, 7) if f != round_.target],
            "mini_face_matters": mini_face_matters(rules),
            "roll_points": tap_hints.pending_points(rules, round_.target),
            "faces": range(1, 7),
            "tap_id": uuid.uuid4(),
            "can_start": round_.status == round_.Status.WAITING and grant.can_score(1),
            "closed_undo": correction_views.closed_undo(party, number)
            if round_.status != round_.Status.PLAYING
            else None,
            "fuzzy_die": selectors.fuzzy_die(party),
            "offer_keep_score": "table",
        },
    )


@never_cache
@require_GET
def party_view(request, party_id):
    party, grant = access.require_any(request, party_id)
    round_ = selectors.current_round(party)
    tables = selectors.seating(round_)
    return _page(
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
    """A big party's players' view: "find your table" by name (parties.host_grid)."""
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
    live_html = _live_html(party, round_, [place[0]]) if place else []
    return _page(
        request,
        "parties/player.html",
        {
            "party": party,
            "player": player,
            "round": round_,
            "place": place,
            "sheet": selectors.score_sheet(player),
            "own": player.id in grant.player_ids,
            "live_html": live_html[0] if live_html else "",
            "fuzzy_die": selectors.fuzzy_die(party),
        },
    )


@never_cache
@require_GET
def results(request, party_id):
    party, grant = access.require_any(request, party_id)
    rows, prizes = selectors.party_results(party)
    pot = pot_view.pot_view(party, prizes)
    return render(
        request,
        "parties/results.html",
        {
            "party": party,
            "rows": rows,
            "prizes": [(prize, money) for prize, money in zip(prizes, pot.prizes, strict=True)],
            "pot": pot,
            "grant": grant,
            "corrections": correction_views.audit_lines(party),
        },
    )


TOO_MANY_CODES = "Too many wrong codes from this phone. Wait ten minutes, or ask the host."

# The join page's browser id: a random value in a small signed cookie, sent only to /join/. The
# per-browser allowance counts on it, and it needs no session row: a failed or refused join
# stores nothing on the server but its count in the cache.
JOIN_COOKIE = "bunco_join"
JOIN_COOKIE_SALT = "bunco-join-browser"
JOIN_COOKIE_AGE = 60 * 60 * 24  # far longer than a window, so no count outlives its cookie


def _join_browser(request):
    """The id the join limit counts this browser on, and whether it is new (its answer sets
    it). A browser without the cookie, or with one not of our signing, is a new browser."""
    browser = request.get_signed_cookie(
        JOIN_COOKIE, default=None, salt=JOIN_COOKIE_SALT, max_age=JOIN_COOKIE_AGE
    )
    if browser:
        return browser, False
    return secrets.token_urlsafe(16), True


def _join_answer(response, browser, new):
    if new:
        response.set_signed_cookie(
            JOIN_COOKIE,
            browser,
            salt=JOIN_COOKIE_SALT,
            max_age=JOIN_COOKIE_AGE,
            path=reverse("parties:join"),
            secure=settings.SESSION_COOKIE_SECURE,
            httponly=True,
            samesite="Lax",
        )
    return response


@never_cache
@require_http_methods(["GET", "POST"])
def join(request):
    """Type the party code, then pick your name: a way in for a player without a link."""
    browser, new = _join_browser(request)
    if request.method == "GET":
        return _join_answer(render(request, "parties/join.html"), browser, new)
    # One limit, on the browser, counted before the code is judged and decided on the count
    # this request got (docs/security.md): concurrent guesses from one browser cannot all pass
    # a check made before any of them counted. A guest's typos lock out only that browser.
    # Nothing counts on the address: a script that drops its cookies is a fresh guest to us,
    # so whatever stopped it would stop the guests sharing its address too.
    key = f"party-code-failures:browser:{browser}"
    counted = access.attempt_count(key, settings.PARTY_CODE_FAILURE_WINDOW)
    if counted > settings.PARTY_CODE_MAX_FAILURES:
        access.attempt_uncount(key)  # a refusal is not a guess
        answer = render(request, "parties/join.html", {"error": TOO_MANY_CODES}, status=429)
        return _join_answer(answer, browser, new)
    code = party_codes.party_code_typed(request.POST.get("code", ""))
    party = Party.objects.filter(code=code).first() if code else None
    if party is None:  # a wrong code: it stays counted
        answer = render(
            request,
            "parties/join.html",
            {"error": "No party has that code. Check it with the host.", "code": code[:16]},
            status=400,
        )
        return _join_answer(answer, browser, new)
    access.attempt_uncount(key)  # a right code is no failure
    access.grant_code(request, party)  # the only join that stores a session
    return _join_answer(redirect("parties:party", party_id=party.id), browser, new)


def healthz(request):
    return HttpResponse("ok", content_type="text/plain")


