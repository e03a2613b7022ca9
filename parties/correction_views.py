"""The host's corrections (void with a confirmation step, re-enter a roll, apply or dismiss a
late tap) and what the host's and scorekeepers' pages show of them. Each view opens with its
access guard, calls one service (parties/services/roll.py, late_tap.py), and answers; all work
without JavaScript (a void's confirmation is a page of its own, not a script's dialog)."""

from dataclasses import dataclass

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from parties import access, state
from parties.models import Correction, LateTap, Roll, Round
from parties.services import late_tap as late_tap_service
from parties.services import roll as roll_service
from parties.services.errors import PartyError
from scoring.quick import QUICK_LABELS, entry_words, quick_outcomes


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


@dataclass(frozen=True)
class RollRow:
    id: int
    round_name: str
    table_number: int
    roller: str
    entry: str  # as entered: "2 points", "a mini Bunco of 4s", or the dice
    called: bool
    phase: str
    before_bell: bool
    voided: bool
    entered_by: str
    created_at: object


def roll_row(roll):
    return RollRow(
        roll.id,
        f"Set {roll.round.bunco_set.number}, round {roll.round.number}",
        roll.table.number,
        roll.roller.name,
        entry_words(roll.outcome, roll.face, roll.dice),
        roll.called,
        roll.phase,
        roll.before_bell,
        roll.voided_by_id is not None,
        roll.entered_by,
        roll.created_at,
    )


@dataclass(frozen=True)
class RoundRolls:
    round_id: int
    title: str
    status: str
    tables: list  # (table number, [RollRow, ...] in the order rolled)


@dataclass(frozen=True)
class RoundLink:
    round_id: int
    title: str
    status: str


def played_rounds(party):
    """The rounds with rolls to correct (in play or closed), newest first."""
    return list(
        Round.objects.filter(party=party, status__in=(Round.Status.PLAYING, Round.Status.CLOSED))
        .select_related("bunco_set")
        .order_by("-bunco_set__number", "-number")
    )


def party_rolls(rounds):
    """The live rolls of `rounds`, newest round first, per table in the order rolled: what
    the host can void or correct."""
    rolls = (
        Roll.objects.filter(round__in=rounds, voided_by__isnull=True)
        .select_related("round__bunco_set", "table", "roller")
        .order_by("id")
    )
    by_round = {}
    for roll in rolls:
        by_round.setdefault(roll.round_id, {}).setdefault(roll.table.number, []).append(
            roll_row(roll)
        )
    return [
        RoundRolls(
            r.id,
            f"Set {r.bunco_set.number}, round {r.number}",
            r.get_status_display(),
            sorted(by_round.get(r.id, {}).items()),
        )
        for r in rounds
        if r.id in by_round
    ]


@dataclass(frozen=True)
class AuditLine:
    made_at: object
    made_by: str
    what: str
    round_name: str
    effects: list


def audit_lines(party):
    """Every correction of the party, newest first: time, who, what, and what it changed."""
    rows = (
        Correction.objects.filter(party=party)
        .select_related("round__bunco_set")
        .prefetch_related("late_taps")
        .order_by("-made_at", "-id")
    )
    lines = []
    for c in rows:
        what = c.get_kind_display()
        if c.kind == Correction.Kind.LATE_TAP and any(
            t.status == LateTap.Status.DISMISSED for t in c.late_taps.all()
        ):
            what = "Late roll dismissed"
        lines.append(
            AuditLine(
                c.made_at,
                c.made_by,
                f"{what}: {c.note}" if c.note else what,
                f"Set {c.round.bunco_set.number}, round {c.round.number}" if c.round else "",
                [e for e in c.effects.splitlines() if e],
            )
        )
    return lines


def pending_late_taps(party):
    return list(
        LateTap.objects.filter(party=party, status=LateTap.Status.PENDING)
        .select_related("table", "round__bunco_set")
        .order_by("created_at", "id")
    )


def host_context(party):
    """The host page's corrections: the rolls of the latest round played to void or correct
    (earlier rounds a link each: the page is refetched as the tables roll, and a whole night's
    rolls made it megabytes and a second to render), late taps, and the audit list."""
    rounds = played_rounds(party)
    return {
        "party_rolls": party_rolls(rounds[:1]),
        "earlier_rounds": [
            RoundLink(r.id, f"Set {r.bunco_set.number}, round {r.number}", r.get_status_display())
            for r in rounds[1:]
        ],
        "late_taps": pending_late_taps(party),
        "corrections": audit_lines(party),
    }


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


@dataclass(frozen=True)
class ClosedUndo:
    round_id: int
    round_number: int
    seen: int  # the table's version in that round, as the undo's staleness check wants it


def closed_undo(party, number):
    """For a table's page while the next round waits: the just-closed round's undo, if that
    table has a roll there to take back."""
    round_ = roll_service.undoable_closed_round(party)
    if round_ is None:
        return None
    live = state.load(round_, party.rules)
    if not 1 <= number <= len(live.seating) or not live.extras[number - 1].live_rolls:
        return None
    return ClosedUndo(round_.id, round_.number, live.extras[number - 1].version)
