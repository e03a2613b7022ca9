"""The host's corrections (void with a confirmation step, re-enter a roll, apply or dismiss a
late tap) and what the host's and scorekeepers' pages show of them. Each view opens with its
access guard, calls one service (parties/services/roll.py, late_tap.py), and answers; all work
without JavaScript (a void's confirmation is a page of its own, not a script's dialog)."""

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from parties import access
from parties.models import Roll
from parties.pages.corrections import party_rolls, played_rounds, roll_row
from parties.services import late_tap as late_tap_service
from parties.services import roll as roll_service
from parties.services.errors import PartyError
from scoring.quick import QUICK_LABELS, quick_outcomes


def _rolls_page(party):
    return reverse("parties:host", args=[party.id]) + "#rolls"


def _done(request, party, correction, what):
    effects = correction.effects.replace("\n", "; ")
    messages.success(request, f"{what} {effects}." if effects else what)
    return redirect(_rolls_page(party))


def _refused(request, party, error, back=None):
    messages.error(request, str(error))
    return redirect(back or _rolls_page(party))


def _roll(party, roll_id):
    roll = (
        Roll.objects.select_related("round__bunco_set", "table", "roller")
        .filter(pk=roll_id, round__party=party)
        .first()
    )
    if roll is None:
        raise Http404("No such roll.")
    return roll


@never_cache
@require_http_methods(["GET", "POST"])
def roll_void(request, party_id, roll_id):
    """GET: the confirmation ("Void this roll?"); POST (its button): void it."""
    party, _grant = access.require_host(request, party_id)
    roll = _roll(party, roll_id)
    if request.method == "GET":
        return render(
            request, "parties/void_confirm.html", {"party": party, "roll": roll_row(roll)}
        )
    try:
        correction = roll_service.roll_void(
            party=party, roll_id=roll.id, by="host", note=request.POST.get("note", "")[:200]
        )
    except PartyError as error:
        return _refused(request, party, error)
    return _done(request, party, correction, "The roll was voided.")


@never_cache
@require_http_methods(["GET", "POST"])
def roll_correct(request, party_id, roll_id):
    """GET: the roll and a form to enter it again; POST: the corrected roll."""
    party, _grant = access.require_host(request, party_id)
    roll = _roll(party, roll_id)
    rules = party.rules
    context = {
        "party": party,
        "roll": roll_row(roll),
        "quick": [(key, QUICK_LABELS[key]) for key in quick_outcomes(rules)],
        "rules": rules,
        "faces": range(1, 7),
    }
    if request.method == "GET":
        return render(request, "parties/roll_correct.html", context)
    outcome = request.POST.get("outcome", "")
    dice = request.POST.get("dice", "").replace(",", " ").split()
    face = request.POST.get("face") or None
    try:
        if not outcome and not dice:
            raise PartyError("Enter the dice, or pick what the roll scored.")
        correction = roll_service.roll_correct(
            party=party,
            roll_id=roll.id,
            by="host",
            dice=None if outcome else dice,
            outcome=outcome,
            face=int(face) if face and face.isdigit() else None,
            called=request.POST.get("called", "") != "no",
        )
    except PartyError as error:
        messages.error(request, str(error))
        return render(request, "parties/roll_correct.html", context, status=400)
    return _done(request, party, correction, "The roll was corrected.")


@require_POST
def late_tap_apply(request, party_id, late_tap_id):
    party, _grant = access.require_host(request, party_id)
    try:
        correction = late_tap_service.late_tap_apply(
            party=party, late_tap_id=late_tap_id, by="host"
        )
    except PartyError as error:
        return _refused(request, party, error, _late_page(party))
    return _done(request, party, correction, "The late roll was added.")


@require_POST
def late_tap_dismiss(request, party_id, late_tap_id):
    party, _grant = access.require_host(request, party_id)
    try:
        late_tap_service.late_tap_dismiss(party=party, late_tap_id=late_tap_id, by="host")
    except PartyError as error:
        return _refused(request, party, error, _late_page(party))
    messages.success(request, "The late roll was dismissed; nothing changed.")
    return redirect(_late_page(party))


def _late_page(party):
    return reverse("parties:host", args=[party.id]) + "#late-taps"


# -- what the pages show -------------------------------------------------------------------------


@never_cache
@require_GET
def round_rolls(request, party_id, round_id):
    """One earlier round's rolls, for the host to void or correct."""
    party, _grant = access.require_host(request, party_id)
    rounds = [r for r in played_rounds(party) if r.id == round_id]
    if not rounds:
        raise Http404("No such round played at this party.")
    return render(
        request,
        "parties/round_rolls.html",
        {"party": party, "party_rolls": party_rolls(rounds), "round": rounds[0]},
    )


