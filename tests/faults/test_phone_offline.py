"""A scorekeeper's phone in Chromium loses its connection for a while and keeps tapping: the
taps wait in the localStorage outbox, go together when the phone is back, and each is
recorded once, even when the answer is lost after the server saved them. The page then shows the
database's numbers."""

import json
import uuid
from urllib.parse import parse_qs

import pytest
from playwright.sync_api import expect

from bench.waiting import wait_until
from tests.devices import PHONE
from tests.faults.phone import Phone

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def shown(page):
    return page.evaluate("""() => {
        const t = document.getElementById('table-2');
        if (!t) return null;
        return {round: Number(t.dataset.round), version: Number(t.dataset.version),
                points: [...t.querySelectorAll('.side-points')].map(e => Number(e.textContent))};
    }""")


def outbox(page, party_id):
    return json.loads(page.evaluate(f"() => localStorage.getItem('bunco-outbox-{party_id}-2')")
                      or "[]")


def test_a_phone_offline_for_a_while_sends_its_taps_once_when_back(
    chromium, daphnes, make_party, pg
):
    party = make_party()
    server = daphnes()
    host = Phone(server, party, party.host_token)
    host.start_round()
    round1 = pg.current_round(party.id)[0]

    context = chromium.new_context(**PHONE)
    try:
        page = context.new_page()
        page.goto(f"{server.url}/l/{party.table_tokens[2]}/")
        expect(page.locator("body")).to_have_attribute("data-socket", "open")
        one = page.locator('form.quick-form[data-outcome="one"] button')
        miss = page.locator('form.quick-form[data-outcome="miss"] button')

        one.click()  # online: saved at once
        wait_until(lambda: len(pg.rolls(round1, 2)) == 1, 15, "the first tap in the database")

        context.set_offline(True)
        for button in (one, one, miss):
            button.click()
        # Every waiting tap says the phone is offline (and the score shows them as not saved).
        expect(page.locator(".outbox li.tap.offline")).to_have_count(3, timeout=10_000)
        expect(page.locator(".outbox li.tap")).to_have_count(3)
        queued = [item["fields"]["tap_id"] for item in outbox(page, party.id)]
        assert len(queued) == 3
        # Meanwhile the host enters a roll at another table: life goes on without this phone.
        assert host.tap_once(3, uuid.uuid4(), 0, dice=(1, 2, 3)).json["status"] == "saved"
        assert len(pg.rolls(round1, 2)) == 1  # nothing arrived while offline

        # The first send after the phone is back reaches the server and is saved, but its
        # answer is lost on the way back: the outbox must retry it, and it must count once.
        lost = []

        def lose_first_answer(route):
            if lost:
                route.continue_()
                return
            route.fetch()  # the server saves the tap...
            lost.append(route.request.post_data)
            route.abort("connectionreset")  # ...and the phone never hears so

        page.route("**/table/2/rolls/", lose_first_answer)
        context.set_offline(False)

        wait_until(lambda: not outbox(page, party.id), 45, "the outbox to empty")
        assert lost, "no answer was lost: the retry path was not exercised"
        # The three went in one request (the outbox sends a table's waiting taps together),
        # and that request's answer was the one lost: the retry is the same three.
        sent = parse_qs(lost[0])
        behind = [tap["tap_id"] for tap in json.loads(sent["more"][0])]
        assert [*sent["tap_id"], *behind] == queued
        rows = pg.rolls(round1, 2)
        tap_ids = [r[2] for r in rows]
        assert tap_ids[1:] == queued  # each queued tap once, in the order tapped
        assert len(set(tap_ids)) == len(tap_ids) == 4
        assert all(r[8] is None for r in rows)

        truth = pg.truth(party.id, 2)
        assert truth["version"] == 4 and truth["points"] == [3, 0]
        wait_until(lambda: shown(page) == truth, 20, f"the page to show {truth}")
        expect(page.locator(".outbox li.tap.offline")).to_have_count(0)
        expect(page.locator(".outbox li.tap.refused, .outbox li.tap.stale")).to_have_count(0)
    finally:
        context.close()
