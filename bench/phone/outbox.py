"""The scorekeeper's outbox (static/parties/table.js): taps wait in it, in order, until the
server has answered them, and a table's waiting rolls go together in one request.

A phone that could not send for a while, or met a busy server, has several taps queued: the
first sendable one goes with the rolls right behind it at the same address in its `more`
field (a JSON list of their fields), at most MAX_AT_ONCE and MAX_BODY bytes, and the server
takes them in order as if each had come alone, until one is not simply saved. One request
instead of ten lets a phone catch up, and a busy server drain its backlog.
"""

import json
from dataclasses import dataclass
from urllib.parse import quote

from bench.phone.fetch import URI_COMPONENT_SAFE, encode_form

ROLL, UNDO = "roll", "undo"
# A tap's states as the page names them. The first three go out by themselves; "asking" waits
# for "did they call it?", and what is queued behind it waits for that answer. The others wait
# for the scorekeeper: held for the host, stale or refused by the server, or held back behind
# one refused. A saved tap leaves the outbox.
PENDING, OFFLINE, BUSY, ASKING = "pending", "offline", "busy", "asking"
HELD, STALE, REFUSED, HELD_BACK, SAVED = "held", "stale", "refused", "held_back", "saved"
SENDABLE = frozenset({PENDING, OFFLINE, BUSY})
MAX_AT_ONCE = 10  # the server's limit (parties.services.roll, MAX_MORE + 1)
MAX_BODY = 3500  # bytes; the server reads at most 4,096 of a tap


@dataclass
class Queued:
    """A tap or undo in the outbox: its form fields (fetch.tap_form, fetch.undo_form), the
    address it goes to, and its state. `context` is the caller's own (the bench keeps when the
    tap was due and the phase it counts in)."""

    fields: dict
    url: str
    kind: str = ROLL
    state: str = PENDING
    context: object = None


def _first_sendable(items):
    for n, item in enumerate(items):
        if item.state == ASKING:
            return None  # what follows depends on its answer
        if item.state in SENDABLE:
            return n
    return None


def _more_size(fields):
    """What one more tap adds to the body: its JSON, as encodeURIComponent writes it, and a
    comma (the page's estimate; the body is measured against MAX_BODY as the page does)."""
    return len(quote(_json(fields), safe=URI_COMPONENT_SAFE)) + 3


def batch(items, paused=False):
    """What the next request carries (table.js sendable()): the first sendable item, and the
    sendable rolls right behind it at the same address, up to MAX_AT_ONCE and MAX_BODY. An
    undo goes alone. [] when nothing can go, and while the page shows the game paused
    (`paused`, page.LiveRegion's): its taps wait for the host to resume (table.js flush())."""
    if paused:
        return []
    items = list(items)
    start = _first_sendable(items)
    if start is None:
        return []
    first = items[start]
    carried = [first]
    if first.kind != ROLL:
        return carried
    size = len(encode_form(first.fields))
    for item in items[start + 1:]:
        if len(carried) >= MAX_AT_ONCE or item.kind != ROLL or item.url != first.url:
            break
        if item.state not in SENDABLE:
            break
        size += _more_size(item.fields)
        if size > MAX_BODY:
            break
        carried.append(item)
    return carried


def request_form(carried):
    """The form of one request carrying `carried` (from batch()): the first's fields, and the
    others' in `more`."""
    first, *behind = carried
    form = dict(first.fields)
    if behind:
        form["more"] = _json([item.fields for item in behind])
    return form


def request_body(carried):
    """request_form() as the request's body, in bytes."""
    return encode_form(request_form(carried)).encode()


def _json(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)  # JSON.stringify's
