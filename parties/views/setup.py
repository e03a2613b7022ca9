"""Setting up and joining: the landing page, the create form, a link redeemed into the session, the
join page (the party code), and the health check."""

import secrets

from django.conf import settings
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from parties import access, party_codes
from parties.exchange import player_csv
from parties.forms import PartyCreateForm, parse_player_file, preset_initial
from parties.models import AccessLink, Party
from parties.party_limits import NAME_MAX
from parties.services import guests as guest_service
from parties.services import party as party_service
from parties.services.errors import PartyError
from parties.translation import rule_error_text
from scoring import PRESETS


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
        kept["self_join"] = bool(request.POST.get("self_join"))
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
            _(
                "Too many parties were created from this network in the last hour. "
                "Wait a while and try again; nothing was created."
            ),
        )
        return render(request, "parties/create.html", {"form": form}, status=429)
    try:
        party = party_service.party_create(
            name=form.cleaned_data["name"],
            player_names=form.cleaned_data["players"],
            preset=form.cleaned_data["preset"],
            rules=form.cleaned_data["rules"],
            language=form.cleaned_data["language"],
            self_join=form.cleaned_data["self_join"],
        )
    except PartyError as error:
        form.add_error(None, rule_error_text(error))
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


TOO_MANY_CODES = gettext_lazy(
    "Too many wrong codes from this phone. Wait ten minutes, or ask the host."
)


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
    """Type the party code, then pick your name: a way in for a player without a link. With a
    name too, at a party that lets guests add themselves, the guest asks to join and waits."""
    browser, new = _join_browser(request)
    # A TV turned away from the scoreboard comes here to type the code, and goes back to it.
    then_tv = {"then_tv": (request.GET if request.method == "GET" else request.POST).get("then")
               == "tv"}
    if request.method == "GET":
        return _join_answer(render(request, "parties/join.html", then_tv), browser, new)
    # One limit, on the browser, counted before the code is judged and decided on the count
    # this request got (docs/security.md): concurrent guesses from one browser cannot all pass
    # a check made before any of them counted. A guest's typos lock out only that browser.
    # Nothing counts on the address: a script that drops its cookies is a fresh guest to us,
    # so whatever stopped it would stop the guests sharing its address too.
    key = f"party-code-failures:browser:{browser}"
    counted = access.attempt_count(key, settings.PARTY_CODE_FAILURE_WINDOW)
    typed = {"name": request.POST.get("name", "")[: NAME_MAX * 2], **then_tv}
    if counted > settings.PARTY_CODE_MAX_FAILURES:
        access.attempt_uncount(key)  # a refusal is not a guess
        answer = render(
            request, "parties/join.html", {"error": TOO_MANY_CODES, **typed}, status=429
        )
        return _join_answer(answer, browser, new)
    code = party_codes.party_code_typed(request.POST.get("code", ""))
    party = Party.objects.filter(code=code).first() if code else None
    if party is None:  # a wrong code: it stays counted
        answer = render(
            request,
            "parties/join.html",
            {"error": _("No party has that code. Check it with the host."), "code": code[:16],
             **typed},
            status=400,
        )
        return _join_answer(answer, browser, new)
    access.attempt_uncount(key)  # a right code is no failure
    if request.POST.get("name", "").strip() and not then_tv["then_tv"]:
        return _join_answer(_guest_asks(request, party, code), browser, new)
    access.grant_code(request, party)  # the only join that stores a session
    where = "parties:tv" if then_tv["then_tv"] else "parties:party"
    return _join_answer(redirect(where, party_id=party.id), browser, new)


def _guest_asks(request, party, code):
    """A right code with a name: the guest asks to join (services.guests) and waits on a page
    of its own. Refused, nothing is stored (not even the code's reading)."""
    try:
        joined = guest_service.guest_join(
            party=party, name=request.POST["name"],
            replacing=access.waiting_secret(request.session),
        )
    except PartyError as error:
        return render(
            request, "parties/join.html",
            {"error": rule_error_text(error), "code": code[:16],
             "name": request.POST["name"][: NAME_MAX * 2]},
            status=400,
        )
    access.grant_code(request, party)  # the guest reads the party meanwhile
    access.hold_waiting(request, joined.secret)
    return redirect("parties:waiting")


def healthz(request):
    return HttpResponse("ok", content_type="text/plain")
