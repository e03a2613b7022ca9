"""Live-play endpoints: each opens with its access guard, calls one service, and answers.

Taps come from the phone's outbox as fetch() calls wanting JSON; the same forms also work
as plain posts without JavaScript (then the answer is a redirect back to the page).
"""

import uuid
from functools import wraps

from asgiref.sync import sync_to_async
from django.contrib import messages
from django.db import connections
from django.http import JsonResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from parties import access, play, prizes, roster
from parties.services import PartyError
from scoring import InvalidRoll


def _wants_json(request):
    return "application/json" in request.headers.get("Accept", "")


def _answer(request, back, payload, status=200):
    if _wants_json(request):
        return JsonResponse(payload, status=status)
    if status >= 400 or payload.get("status") == "ask_call":
        messages.error(request, payload.get("message") or "Did they call it? Enter it again.")
    return redirect(back)


def _int(value, what):
    try:
        return int(value)
    except (TypeError, ValueError):
        raise PartyError(f"The {what} is missing or not a number.") from None


def _roll_from(data):
    """The roll as the phone sent it: a quick button's outcome (and face), or the dice."""
    outcome = data.get("outcome", "")
    if outcome:
        face = data.get("face")
        return {"outcome": outcome, "face": _int(face, "face") if face else None}
    faces = [f for f in data.get("dice", "").replace(" ", "").split(",") if f]
    if not faces:
        raise PartyError("Tap the dice, or one of the quick buttons.")
    return {"dice": tuple(_int(f, "die") for f in faces)}


CALLED = {"yes": True, "no": False, "": None}


def tap_fields(data):
    """A tap's fields (request.POST, or the lean tap path's form) as play.roll_record takes
    them, less the party, table and who; PartyError names what is missing or wrong."""
    try:
        tap_id = uuid.UUID(data.get("tap_id", ""))
    except ValueError:
        raise PartyError("The tap has no id.") from None
    return {
        "tap_id": tap_id,
        "called": CALLED.get(data.get("called", "")),
        **_roll_from(data),
        "seen": _int(data.get("seen"), "table version"),
        "round_id": _int(data["round"], "round") if data.get("round") else None,
    }


def _in_worker(view):
    """Run a sync view in the shared worker threads and return its database connection to the
    pool before the thread moves on. Under ASGI, Django otherwise starts a thread (and checks
    out a connection) per request, which is most of a tap's cost; the tap is the hot path."""

    async def run(request, *args, **kwargs):
        def call():
            try:
                return view(request, *args, **kwargs)
            finally:
                connections.close_all()

        return await sync_to_async(call, thread_sensitive=False)()

    return wraps(view)(run)


@require_POST
@_in_worker
def roll_create(request, party_id, number):
    party, grant = access.require(request, party_id, lambda a: a.can_score(number))
    back = reverse("parties:table", args=[party.id, number])
    try:
        result = play.roll_record(
            party=party, table_number=number, by=grant.role_label, **tap_fields(request.POST)
        )
    except play.StaleTap as stale:
        payload = {"status": "stale", "message": str(stale), "version": stale.version}
        return _answer(request, back, payload, 409)
    except (PartyError, InvalidRoll) as error:
        return _answer(request, back, {"status": "refused", "message": str(error)}, 400)
    payload = {"status": result.status, "version": result.table_version, "seq": result.seq}
    if result.ask:
        payload["ask"] = result.ask
    return _answer(request, back, payload)


@require_POST
def roll_undo(request, party_id, number):
    party, grant = access.require(request, party_id, lambda a: a.can_score(number))
    back = reverse("parties:table", args=[party.id, number])
    try:
        version = play.roll_undo(
            party=party,
            table_number=number,
            seen=_int(request.POST.get("seen"), "table version"),
            by=grant.role_label,
        )
    except play.StaleTap as stale:
        payload = {"status": "stale", "message": str(stale), "version": stale.version}
        return _answer(request, back, payload, 409)
    except PartyError as error:
        return _answer(request, back, {"status": "refused", "message": str(error)}, 400)
    return _answer(request, back, {"status": "undone", "version": version})


def _page_for(request, party, grant):
    if grant.host:
        return reverse("parties:host", args=[party.id])
    if grant.table_numbers:
        return reverse("parties:table", args=[party.id, min(grant.table_numbers)])
    return reverse("parties:party", args=[party.id])


def _party_action(request, party, grant, action, done_message):
    back = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(back, allowed_hosts=None) or not back.startswith("/"):
        back = _page_for(request, party, grant)  # only a path on this site, never "//elsewhere"
    try:
        action()
    except PartyError as error:
        return _answer(request, back, {"status": "refused", "message": str(error)}, 400)
    if not _wants_json(request):
        messages.success(request, done_message)
    return _answer(request, back, {"status": "ok"})


@require_POST
def round_start(request, party_id):
    # The host, or the head table's scorekeeper, rings the bell to start.
    party, grant = access.require(request, party_id, lambda a: a.can_score(1))
    return _party_action(
        request,
        party,
        grant,
        lambda: play.round_start(party=party, by=grant.role_label),
        "The round has started.",
    )


@require_POST
def bell_ring(request, party_id):
    party, grant = access.require_host(request, party_id)
    return _party_action(
        request, party, grant, lambda: play.bell_ring(party=party, by="host"), "The bell rang."
    )


@require_POST
def clock_out(request, party_id):
    # Any phone whose countdown reaches 0 reports it; the server checks the clock itself.
    party, grant = access.require(request, party_id, lambda a: a.host or bool(a.table_numbers))
    return _party_action(
        request, party, grant, lambda: play.bell_ring(party=party, by="clock"), "Time is up."
    )


@require_POST
def party_pause(request, party_id):
    party, grant = access.require_host(request, party_id)
    return _party_action(
        request, party, grant, lambda: play.party_pause(party=party), "The game is paused."
    )


@require_POST
def party_resume(request, party_id):
    party, grant = access.require_host(request, party_id)
    return _party_action(
        request, party, grant, lambda: play.party_resume(party=party), "The game goes on."
    )


@require_POST
def party_end(request, party_id):
    party, grant = access.require_host(request, party_id)
    return _party_action(
        request, party, grant, lambda: play.party_end(party=party), "The party is over."
    )


@require_POST
def roll_void(request, party_id, roll_id):
    party, grant = access.require_host(request, party_id)
    return _party_action(
        request,
        party,
        grant,
        lambda: play.roll_void(party=party, roll_id=roll_id, by="host"),
        "The roll was voided; the scores have been recomputed.",
    )


@require_POST
def player_leave(request, party_id):
    party, grant = access.require_host(request, party_id)

    def leave():
        roster.player_leave(party=party, player_id=_int(request.POST.get("player"), "player"))

    return _party_action(request, party, grant, leave, "A ghost takes their seat from now on.")


@require_POST
def player_arrive(request, party_id):
    party, grant = access.require_host(request, party_id)

    def arrive():
        roster.player_arrive(party=party, name=request.POST.get("name", ""))

    return _party_action(
        request, party, grant, arrive, "Welcome! They take a ghost's seat; their link is below."
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
                    totals[_int(key.removeprefix("total-"), "player")] = _int(value, "total")
        prizes.prize_rolloff_record(party=party, category=category, totals=totals)

    request.POST = request.POST.copy()
    request.POST["next"] = reverse("parties:results", args=[party.id]) + "#prizes"
    return _party_action(request, party, grant, record, "Roll-off recorded.")
