"""A scorekeeper's tap as both ways in take it: Django's view (`play.roll_create`) and the
lean ASGI entry (`tap_path`). Both parse the form with `tap_fields` and call `record`, which
runs `roll_record` (parties.services.roll) in a worker thread and gives the phone's answer, so
a tap is judged and answered one way, whichever door it came through.

A tap passes the gate (bunco_site.fast.gate) before it runs: one tap of a party at a time, a
slot, a worker thread, all within a short wait; a tap the gate turns away is answered busy (503,
Retry-After) with nothing read or written, and the phone's outbox sends it again when the
answer says.
"""

import asyncio
import functools
import json
import math
import uuid

from django.db import connections
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import pgettext_lazy

from bunco_site.fast import gate
from parties.live import announce
from parties.services.errors import PartyError, StaleTap
from parties.services.roll import roll_record
from parties.translation import rule_error_text
from scoring import InvalidRoll

CALLED = {"yes": True, "no": False, "": None}
BELL_SEEN = {"1": True, "0": False}
# The fields as_int reads (its `what`), in words for the refusal.
FIELD_WORDS = {
    "face": pgettext_lazy("a field of a tap", "face"),
    "die": pgettext_lazy("a field of a tap", "die"),
    "table version": pgettext_lazy("a field of a tap", "table version"),
    "round": pgettext_lazy("a field of a tap", "round"),
    "player": pgettext_lazy("a field of a tap", "player"),
    "total": pgettext_lazy("a field of a tap", "total"),
}


def as_int(value, what):
    """`value` as an int the database holds, or PartyError naming the field (`what`, a key of
    FIELD_WORDS)."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise PartyError(
            # Translators: "field" is a field's name, e.g. "face", "die", "table version".
            _("The %(field)s is missing or not a number.") % {"field": FIELD_WORDS.get(what, what)}
        ) from None
    if not -(2**63) <= number < 2**63:  # beyond what the database holds (SQLite raises)
        raise PartyError(
            _("The %(field)s is not a number this party uses.")
            % {"field": FIELD_WORDS.get(what, what)}
        )
    return number


def _roll_from(data):
    """The roll as the phone sent it: a quick button's outcome (and face), or the dice."""
    outcome = data.get("outcome", "")
    if outcome:
        face = data.get("face")
        return {"outcome": outcome, "face": as_int(face, "face") if face else None}
    faces = [f for f in data.get("dice", "").replace(" ", "").split(",") if f]
    if not faces:
        raise PartyError(_("Tap the dice, or one of the quick buttons."))
    return {"dice": tuple(as_int(f, "die") for f in faces)}


def tap_fields(data):
    """A tap's fields (request.POST, or the lean entry's form) as roll_record takes them,
    less the party, table and links; PartyError names what is missing or wrong. `more`, if
    sent, is a JSON list of the taps queued behind this one, each an object of the same
    fields as strings (what the phone's outbox sends when it has several; roll_record refuses
    more than it takes at once)."""
    fields = _one_tap_fields(data)
    if data.get("more"):
        fields["more"] = _more_fields(data["more"])
    return fields


def _more_fields(text):
    try:
        more = json.loads(text)
    except ValueError:
        raise PartyError(_("The taps sent behind this one could not be read.")) from None
    if not isinstance(more, list) or not all(isinstance(item, dict) for item in more):
        raise PartyError(_("The taps sent behind this one could not be read."))
    return tuple(_one_tap_fields({k: str(v) for k, v in item.items()}) for item in more)


def _one_tap_fields(data):
    try:
        tap_id = uuid.UUID(data.get("tap_id", ""))
    except ValueError:
        raise PartyError(_("The tap has no id.")) from None
    return {
        "tap_id": tap_id,
        "called": CALLED.get(data.get("called", "")),
        **_roll_from(data),
        "seen": as_int(data.get("seen"), "table version"),
        "round_id": as_int(data["round"], "round") if data.get("round") else None,
        # Whether the phone showed the bell when the roll's entry began ("1"/"0"); a form
        # without it (no script) is taken as having seen everything the server has.
        "bell_seen": BELL_SEEN.get(data.get("bell_seen", "")),
    }


def answer(record):
    """Run `record` (a call of roll_record) and give the phone's answer: (HTTP status,
    JSON payload), with `more`: the answers of the taps sent behind the first that were taken,
    in order, each with its own `http` status. PermissionDenied and Http404 go up to the
    caller."""
    try:
        result = record()
    except (PartyError, InvalidRoll) as refusal:
        return _taken(refusal)
    status, payload = _taken(result)
    if result.more:
        payload["more"] = []
        for one in result.more:
            http, answered = _taken(one)
            payload["more"].append({**answered, "http": http})
    return status, payload


def _taken(outcome):
    """(HTTP status, JSON payload) of one tap: its TapResult, or the refusal raised for it."""
    if isinstance(outcome, StaleTap):
        return 409, {"status": "stale", "message": str(outcome), "version": outcome.version}
    if isinstance(outcome, (PartyError, InvalidRoll)):
        return 400, {"status": "refused", "message": rule_error_text(outcome)}
    payload = {"status": outcome.status, "version": outcome.table_version, "seq": outcome.seq}
    if outcome.ask:
        payload["ask"] = outcome.ask
    if outcome.message:
        payload["message"] = outcome.message
    return 200, payload



def busy_answer(wait):
    """The phone's answer to a tap turned away, to be sent again in `wait` seconds: (HTTP
    status, JSON payload). `retry_after` is the wait to the hundredth; the Retry-After header
    says it in whole seconds (retry_after_header)."""
    return 503, {
        "status": "busy",
        "message": _("The server is busy: this roll is not saved yet and is sent again shortly."),
        "retry_after": round(wait, 2),
    }


def retry_after_header(wait):
    """The Retry-After header's value for a wait in seconds: whole seconds (RFC 9110), never
    sooner than asked."""
    return str(max(1, math.ceil(wait)))


async def record(party_id, table_number, fields, *, links=None, session_key=None,
                 language=None):
    """Record the tap (`fields` from tap_fields) for a session: the ids of its redeemed links
    as `links()` gives them (called in the worker thread: it may load the session), or the
    database session `session_key` (read with the tap's statements). The phone's answer as
    `answer` gives it, in the phone's `language` (by default the request's, as Django's
    LocaleMiddleware chose it), or busy (busy_answer: 503, nothing read or written) when the
    gate turned it away; the table's phones are sent its update before this returns."""
    loop = asyncio.get_running_loop()
    language = language or translation.get_language()
    call = functools.partial(
        _in_worker, loop, party_id, table_number, fields, links, session_key, language)
    try:
        async with gate.of_loop().tap(party_id, table_number) as run:
            # The loop's worker threads directly, without sync_to_async's copy of the caller's
            # context there and back: the tap needs nothing from it.
            result, outbox = await run(call)
            await announce.send_outbox(outbox)  # the table's phones first, then the answer
            return result
    except gate.Busy as busy:
        with translation.override(language):
            return busy_answer(busy.retry_after)


def _in_worker(loop, party_id, table_number, fields, links, session_key, language):
    """(the phone's answer, the tables' updates to send)."""
    try:
        with translation.override(language), announce.sending_through(loop) as outbox:
            result = answer(
                lambda: roll_record(
                    party_id=party_id,
                    table_number=table_number,
                    link_ids=links() if links else (),
                    session_key=session_key,
                    **fields,
                )
            )
        return result, outbox
    finally:
        connections.close_all()  # back to the pool before the worker thread moves on
