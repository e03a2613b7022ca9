"""bench/phone, the protocol of the phone's page written once in Python, against what
static/parties/table.js and live.js do: the numbers are read from the scripts themselves (so a
change there fails here), and each rule is tried on the cases the scripts tell apart."""

import json
import re
from pathlib import Path
from urllib.parse import parse_qsl

import pytest

from bench import phone
from bench.phone import answers, outbox, pushes

ROOT = Path(__file__).resolve().parents[1]
TABLE_JS = (ROOT / "static/parties/table.js").read_text()
LIVE_JS = (ROOT / "static/parties/live.js").read_text()


def number_in(script, pattern):
    found = re.search(pattern, script)
    assert found, f"{pattern!r} is no longer in the script: read it again, and bench/phone"
    return float(found.group(1))


@pytest.mark.parametrize(("script", "pattern", "value"), [
    (TABLE_JS, r"const MAX_AT_ONCE = (\d+);", outbox.MAX_AT_ONCE),
    (TABLE_JS, r"const MAX_BODY = (\d+);", outbox.MAX_BODY),
    (TABLE_JS, r"const MAX_BUSY_WAIT = (\d+);", answers.MAX_BUSY_WAIT),
    (TABLE_JS, r"Math\.max\(asked, ([\d.]+)\)", answers.LEAST_BUSY_WAIT),
    (TABLE_JS, r"\* \(1 \+ ([\d.]+) \* Math\.random\(\)\)", answers.BUSY_JITTER),
    (TABLE_JS, r"let retryDelay = (\d+);", answers.RETRY_FIRST * 1000),
    (TABLE_JS, r"retryDelay \* 2, (\d+)\)", answers.RETRY_MOST * 1000),
    (TABLE_JS, r"setInterval\(flush, (\d+)\)", answers.FLUSH_EVERY * 1000),
    (LIVE_JS, r"setInterval\(ping, (\d+)\)", pushes.PING_EVERY * 1000),
    (LIVE_JS, r"pongTimer = setTimeout\(\(\) => socket\.close\(\), (\d+)\)",
     pushes.PONG_WITHIN * 1000),
    (LIVE_JS, r"Math\.min\((\d+), 500 \* 2 \*\* attempts\+\+\)", pushes.RECONNECT_MOST * 1000),
    (LIVE_JS, r"Math\.min\(\d+, (\d+) \* 2 \*\* attempts\+\+\)", pushes.RECONNECT_FIRST * 1000),
    (LIVE_JS, r"const BELL_UPDATES_WAIT = (\d+);", pushes.BELL_UPDATES_WAIT * 1000),
    (LIVE_JS, r"const REFETCH_EVERY = (\d+);", pushes.REFETCH_EVERY * 1000),
])
def test_the_numbers_are_the_scripts(script, pattern, value):
    assert number_in(script, pattern) == value


def test_at_most_as_many_taps_at_once_as_the_server_takes():
    source = (ROOT / "parties/services/roll.py").read_text()
    assert number_in(source, r"MAX_MORE = (\d+)") + 1 == outbox.MAX_AT_ONCE


# --- what a tap sends ---------------------------------------------------------------------

def test_a_tap_s_fields_are_strings_in_the_outbox_s_order():
    fields = phone.tap_form("id-1", 4, outcome="mini", face=3, round_id=7, bell_seen="0")
    assert list(fields.items()) == [("outcome", "mini"), ("face", "3"), ("seen", "4"),
                                    ("tap_id", "id-1"), ("round", "7"), ("bell_seen", "0")]
    dice = phone.tap_form("id-2", 0, dice=(1, 2, 3), round_id=7, bell_seen="1", called="yes")
    assert dice == {"dice": "1,2,3", "seen": "0", "tap_id": "id-2", "round": "7",
                    "bell_seen": "1", "called": "yes"}
    # The bench knows no round: the fields it leaves out are not sent at all.
    assert phone.tap_form("id-3", 2, outcome="miss") == {
        "outcome": "miss", "seen": "2", "tap_id": "id-3"}


def test_an_undo_sends_what_it_was_begun_on_and_its_round():
    assert phone.undo_form(5, 9) == {"seen": "5", "round": "9"}
    assert phone.undo_path(3, 2) == "/parties/3/table/2/undo/"
    assert phone.tap_path(3, 2) == "/parties/3/table/2/rolls/"


def test_a_fetch_wants_json_with_the_csrf_header_and_a_resync_is_htmx_s():
    headers = phone.fetch_headers("http://h", "tok", "/parties/1/table/2/")
    assert headers["X-CSRFToken"] == "tok" and headers["Accept"] == "application/json"
    assert headers["Referer"] == "http://h/parties/1/table/2/"
    assert sorted(k.lower() for k in headers) == sorted(phone.FETCH_HEADER_NAMES)
    assert phone.refetch_headers("http://h", "/p/") == {
        "HX-Request": "true", "HX-Current-URL": "http://h/p/", "HX-Target": "live"}


# --- the outbox ---------------------------------------------------------------------------

def roll(n, state=outbox.PENDING, url="/t/1/rolls/"):
    return outbox.Queued(phone.tap_form(f"tap-{n}", n, outcome="miss"), url, state=state)


def test_the_first_sendable_tap_goes_with_the_sendable_rolls_behind_it():
    items = [roll(0, outbox.STALE), roll(1, outbox.OFFLINE), roll(2, outbox.BUSY), roll(3),
             roll(4, outbox.HELD_BACK), roll(5)]
    assert outbox.batch(items) == items[1:4]  # a tap waiting for the scorekeeper ends it


def test_a_question_unanswered_holds_back_what_is_queued_behind_it():
    assert outbox.batch([roll(0, outbox.ASKING), roll(1)]) == []
    assert outbox.batch([roll(0, outbox.HELD)]) == []


def test_an_undo_goes_alone_and_a_roll_for_another_table_waits():
    undo = outbox.Queued(phone.undo_form(1, 1), "/t/1/undo/", kind=outbox.UNDO)
    assert outbox.batch([undo, roll(1)]) == [undo]
    assert outbox.batch([roll(0), undo, roll(2)]) == [roll(0)]
    assert outbox.batch([roll(0), roll(1, url="/t/2/rolls/")]) == [roll(0)]


def test_at_most_ten_at_once_and_under_the_body_limit():
    assert len(outbox.batch([roll(n) for n in range(25)])) == outbox.MAX_AT_ONCE
    big = [outbox.Queued({"tap_id": f"t{n}", "seen": "1", "pad": "x" * 900}, "/u/")
           for n in range(5)]
    carried = outbox.batch(big)
    assert len(carried) == 3  # a fourth would take the body past MAX_BODY
    assert len(outbox.request_body(carried)) <= outbox.MAX_BODY + 100  # the page's estimate


def test_the_taps_behind_the_first_go_in_more_as_json():
    carried = outbox.batch([roll(0), roll(1), roll(2)])
    sent = dict(parse_qsl(outbox.request_body(carried).decode()))
    assert {k: v for k, v in sent.items() if k != "more"} == carried[0].fields
    assert json.loads(sent["more"]) == [carried[1].fields, carried[2].fields]
    assert '", "' not in sent["more"]  # JSON.stringify's: no spaces
    assert "more" not in outbox.request_form(carried[:1])


# --- the answers --------------------------------------------------------------------------

def answer(status, data, headers=None):
    body = data if isinstance(data, str) else json.dumps(data)
    return phone.parse_answer(status, body.encode(), headers)


def test_a_busy_answer_is_waited_as_asked_within_bounds_and_stretched_at_random():
    busy = answer(503, {"status": "busy", "retry_after": 2.5}, {"Retry-After": "3"})
    assert busy.busy and not busy.lost
    assert phone.busy_wait(busy, 0) == 2.5
    assert phone.busy_wait(busy, 0.5) == pytest.approx(2.5 * 1.1)
    header_only = answer(503, {"status": "busy"}, {"Retry-After": "4"})
    assert phone.busy_wait(header_only, 0) == 4  # a server without retry_after
    assert phone.busy_wait(answer(503, {"status": "busy"}), 0) == 1
    assert phone.busy_wait(answer(503, {"status": "busy", "retry_after": 0.01}), 0) == 0.2
    assert phone.busy_wait(answer(503, {"status": "busy", "retry_after": 600}), 0) == 30
    assert not answer(503, {"status": "refused"}).busy


def test_a_5xx_without_json_is_lost_and_sent_again_as_offline():
    assert answer(502, "<html>Bad gateway</html>").lost
    assert not answer(500, {"status": "refused", "message": "x"}).lost
    assert not answer(403, "<html>CSRF</html>").lost
    assert [phone.offline_wait(n) for n in range(5)] == [1, 2, 4, 5, 5]  # the 5 s timer


def test_the_answers_behind_the_first_are_those_the_server_took_in_order():
    said = {"status": "saved", "version": 3, "seq": 9, "more": [
        {"status": "saved", "version": 4, "seq": 10, "http": 200},
        {"status": "stale", "version": 4, "message": "m", "http": 409}]}
    ones = phone.tap_answers(answer(200, said), 4)
    assert [(one.http, one.status, one.version) for one in ones] == [
        (200, "saved", 3), (200, "saved", 4), (409, "stale", 4)]
    assert [phone.outcome(one) for one in ones] == [outbox.SAVED, outbox.SAVED, outbox.STALE]
    assert len(phone.tap_answers(answer(200, said), 2)) == 2  # more than was sent is not read
    refused = phone.tap_answers(answer(400, {"status": "refused", "more": [{}]}), 3)
    assert len(refused) == 1 and phone.outcome(refused[0]) == outbox.REFUSED
    html = phone.tap_answers(answer(403, "<html>no</html>"), 1)[0]
    assert html.data == {"message": "The server answered 403."}


@pytest.mark.parametrize(("http", "data", "called_sent", "expected"), [
    (200, {"status": "duplicate", "version": 2}, False, outbox.SAVED),
    (200, {"status": "ask_call", "ask": "bunco"}, False, outbox.ASKING),
    (200, {"status": "ask_call", "ask": "bunco"}, True, outbox.REFUSED),
    (200, {"status": "held", "message": "kept"}, False, outbox.HELD),
    (409, {"status": "stale", "version": 7}, False, outbox.STALE),
    (400, {"status": "refused", "message": "no"}, False, outbox.REFUSED),
])
def test_what_an_answer_makes_of_a_tap(http, data, called_sent, expected):
    result = phone.outcome(phone.TapAnswer(http, data), called_sent)
    assert result == expected
    assert phone.needs_resync(result) == (expected in (outbox.STALE, outbox.REFUSED))


# --- the socket ---------------------------------------------------------------------------

def test_the_socket_s_address_names_its_tables_round_and_view():
    assert phone.socket_path(4, "1,2", 7, "table-2") == (
        "/ws/parties/4/?tables=1,2&round=7&view=table-2")
    assert phone.socket_path(4, "", "", "") == "/ws/parties/4/?tables=&round=&view="
    assert phone.socket_path(4, "3") == "/ws/parties/4/?tables=3"


def test_reconnects_back_off_with_jitter():
    assert phone.reconnect_delay(0, 0.5) == 0.5
    assert phone.reconnect_delay(2, 0) == 2 * 0.75
    assert phone.reconnect_delay(9, 0.999) == pytest.approx(10 * 1.2495)


def page_at(seq, round_version, view="table-2"):
    page = phone.LivePage(view)
    page.refetched(phone.LiveRegion(seq, 7, round_version, "2"))
    return page


def test_the_hello_resyncs_a_page_rendered_before_a_change_once():
    assert page_at(5, 3).receive({"type": "hello", "seq": 5, "version": 3}).action == "ignore"
    assert page_at(5, 3).receive({"type": "hello", "seq": 6, "version": 3}).action == "resync"
    page = page_at(5, 3)
    assert page.receive({"type": "hello", "seq": 5, "version": 4}).action == "resync"
    assert page.receive({"type": "hello", "seq": 9, "version": 9}).action == "ignore"


def test_a_party_message_counts_once_by_its_seq():
    page = page_at(5, 3)
    assert page.receive({"type": "round", "what": "started", "seq": 5}).action == "ignore"
    assert page.receive({"type": "round", "what": "started", "seq": 6}).action == "resync"
    assert page.receive({"type": "bell", "seq": 6}).action == "ignore"
    assert page.receive({"type": "bell", "seq": 7}).action == "bell"
    assert page.receive({"type": "resync"}).action == "resync"  # whatever the seq
    assert page.receive({"type": "table", "table": 2}).action == "table"
    page.refetched(phone.LiveRegion(12, 7, 3, "2"))
    assert page.receive({"type": "bell", "seq": 11}).action == "ignore"


def test_a_close_shows_the_page_its_own_next_seat():
    close = {"type": "round", "what": "closed", "seq": 6, "refetch_after": 2,
             "refetch_within": 4, "views": {"table-2": {"html": "<p>", "tables": "3"}}}
    page = page_at(5, 3)
    reaction = page.receive(close)
    assert reaction == ("next_seat", {"html": "<p>", "tables": "3"})
    assert page.receive(close).action == "ignore"  # seen
    assert page_at(5, 3, view="player-1").receive(close).action == "ignore"  # not its piece
    assert phone.next_seat_delay(close, 0.5) == 4


@pytest.mark.parametrize(("pushed", "expected"), [
    ({"round": 7, "version": 4, "bell": False}, "apply"),
    ({"round": 7, "version": 3, "bell": False}, "ignore"),
    ({"round": 7, "version": 3, "bell": True}, "apply"),  # the bell, on the same version
    ({"round": 7, "version": 2, "bell": True}, "ignore"),
    ({"round": 8, "version": 1, "bell": False}, "resync"),
])
def test_a_pushed_table_is_shown_when_newer(pushed, expected):
    shown = {"round": 7, "version": 3, "bell": False}
    assert phone.table_news({"type": "table", "table": 2, **pushed}, shown) == expected
    assert phone.table_news({"type": "table", "table": 2, **pushed}, None) == "ignore"


# --- the page -----------------------------------------------------------------------------

PAGE = """<body data-party="4" data-view="table-2" data-tables="2">
<div id="live" data-seq="12" data-round="7" data-round-version="3" data-tables="2"
 data-round-status="playing">
<section id="table-2" class="live-table" data-table="2" data-version="3" data-round="7"
 data-phase="playing" data-bell="0"><div class="side-points" data-points="4">4</div>
<div class="side-points" data-points="1">1</div></section></div></body>"""


def test_what_the_page_shows():
    assert phone.live_region(PAGE) == (12, 7, 3, "2", False)
    assert phone.live_region('<div id="live" data-seq="1" data-round="" data-tables="">') == (
        1, None, 0, "", False)
    assert phone.live_region("<p>no live region</p>") is None
    assert phone.table_shown(PAGE, 2) == {
        "round": 7, "version": 3, "points": [4, 1], "phase": "playing", "bell": False}
    assert phone.table_shown(PAGE, 3) is None
    assert phone.body_attribute(PAGE, "data-view") == "table-2"
    assert phone.body_attribute(PAGE, "data-refetch-on-table") is None


def test_nothing_goes_while_the_page_shows_the_game_paused():
    queued = [phone.Queued({"tap_id": "a", "outcome": "one"}, "/parties/1/table/1/rolls/")]
    assert phone.batch(queued, paused=True) == []
    assert phone.batch(queued) == queued
    page = ('<div id="live" data-seq="4" data-round="2" data-round-version="3" '
            'data-tables="1" data-paused="1">')
    assert phone.live_region(page).paused
    assert not phone.live_region(page.replace('data-paused="1"', 'data-paused="0"')).paused
