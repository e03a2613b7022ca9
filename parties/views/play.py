"""Live-play endpoints: each opens with its access guard, calls one service, and answers.

Taps come from the phone's outbox as fetch() calls wanting JSON; the same forms also work
as plain posts without JavaScript (then the answer is a redirect back to the page).
"""

from django.contrib import messages
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from parties import access, taps
from parties.pages.results import PotFormAgain, results_context
from parties.services import party as party_service
from parties.services import player as player_service
from parties.services import pot as pot_service
from parties.services import prize as prize_service
from parties.services import roll as roll_service
from parties.services import round as round_service
from parties.services.errors import PartyError, StaleTap
from parties.taps import as_int
from parties.translation import player_name, rule_error_text


def _wants_json(request):
    return "application/json" in request.headers.get("Accept", "")


def _answer(request, back, payload, status=200):
    if _wants_json(request):
        response = JsonResponse(payload, status=status)
        if "retry_after" in payload:  # a tap turned away at the gate (bunco_site.fast.gate)
            response["Retry-After"] = taps.retry_after_header(payload["retry_after"])
            # The server shedding load as designed, not an error: django.request would log
            # every one (thousands a second in a surge); the lean entry logs none either.
            response._has_been_logged = True
        return response
    if status >= 400 or payload.get("status") == "ask_call":
        messages.error(request, payload.get("message") or _("Did they call it? Enter it again."))
    return redirect(back)


@require_POST
async def roll_create(request, party_id, number):
    # The access guard is inside the tap (roll_record reads the session's links after
    # locking the party), so the tap is judged on one fresh read, as the lean entry's are.
    back = reverse("parties:table", args=[party_id, number])
    try:
        fields = taps.tap_fields(request.POST)
    except PartyError as error:
        return _answer(request, back, {"status": "refused", "message": rule_error_text(error)}, 400)
    status, payload = await taps.record(
        party_id, number, fields, links=lambda: request.session.get(access.SESSION_LINKS, [])
    )
    if payload["status"] == "busy" and not _wants_json(request):
        # A plain form has no outbox to send it again: the scorekeeper does.
        payload = {**payload, "message": _("The server is busy: this roll was not saved. "
                                           "Enter it again in a moment.")}
    return _answer(request, back, payload, status)


@require_POST
def roll_undo(request, party_id, number):
    party, grant = access.require(request, party_id, lambda a: a.can_score(number))
    back = reverse("parties:table", args=[party.id, number])
    try:
        version = roll_service.roll_undo(
            party=party,
            table_number=number,
            seen=as_int(request.POST.get("seen"), "table version"),
            by=grant.role_label,
            round_id=as_int(request.POST["round"], "round") if request.POST.get("round") else None,
        )
    except StaleTap as stale:
        payload = {"status": "stale", "message": rule_error_text(stale), "version": stale.version}
        return _answer(request, back, payload, 409)
    except PartyError as error:
        return _answer(request, back, {"status": "refused", "message": rule_error_text(error)}, 400)
    return _answer(request, back, {"status": "undone", "version": version})


def _page_for(party, grant):
    if grant.host:
        return reverse("parties:host", args=[party.id])
    if grant.table_numbers:
        return reverse("parties:table", args=[party.id, min(grant.table_numbers)])
    return reverse("parties:party", args=[party.id])


def _party_action(request, party, grant, action, done_message):
    back = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(back, allowed_hosts=None) or not back.startswith("/"):
        back = _page_for(party, grant)  # only a path on this site, never "//elsewhere"
    try:
        result = action()
    except PartyError as error:
        return _answer(request, back, {"status": "refused", "message": rule_error_text(error)}, 400)
    if not _wants_json(request):
        messages.success(request, done_message(result) if callable(done_message) else done_message)
    return _answer(request, back, {"status": "ok"})


@require_POST
def round_start(request, party_id):
    # The host, or the head table's scorekeeper, rings the bell to start.
    party, grant = access.require(request, party_id, lambda a: a.can_score(1))
    return _party_action(
        request,
        party,
        grant,
        lambda: round_service.round_start(party=party),
        _("The round has started."),
    )


@require_POST
def bell_ring(request, party_id):
    party, grant = access.require_host(request, party_id)
    return _party_action(
        request,
        party,
        grant,
        lambda: round_service.bell_ring(party=party, by="host"),
        _("The bell rang."),
    )


@require_POST
def clock_ran_out(request, party_id):
    # Any phone whose countdown reaches 0 reports it; the server checks the clock itself.
    party, grant = access.require(request, party_id, lambda a: a.host or bool(a.table_numbers))
    return _party_action(
        request,
        party,
        grant,
        lambda: round_service.bell_ring(party=party, by="clock"),
        _("Time is up."),
    )


@require_POST
def party_pause(request, party_id):
    party, grant = access.require_host(request, party_id)
    return _party_action(
        request, party, grant, lambda: party_service.party_pause(party=party),
        _("The game is paused."),
    )


@require_POST
def party_resume(request, party_id):
    party, grant = access.require_host(request, party_id)
    return _party_action(
        request, party, grant, lambda: party_service.party_resume(party=party),
        _("The game goes on."),
    )


@require_POST
def party_end(request, party_id):
    party, grant = access.require_host(request, party_id)
    return _party_action(
        request, party, grant, lambda: party_service.party_end(party=party),
        _("The party is over."),
    )


@require_POST
def player_leave(request, party_id):
    party, grant = access.require_host(request, party_id)

    def leave():
        return player_service.player_leave(
            party=party, player_id=as_int(request.POST.get("player"), "player")
        )

    def done(leave):
        if leave.moved is None:
            said = _("A ghost takes their seat from now on.")
        else:
            said = _(
                "A ghost takes their place from now on; %(moved)s changes chairs with it so that "
                "%(ghost)s has a real partner (see the seating)."
            ) % {"moved": leave.moved.name, "ghost": player_name(leave.ghost.name, True)}
        for number in leave.keeper_reset:
            said += " " + _("At table %(number)s the player in seat 1 keeps score again.") % {
                "number": number
            }
        return said

    return _party_action(request, party, grant, leave, done)


@require_POST
def player_arrive(request, party_id):
    party, grant = access.require_host(request, party_id)

    def arrive():
        player_service.player_arrive(party=party, name=request.POST.get("name", ""))

    return _party_action(
        request, party, grant, arrive, _("Welcome! They take a ghost's seat; their link is below.")
    )


@require_POST
def prize_rolloff(request, party_id, category):
    party, grant = access.require_host(request, party_id)

    def record():
        if "roll" in request.POST:
            totals = None
        else:
            totals = {}
            for key, value in request.POST.items():
                if key.startswith("total-"):
                    totals[as_int(key.removeprefix("total-"), "player")] = as_int(value, "total")
        prize_service.prize_rolloff_record(party=party, category=category, totals=totals)

    request.POST = request.POST.copy()
    request.POST["next"] = reverse("parties:results", args=[party.id]) + "#prizes"
    return _party_action(request, party, grant, record, _("Roll-off recorded."))


@require_POST
def pot_set(request, party_id):
    party, grant = access.require_host(request, party_id)
    if not _wants_json(request):
        try:
            pot_service.pot_set(party=party, data=request.POST)
        except pot_service.PotFormError as error:
            # The form again, open, as the host typed it, the refusal beside its field.
            again = PotFormAgain(request.POST.dict(), rule_error_text(error), error.field)
            context = results_context(party, grant, request, pot_form=again)
            return render(request, "parties/results.html", context, status=400)
        except PartyError as error:  # anything else the party cannot take: said at the top
            messages.error(request, rule_error_text(error))
            return redirect(reverse("parties:results", args=[party.id]) + "#pot")
        messages.success(request, _("The pot is set."))
        return redirect(reverse("parties:results", args=[party.id]) + "#pot")
    request.POST = request.POST.copy()
    request.POST["next"] = reverse("parties:results", args=[party.id]) + "#pot"
    return _party_action(
        request, party, grant, lambda: pot_service.pot_set(party=party, data=request.POST),
        _("The pot is set."),
    )
