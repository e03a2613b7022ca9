"""The scorekeeper's phone in Chromium: what it shows of each tap, kept until read.

A refused tap stays with the server's reason (3 s later, after a refresh) until it is sent
again or dismissed, and the taps behind it wait with it; a tap begun on a table another phone
changed a moment before is refused as stale and asked about, never counted twice; "did they
call it?" is asked once; a tap made while the game shows paused waits for the resume, and
one made before is sent as made, whether the pause or the connection comes back first; the status and Undo are on screen at 360x740 and 320x568; the mini
Bunco's face picker opens in view; a roll not yet sent shows in the score; the page asks once
to turn sound on; the round's start is announced; and the live region is fetched one at a time.
"""

import json
import re
import time

import pytest
from playwright.sync_api import expect

from bench.waiting import wait_until
from tests.e2e.phone import (
    SIZES,
    both_sizes,
    in_viewport,
    new_party,
    phone_context,
    points,
    scorekeeper,
    screen,
    start_round,
    table,
    tap,
    version,
)
from tests.e2e.test_party_setup import chromium  # noqa: F401  (every page: no CSP refusal)

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PAUSED = "The host has paused the game; wait for the host to resume it."
STALE_QUESTION = "Another phone entered a roll here just now: is yours a different roll?"


def outbox(page):
    return page.locator(".outbox")


def refetches(page):
    return int(page.locator("body").get_attribute("data-refetches") or 0)


def test_a_refused_tap_stays_with_its_reason_and_the_taps_behind_it_wait(
    chromium, server, shots  # noqa: F811
):
    host, url = new_party(chromium, server)
    start_round(host)
    context = phone_context(chromium)
    page = scorekeeper(chromium, url, context=context)
    expect(table(page)).to_have_attribute("data-phase", "playing")

    # Offline, the scorekeeper taps two rolls; meanwhile the host pauses the game.
    context.set_offline(True)
    tap(page, "1 point")
    tap(page, "2 points")
    expect(outbox(page).locator(".tap")).to_have_count(2)
    host.get_by_role("button", name="Pause", exact=True).click()
    expect(host.get_by_role("button", name="Resume", exact=True)).to_be_visible()
    context.set_offline(False)

    refused = outbox(page).locator(".tap", has_text=PAUSED)
    expect(refused).to_be_visible()
    page.wait_for_timeout(3000)
    expect(refused).to_be_visible()
    expect(refused).to_have_text(f"1 point: not saved. {PAUSED}Send againDismiss")
    held_back = outbox(page).locator(".tap.held_back")
    expect(held_back).to_contain_text("2 points: held back")
    both_sizes(shots, page, "refused-and-held-back")
    expect(held_back).to_have_count(1)
    assert points(page) == [0, 0]

    # The host resumes: every phone refetches its page, and the refusal is still there.
    before = refetches(page)
    host.get_by_role("button", name="Resume", exact=True).click()
    expect(page.locator(".banner.pause")).to_have_count(0)
    expect(table(page).locator(".phase")).to_have_text("Rolling")
    assert refetches(page) > before
    expect(refused).to_contain_text(PAUSED)
    expect(held_back).to_have_count(1)
    page.reload()
    expect(outbox(page).locator(".tap.refused")).to_contain_text(PAUSED)

    # Sent again, each counts once; dismissing is the scorekeeper's choice.
    was = version(page)
    outbox(page).locator(".tap.refused").get_by_role("button", name="Send again").click()
    expect(table(page)).to_have_attribute("data-version", str(was + 1))
    outbox(page).locator(".tap.held_back").get_by_role("button", name="Send").click()
    expect(table(page)).to_have_attribute("data-version", str(was + 2))
    expect(table(page).locator(".side-points")).to_have_text(["3", "0"])
    expect(outbox(page).locator(".tap")).to_have_text(["2 points: saved"])
    both_sizes(shots, page, "sent-again")
    context.close()


def test_status_and_undo_are_on_screen_at_both_phone_sizes_mid_round(
    chromium, server, shots  # noqa: F811
):
    host, url = new_party(chromium, server)
    start_round(host)
    for size in SIZES:
        page = scorekeeper(chromium, url, size=size)
        before = version(page)
        tap(page, "1 point")
        expect(table(page)).to_have_attribute("data-version", str(before + 1))
        status = outbox(page).locator(".tap").last
        expect(status).to_have_text("1 point: saved")
        page.evaluate("window.scrollTo(0, 0)")  # as the page opens: no scrolling
        in_viewport(page, status, f"the tap status at {size}")
        undo = page.get_by_role("button", name="Undo last roll")
        expect(undo).to_be_enabled()
        in_viewport(page, undo, f"Undo at {size}")
        screen(shots, page, f"mid-round-{size}")
        page.context.close()


def test_the_dice_and_the_quick_buttons_are_on_screen_without_scrolling(
    chromium, server, shots  # noqa: F811
):
    # The scorekeeper taps all night: the dice faces and the first row of quick buttons must
    # be above the tap bar on the smallest phone, once the one-time sound question is answered.
    host, url = new_party(chromium, server)
    start_round(host)
    for size in SIZES:
        page = scorekeeper(chromium, url, size=size)
        page.get_by_role("button", name="No sound").click()
        tap(page, "1 point")
        page.evaluate("window.scrollTo(0, 0)")
        dock_top = page.locator(".tap-dock").bounding_box()["y"]
        for what, locator in (
            ("the dice faces", page.locator("#entry .faces")),
            ("the first quick buttons", page.get_by_role("button", name="Nothing", exact=True)),
        ):
            in_viewport(page, locator, f"{what} at {size}")
            box = locator.bounding_box()
            assert box["y"] + box["height"] <= dock_top, f"{what} at {size} are under the tap bar"
        screen(shots, page, f"entry-on-screen-{size}")
        page.context.close()


def test_two_phones_at_one_table_count_one_physical_roll_once(chromium, server, shots):  # noqa: F811
    host, url = new_party(chromium, server)
    start_round(host)
    a = scorekeeper(chromium, url)
    b = scorekeeper(chromium, url)

    for label, answer in (("1 point", "Discard"), ("2 points", "Enter it too")):
        was = version(b)
        # B's scorekeeper taps the same button within a frame of A's update being drawn (a
        # person mid-tap, who could not have read it). Tapped from the page itself, so the gap
        # does not depend on how fast the test driver is on a loaded machine.
        b.evaluate(
            """([was, label]) => { window.updateSeenAt = null; window.tappedAt = null;
               const check = () => {
                 if (document.querySelector('#table-1').dataset.version === String(was)) {
                   return requestAnimationFrame(check);
                 }
                 window.updateSeenAt = performance.now();
                 const button = [...document.querySelectorAll('#entry .quick button')]
                   .find((x) => x.textContent.trim() === label);
                 button.dispatchEvent(new PointerEvent('pointerdown', { bubbles: true }));
                 window.tappedAt = performance.now();
                 button.click();
               }; check(); }""",
            [was, label],
        )
        tap(a, label)
        b.wait_for_function("() => window.tappedAt !== null")
        gap = b.evaluate("window.tappedAt - window.updateSeenAt")
        assert gap < 600, f"B tapped {gap:.0f} ms after the update: not the case under test"
        stale = outbox(b).locator(".tap.stale")
        expect(stale).to_have_text(f"{label}: {STALE_QUESTION}Enter it tooDiscard")
        screen(shots, b, f"b-asks-{answer.replace(' ', '-').lower()}")
        assert version(a) == was + 1
        stale.get_by_role("button", name=answer).click()
        expect(stale).to_have_count(0)
        expected = was + (1 if answer == "Discard" else 2)
        expect(table(b)).to_have_attribute("data-version", str(expected))
        expect(table(a)).to_have_attribute("data-version", str(expected))
    # 1 point once (B discarded its copy); 2 points twice (B said it was a different roll).
    expect(table(a).locator(".side-points")).to_have_text(["5", "0"])
    expect(table(b).locator(".side-points")).to_have_text(["5", "0"])
    both_sizes(shots, b, "two-phones-after")
    a.context.close()
    b.context.close()


def test_did_they_call_it_is_asked_once_even_with_a_resend_in_flight(
    chromium, server, shots  # noqa: F811
):
    host, url = new_party(chromium, server)
    start_round(host)
    page = scorekeeper(chromium, url)
    posts, held = [], []

    def hold_after_the_first(route):
        posts.append(route.request.post_data or "")
        if len(posts) == 1:
            route.continue_()
        else:
            held.append(route)  # answered later, from the test

    page.route("**/table/1/rolls/", hold_after_the_first)
    tap(page, "BUNCO!")
    dialog = page.locator("dialog.call-dialog")
    expect(dialog).to_be_visible()
    screen(shots, page, "asked")
    # The phone comes back online (or the 5 s timer fires) while the question is open.
    page.evaluate("window.dispatchEvent(new Event('online'))")
    page.wait_for_timeout(300)
    dialog.get_by_role("button", name="Yes, they called it").click()
    expect(dialog).to_be_hidden()
    deadline = time.monotonic() + 5
    while not held and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    for route in held:
        route.continue_()
    expect(table(page).locator(".side-points")).to_have_text(["21", "0"])
    page.wait_for_timeout(1500)  # any answer still to come has come
    expect(dialog).to_be_hidden()
    sent = [dict(p.split("=", 1) for p in body.split("&")) for body in posts]
    assert [s.get("called") for s in sent] == [None, "yes"], sent
    expect(outbox(page).locator(".tap")).to_have_text(["BUNCO!: saved"])
    both_sizes(shots, page, "answered-once")
    page.context.close()


def test_the_mini_bunco_face_picker_opens_in_view(chromium, server, shots):  # noqa: F811
    host, url = new_party(chromium, server, preset="boxed4")  # four dice: the face matters
    start_round(host)
    for size in SIZES:
        page = scorekeeper(chromium, url, size=size)
        was = version(page)
        tap(page, "Mini Bunco")
        picker = page.locator(".mini-faces")
        expect(picker).to_be_visible()
        page.evaluate("window.scrollTo(0, 0)")
        for what, part in (("the question", picker.locator("p")),
                           ("face 6", picker.get_by_role("button", name="6", exact=True)),
                           ("Cancel", picker.get_by_role("button", name="Cancel"))):
            in_viewport(page, part, f"{what} of the face picker at {size}")
        screen(shots, page, f"face-picker-{size}")
        if size == "360x740":
            picker.get_by_role("button", name="4", exact=True).click()
            expect(picker).to_be_hidden()
            expect(table(page)).to_have_attribute("data-version", str(was + 1))
            # Four of a kind above the target (1) is 7 points (docs/rules.md, boxed set).
            expect(table(page).locator(".side-points")).to_have_text(["7", "0"])
        else:
            picker.get_by_role("button", name="Cancel").click()
            expect(picker).to_be_hidden()
            page.wait_for_timeout(300)
            assert version(page) == was
        page.context.close()


def test_a_roll_not_yet_sent_shows_in_the_score_as_not_saved(chromium, server, shots):  # noqa: F811
    host, url = new_party(chromium, server)
    start_round(host)
    context = phone_context(chromium)
    page = scorekeeper(chromium, url, context=context)
    context.set_offline(True)
    tap(page, "2 points")
    expect(outbox(page).locator(".tap.offline")).to_have_count(1)
    pending = table(page).locator(".side-0 .side-pending")
    expect(pending).to_have_text("+2 not yet saved")
    expect(table(page).locator(".side-1 .side-pending")).to_have_count(0)
    expect(table(page).locator(".side-points")).to_have_text(["0", "0"])
    for size in SIZES.values():
        page.set_viewport_size(size)
        page.evaluate("window.scrollTo(0, 0)")
        in_viewport(page, pending, f"the pending roll at {size}")
        dock = page.locator(".tap-dock").bounding_box()
        note = pending.bounding_box()
        assert note["y"] + note["height"] <= dock["y"], "the bar at the bottom hides the pending roll"
    page.set_viewport_size(SIZES["360x740"])
    both_sizes(shots, page, "offline-pending")
    context.set_offline(False)
    expect(table(page).locator(".side-points")).to_have_text(["2", "0"])
    expect(table(page).locator(".side-pending")).to_have_count(0)
    expect(outbox(page).locator(".tap")).to_have_text(["2 points: saved"])
    context.close()


def test_sound_is_asked_for_once_and_the_round_start_is_announced(
    chromium, server, shots  # noqa: F811
):
    host, url = new_party(chromium, server)
    page = scorekeeper(chromium, url)
    bar = page.locator("#sound-bar")
    expect(bar).to_be_visible()
    expect(bar.locator(".sound-text")).to_have_text("Hear the bell on this phone?")
    expect(page.locator("body")).to_have_attribute("data-sound", "ask")
    # The host's page (a laptop, often) asks of its screen, not of a phone.
    expect(host.locator("#sound-bar .sound-text")).to_have_text("Hear the bell on this screen?")
    both_sizes(shots, page, "sound-asked")
    bar.get_by_role("button", name="Sound on").click()
    expect(page.locator("body")).to_have_attribute("data-sound", "on")
    expect(bar).to_be_hidden()
    assert page.evaluate("localStorage.getItem('bunco-sound')") == "on"

    # Reloaded, the phone is not asked again; it is on, or says it is off until a tap.
    page.reload()
    expect(page.locator("body")).to_have_attribute("data-socket", "open")
    state = page.locator("body").get_attribute("data-sound")
    assert state in ("on", "locked"), state
    if state == "locked":
        expect(bar.locator(".sound-text")).to_have_text("Sound is off until you tap the screen.")
        page.locator(".round-head").click()
        expect(page.locator("body")).to_have_attribute("data-sound", "on")
    expect(bar.get_by_role("button", name="No sound")).to_be_hidden()

    # Another phone says no: it is told sound is off, with the way to turn it on.
    other = scorekeeper(chromium, url)
    other.locator("#sound-bar").get_by_role("button", name="No sound").click()
    expect(other.locator("#sound-bar .sound-text")).to_have_text("Sound is off.")
    expect(other.locator("#sound-bar").get_by_role("button", name="Sound on")).to_be_visible()
    expect(other.locator("body")).to_have_attribute("data-sound", "off")
    shots(other, "sound-off")

    # The host starts the round: both phones show the banner, the one with sound chimes.
    start_round(host)
    for phone in (page, other):
        expect(phone.locator("#bell-banner")).to_be_visible()
        expect(phone.locator("#bell-banner")).to_have_text("The round has started: roll!")
        expect(phone.locator("body")).to_have_attribute("data-announcements", "1")
    expect(page.locator("body")).to_have_attribute("data-chimes", "1")
    assert other.locator("body").get_attribute("data-chimes") is None
    both_sizes(shots, page, "round-started")
    # It gives the score back within a few seconds.
    expect(page.locator("#bell-banner")).to_be_hidden(timeout=5000)
    expect(table(page).locator(".side-points")).to_have_text(["0", "0"])
    page.context.close()
    other.context.close()


def test_a_held_answer_is_shown_until_dismissed_and_never_resent(
    chromium, server, shots  # noqa: F811
):
    """The server's "held" answer (the round had closed; the roll went to the host), as the
    tap contract words it, given here by the test for the page's side of it."""
    host, url = new_party(chromium, server)
    start_round(host)
    page = scorekeeper(chromium, url)
    message = "The round had closed: your roll went to the host as a pending correction."
    posts = []

    def held(route):
        posts.append(route.request.post_data)
        route.fulfill(status=200, content_type="application/json",
                      body=json.dumps({"status": "held", "message": message}))

    page.route("**/table/1/rolls/", held)
    tap(page, "2 points")
    item = outbox(page).locator(".tap.held")
    expect(item).to_have_text(f"2 points: {message}OK")
    page.evaluate("window.dispatchEvent(new Event('online'))")
    page.evaluate("window.buncoResync()")
    page.wait_for_timeout(1000)
    page.reload()
    expect(outbox(page).locator(".tap.held")).to_contain_text(message)
    page.wait_for_timeout(1000)
    assert len(posts) == 1, posts
    both_sizes(shots, page, "held")
    outbox(page).locator(".tap.held").get_by_role("button", name="OK").click()
    expect(outbox(page).locator(".tap")).to_have_count(0)
    page.context.close()


def test_the_live_region_is_fetched_one_at_a_time_the_last_asked_landing_last(
    chromium, server  # noqa: F811
):
    host, url = new_party(chromium, server)
    start_round(host)
    page = scorekeeper(chromium, url)
    fetches, held = [], []

    def refetch(route):
        if route.request.headers.get("hx-request") != "true":
            return route.continue_()
        fetches.append(route.request.url)
        if len(fetches) == 1:
            held.append((route, route.fetch()))  # the first is slow: its page, as it was then
        else:
            route.continue_()

    page.route("**/table/1/", refetch)
    page.evaluate("() => { window.buncoResync(); window.buncoResync(); window.buncoResync(); }")
    page.wait_for_timeout(500)
    assert len(fetches) == 1, "a refetch started while another was under way"
    # Meanwhile another phone's roll changes the table; the slow answer is from before it.
    other = scorekeeper(chromium, url)
    tap(other, "1 point")
    expect(table(other)).to_have_attribute("data-version", "1")
    route, answer = held[0]
    route.fulfill(response=answer)
    page.wait_for_timeout(1000)
    assert len(fetches) == 2, fetches  # the three requests made during the first: one more
    expect(table(page)).to_have_attribute("data-version", "1")
    expect(table(page).locator(".side-points")).to_have_text(["1", "0"])
    page.context.close()
    other.context.close()


def test_a_tap_made_while_the_game_is_paused_waits_on_the_phone_until_the_host_resumes(
    chromium, server, shots  # noqa: F811
):
    host, url = new_party(chromium, server)
    start_round(host)
    page = scorekeeper(chromium, url)
    was = version(page)
    host.get_by_role("button", name="Pause", exact=True).click()
    expect(page.locator(".banner.pause")).to_have_text(
        "The host has paused the game. Taps made now wait on this phone and go when the host "
        "resumes."
    )
    expect(page.locator("#live")).to_have_attribute("data-paused", "1")
    expect(table(page).locator(".phase")).to_have_text("Paused")  # not "Rolling"

    tap(page, "1 point")  # not sent: the server would refuse it
    waiting = outbox(page).locator(".tap")
    expect(waiting).to_have_text(["1 point: paused, sends on resume"])
    page.wait_for_timeout(1500)
    assert version(page) == was and points(page) == [0, 0]
    screen(shots, page, "tap-waiting-while-paused")

    host.get_by_role("button", name="Resume", exact=True).click()
    expect(page.locator(".banner.pause")).to_have_count(0)
    expect(table(page).locator(".phase")).to_have_text("Rolling")
    expect(table(page)).to_have_attribute("data-version", str(was + 1))
    expect(table(page).locator(".side-points")).to_have_text(["1", "0"])
    expect(waiting).to_have_text(["1 point: saved"])


def test_a_tap_made_before_the_pause_is_sent_as_made_even_when_the_pause_is_heard_first(
    chromium, server  # noqa: F811
):
    """The order a phone back from a drop-out learns things in does not change what becomes
    of a tap: here its socket hears of the pause while its taps cannot get through, and the
    tap, made when no pause showed, is still sent and refused, as when the send goes first."""
    host, url = new_party(chromium, server)
    start_round(host)
    page = scorekeeper(chromium, url)
    page.route("**/rolls/", lambda route: route.abort("internetdisconnected"))
    tap(page, "1 point")
    expect(outbox(page).locator(".tap")).to_have_text(["1 point: offline, sends when back"])
    host.get_by_role("button", name="Pause", exact=True).click()
    expect(page.locator("#live")).to_have_attribute("data-paused", "1")  # heard first
    page.evaluate("""() => { window.resyncs = 0;
        document.addEventListener("bunco:resynced", () => { window.resyncs += 1; }); }""")
    page.unroute("**/rolls/")
    refused = outbox(page).locator(".tap.refused")
    expect(refused).to_contain_text(PAUSED, timeout=20_000)
    wait_until(lambda: page.evaluate("window.resyncs") > 0, 10,
               "the refusal's refetch")  # it is in: tap on
    # One made now, the pause showing, waits behind it for the resume.
    was = version(page)
    tap(page, "2 points")
    expect(outbox(page).locator(".tap").last).to_have_text("2 points: paused, sends on resume")
    page.wait_for_timeout(1500)
    assert version(page) == was
    host.get_by_role("button", name="Resume", exact=True).click()
    expect(page.locator(".banner.pause")).to_have_count(0)
    expect(table(page)).to_have_attribute("data-version", str(was + 1))
    expect(table(page).locator(".side-points")).to_have_text(["2", "0"])
    # The refused one stays, the scorekeeper's to decide; the saved one has left the list.
    expect(outbox(page).locator(".tap")).to_have_count(1)
    expect(refused).to_contain_text(PAUSED)


def test_a_screen_reader_hears_the_score_the_turn_and_the_phase_once_each_change(
    chromium, server, shots  # noqa: F811
):
    # The table's piece is replaced whole on every update, which a screen reader does not
    # announce: #table-said (polite) says the table's score, phase and turn when they change.
    host, url = new_party(chromium, server)
    start_round(host)
    page = scorekeeper(chromium, url)
    said = page.locator("#table-said")
    expect(said).to_have_attribute("aria-live", "polite")
    page.evaluate("""() => {
        window.saidChanges = [];
        new MutationObserver(() => window.saidChanges.push(
            document.getElementById("table-said").textContent)
        ).observe(document.getElementById("table-said"), {childList: true, characterData: true,
                                                           subtree: true});
    }""")
    scorer = table(page).locator(".roller-name").inner_text()
    tap(page, "2 points")
    expect(said).to_have_text(re.compile(
        rf"^Table 1: .+ 2, .+ 0\. Rolling\. {re.escape(scorer)}'s turn · 2 this turn$"))
    tap(page, "Nothing")
    expect(table(page).locator(".roller-name")).not_to_have_text(scorer)
    after = table(page).locator(".roller-name").inner_text()
    expect(said).to_have_text(re.compile(rf"Rolling\. {re.escape(after)}'s turn$"))
    host.get_by_role("button", name="Ring the bell", exact=True).click()
    expect(said).to_have_text(re.compile(r"\. Bell! Finish your turn\. "))
    page.wait_for_timeout(3500)  # the bell's check for a missed update: nothing said again
    assert len(page.evaluate("window.saidChanges")) == 3, page.evaluate("window.saidChanges")
    screen(shots, page, "table-said-after-bell")
