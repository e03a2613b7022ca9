"""The host's corrections (void with a confirmation step, re-enter a roll, apply or dismiss a
late tap) and what the host's and scorekeepers' pages show of them. Each view opens with its
access guard, calls one service (parties/services/roll.py, late_tap.py), and answers; all work
without JavaScript (a void's confirmation is a page of its own, not a script's dialog)."""

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from parties import access
from parties.models import Roll
from parties.pages.corrections import party_rolls, played_rounds, roll_row
from parties.services import late_tap as late_tap_service
from parties.services import roll_correction
from parties.services.errors import PartyError
from parties.translation import correction_effects, rule_error_text
from scoring.quick import QUICK_LABELS, quick_outcomes


def _rolls_page(party):
    return reverse("parties:host", args=[party.id]) + "#rolls"


def _done(request, party, correction, what):
    effects = "; ".join(correction_effects(correction))
    messages.success(request, f"{what} {effects}." if effects else what)
    return redirect(_rolls_page(party))


def _refused(request, party, error, back=None):
    messages.error(request, rule_error_text(error))
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
    """GET: the confirmation ("Void this roll?") with what it would change; POST (one of its
    buttons, each a choice of who keeps the table's later rolls): void it."""
    party, _grant = access.require_host(request, party_id)
    roll = _roll(party, roll_id)
    context = {"party": party, "roll": roll_row(roll)}
    asked = {"party": party, "roll_id": roll.id, "by": "host"}
    if request.method == "GET":
        if roll.voided_by_id is None:
            try:
                context["choices"] = _choices(roll_correction.roll_void, asked)
            except PartyError as error:
                context["refusal"] = rule_error_text(error)
        return render(request, "parties/void_confirm.html", context)
    try:
        correction = roll_correction.roll_void(
            **asked, note=request.POST.get("note", "")[:200], later=_later(request)
        )
    except PartyError as error:
        return _refused(request, party, error)
    return _done(request, party, correction, _("The roll was voided."))


@never_cache
@require_http_methods(["GET", "POST"])
def roll_correct(request, party_id, roll_id):
    """GET: the roll and a form to enter it again; POST: what the corrected roll would change,
    with a button for each choice of who keeps the table's later rolls; POST with `later` (one
    of those buttons): the correction."""
    party, _grant = access.require_host(request, party_id)
    roll = _roll(party, roll_id)
    rules = party.rules
    context = {
        "party": party,
        "roll": roll_row(roll),
        # scoring's English labels, marked there for makemessages
        "quick": [(key, _(QUICK_LABELS[key])) for key in quick_outcomes(rules)],
        "rules": rules,
        "faces": range(1, 7),
        "entered": _entered(request.POST) if request.method == "POST" else {},
    }
    if request.method == "GET":
        return render(request, "parties/roll_correct.html", context)
    try:
        asked = {"party": party, "roll_id": roll.id, "by": "host", **_entry(request.POST)}
        if "later" in request.POST:
            correction = roll_correction.roll_correct(**asked, later=_later(request))
            return _done(request, party, correction, _("The roll was corrected."))
        context["choices"] = _choices(roll_correction.roll_correct, asked)
    except PartyError as error:
        messages.error(request, rule_error_text(error))
        return render(request, "parties/roll_correct.html", context, status=400)
    return render(request, "parties/roll_correct.html", context)


LATER_WORDS = {
    roll_correction.ENTERED: gettext_lazy(
        "Each later roll stays with the player it was entered for"
    ),
    roll_correction.TURNS: gettext_lazy(
        "The dice pass as the rules say: the table's later rolls move on"
    ),
}


def _choices(write, asked):
    """What `write` would change for each choice of who keeps the later rolls: (choice, words,
    effects), the second left out where it changes nothing the first does not."""
    entered = roll_correction.correction_preview(write, **asked, later=roll_correction.ENTERED)
    turns = roll_correction.correction_preview(write, **asked, later=roll_correction.TURNS)
    choices = [(roll_correction.ENTERED, str(LATER_WORDS[roll_correction.ENTERED]), entered)]
    if turns != entered:
        choices.append((roll_correction.TURNS, str(LATER_WORDS[roll_correction.TURNS]), turns))
    return choices


def _later(request):
    return request.POST.get("later") or roll_correction.ENTERED


def _entered(post):
    """The correction form's fields as the host filled them, to fill it again."""
    return {name: post.get(name, "")[:40] for name in ("dice", "outcome", "face", "called")}


def _entry(post):
    """The corrected roll from the form: the dice, or a quick button's outcome (and face)."""
    outcome = post.get("outcome", "")
    dice = post.get("dice", "").replace(",", " ").split()
    face = post.get("face") or None
    if not outcome and not dice:
        raise PartyError(_("Enter the dice, or pick what the roll scored."))
    return {
        "dice": None if outcome else dice,
        "outcome": outcome,
        "face": int(face) if face and face.isascii() and face.isdigit() else None,
        "called": post.get("called", "") != "no",
    }


@require_POST
def late_tap_apply(request, party_id, late_tap_id):
    party, _grant = access.require_host(request, party_id)
    try:
        correction = late_tap_service.late_tap_apply(
            party=party, late_tap_id=late_tap_id, by="host"
        )
    except PartyError as error:
        return _refused(request, party, error, _late_page(party))
    return _done(request, party, correction, _("The late roll was added."))


@require_POST
def late_tap_dismiss(request, party_id, late_tap_id):
    party, _grant = access.require_host(request, party_id)
    try:
        late_tap_service.late_tap_dismiss(party=party, late_tap_id=late_tap_id, by="host")
    except PartyError as error:
        return _refused(request, party, error, _late_page(party))
    messages.success(request, _("The late roll was dismissed; nothing changed."))
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


