"""The phone's protocol, written once in Python from the real page (static/parties/table.js and
live.js, the source of truth): what a tap sends, how the outbox batches, waits and resends,
what an answer means, and what the socket's pushes make the page do. Values and functions
only, no I/O: the fault tests' phone (urllib, threads) and the bench's generator (asyncio,
bench.rawhttp, websockets) each wrap them in their own shell, so neither keeps a copy that
could drift. tests/e2e/test_page_protocol.py holds the fetch's headers and fields to what
Chromium sends from the page.

    fetch.py    the requests: paths, fetch/form/refetch headers, tap_form, undo_form
    outbox.py   a tap's states, Queued, batch() (what one request carries, with `more`),
                request_body()
    answers.py  parse_answer(), busy/lost, busy_wait(), offline_wait(), tap_answers(),
                outcome(), needs_resync()
    pushes.py   socket_path(), the heartbeat, reconnect_delay(), LivePage.receive(),
                table_news(), next_seat_delay()
    page.py     what the page shows: live_region(), table_shown(), where_shown(), body_attribute()
"""

from bench.phone.answers import (
    Answer,
    TapAnswer,
    busy_wait,
    needs_resync,
    offline_wait,
    outcome,
    parse_answer,
    tap_answers,
)
from bench.phone.fetch import (
    FETCH_HEADER_NAMES,
    FORM_CONTENT_TYPE,
    encode_form,
    fetch_headers,
    form_headers,
    refetch_headers,
    table_page,
    tap_form,
    tap_path,
    undo_form,
    undo_path,
)
from bench.phone.outbox import (
    ASKING,
    BUSY,
    HELD,
    HELD_BACK,
    MAX_AT_ONCE,
    MAX_BODY,
    OFFLINE,
    PENDING,
    REFUSED,
    ROLL,
    SAVED,
    SENDABLE,
    STALE,
    UNDO,
    Queued,
    batch,
    request_body,
    request_form,
)
from bench.phone.page import LiveRegion, body_attribute, live_region, table_shown, where_shown
from bench.phone.pushes import (
    APPLY,
    BELL,
    BELL_UPDATES_WAIT,
    IGNORE,
    NEXT_SEAT,
    PING,
    PING_EVERY,
    PONG,
    PONG_WITHIN,
    REFETCH_EVERY,
    RESYNC,
    TABLE,
    LivePage,
    Reaction,
    next_seat_delay,
    reconnect_delay,
    socket_path,
    table_news,
)

__all__ = [
    "APPLY", "ASKING", "BELL", "BUSY", "HELD_BACK", "OFFLINE", "PENDING", "ROLL", "SENDABLE",
    "UNDO", "BELL_UPDATES_WAIT", "IGNORE", "NEXT_SEAT", "REFETCH_EVERY",
    "RESYNC", "TABLE", "FETCH_HEADER_NAMES", "FORM_CONTENT_TYPE", "HELD", "MAX_AT_ONCE", "MAX_BODY",
    "PING", "PING_EVERY", "PONG", "PONG_WITHIN", "REFUSED", "SAVED", "STALE",
    "Answer", "LivePage", "LiveRegion", "Queued", "Reaction", "TapAnswer",
    "batch", "body_attribute", "busy_wait", "encode_form", "fetch_headers", "form_headers",
    "live_region", "needs_resync", "next_seat_delay", "offline_wait", "outcome",
    "parse_answer", "reconnect_delay", "refetch_headers", "request_body", "request_form",
    "socket_path", "table_news", "table_page", "table_shown", "tap_answers", "tap_form",
    "tap_path", "undo_form", "undo_path", "where_shown",
]
