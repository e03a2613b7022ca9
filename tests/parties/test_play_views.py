"""The live-play endpoints: who may tap, start, ring and correct, and what a phone gets back."""

import json
import uuid

import pytest
from django.urls import reverse

from parties.models import Party, Roll, Round
from tests.parties.conftest import Browser

pytestmark = pytest.mark.django_db(transaction=True)  # taps run in worker threads
JSON = {"HTTP_ACCEPT": "application/json"}


def start(host, party):
    response = host.post(reverse("parties:start", args=[party.id]), **JSON)
    assert response.status_code == 200, response.content
    return response


def tap(browser, party, table, seen=0, **fields):
    data = {"tap_id": str(uuid.uuid4()), "seen": str(seen), **fields}
    response = browser.post(reverse("parties:roll", args=[party.id, table]), data, **JSON)
    return response, json.loads(response.content)


def test_the_scorekeeper_taps_a_quick_button_and_gets_the_new_version(host, party, keeper):
    start(host, party)
    response, data = tap(keeper, party, 2, outcome="two")
    assert response.status_code == 200
    assert data["status"] == "saved" and data["version"] == 1
    roll = Roll.objects.get()
    assert (roll.outcome, roll.dice) == ("two", ())  # as entered, not as invented dice


def test_a_scorekeeper_may_tap_only_at_their_own_table(host, party, keeper, player, stranger):
    start(host, party)
    for browser, table in [(keeper, 1), (keeper, 3), (player, 2), (stranger, 2)]:
        response = browser.post(
            reverse("parties:roll", args=[party.id, table]),
            {"tap_id": str(uuid.uuid4()), "seen": "0", "outcome": "one"},
            **JSON,
        )
        assert response.status_code == 403
    assert Roll.objects.count() == 0


def test_the_host_may_tap_at_any_table(host, party):
    start(host, party)
    response, data = tap(host, party, 3, outcome="one")
    assert data["status"] == "saved"
    assert Roll.objects.get().entered_by == "host"


def test_a_tap_before_the_start_is_refused_with_a_message(party, keeper):
    response, data = tap(keeper, party, 2, outcome="one")
    assert response.status_code == 400
    assert data == {
        "status": "refused",
        "message": "The round has not started yet: the host or the head table starts it.",
    }


def test_a_stale_tap_gets_409_and_the_current_version(host, party, keeper):
    start(host, party)
    tap(keeper, party, 2, outcome="one")
    response, data = tap(keeper, party, 2, seen=0, outcome="two")
    assert response.status_code == 409
    assert data["status"] == "stale" and data["version"] == 1
    assert Roll.objects.count() == 1


def test_typed_dice_and_the_called_question(host, party):
    start(host, party)
    _r, asked = tap(host, party, 1, dice="1,1,1")
    assert asked == {"status": "ask_call", "version": 0, "seq": asked["seq"], "ask": "bunco"}
    _r, saved = tap(host, party, 1, dice="1,1,1", called="yes")
    assert saved["status"] == "saved"
    _r, bad = tap(host, party, 1, seen=1, dice="1,x,1")
    assert bad["status"] == "refused" and "number" in bad["message"]


def test_only_the_host_or_the_head_table_starts_the_round(party, keeper, stranger):
    for browser in (keeper, stranger):
        assert browser.post(reverse("parties:start", args=[party.id])).status_code == 403
    assert Round.objects.get(party=party).status == "waiting"
    head = Browser()
    from parties.models import AccessLink
    from tests.parties.conftest import redeem

    redeem(head, AccessLink.objects.get(party=party, role="table", table__number=1))
    assert head.post(reverse("parties:start", args=[party.id]), **JSON).status_code == 200
    assert Round.objects.get(party=party).status == "playing"


@pytest.mark.parametrize("name", ["bell", "pause", "end"])
def test_host_controls_are_the_hosts_alone(host, party, keeper, name):
    start(host, party)
    before = Party.objects.values("status", "paused_at", "seq").get(pk=party.pk)
    assert keeper.post(reverse(f"parties:{name}", args=[party.id])).status_code == 403
    assert Party.objects.values("status", "paused_at", "seq").get(pk=party.pk) == before


def test_the_undo_button_voids_the_last_roll(host, party, keeper):
    start(host, party)
    tap(keeper, party, 2, outcome="two")
    response = keeper.post(reverse("parties:undo", args=[party.id, 2]), {"seen": "1"}, **JSON)
    assert json.loads(response.content) == {"status": "undone", "version": 2}
    assert Roll.objects.get().voided_by.made_by == "table 2"


def test_the_host_voids_a_roll_from_the_dashboard(host, party, keeper):
    start(host, party)
    tap(keeper, party, 2, outcome="two")
    roll = Roll.objects.get()
    response = host.post(reverse("parties:void", args=[party.id, roll.id]), follow=True)
    assert "The roll was voided" in response.content.decode()
    roll.refresh_from_db()
    assert roll.voided_by.made_by == "host"


def test_without_javascript_a_tap_redirects_back_to_the_table(host, party, keeper):
    start(host, party)
    response = keeper.post(
        reverse("parties:roll", args=[party.id, 2]),
        {"tap_id": str(uuid.uuid4()), "seen": "0", "dice": "1,2,3"},
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("parties:table", args=[party.id, 2])


def test_the_table_page_shows_the_live_table_and_htmx_gets_only_the_live_region(host, party, keeper):
    start(host, party)
    tap(keeper, party, 2, outcome="two")
    page = keeper.get(reverse("parties:table", args=[party.id, 2])).content.decode()
    assert 'id="table-2"' in page and 'data-version="1"' in page
    assert "2 points" in page and "BUNCO!" in page
    fragment = keeper.get(
        reverse("parties:table", args=[party.id, 2]), headers={"HX-Request": "true"}
    ).content.decode()
    assert fragment.lstrip().startswith('<div id="live"')
    assert "<html" not in fragment


def test_the_results_page_lists_everyone_and_the_prizes(host, party, player):
    page = player.get(reverse("parties:results", args=[party.id])).content.decode()
    assert "Most wins" in page and "Ann" in page


@pytest.mark.parametrize("target", ["//evil.example/", "https://evil.example/", "/parties/"])
def test_after_an_action_the_browser_goes_back_only_within_the_site(host, party, target):
    response = host.post(reverse("parties:start", args=[party.id]), {"next": target})
    assert response.status_code == 302
    expected = target if target == "/parties/" else reverse("parties:host", args=[party.id])
    assert response["Location"] == expected


@pytest.mark.parametrize(("route", "field"), [("leave", "player"), ("roll", "seen")])
def test_a_number_too_big_for_the_database_in_a_form_is_refused_cleanly(
    host, party, route, field
):
    start(host, party)
    args = [party.id, 2] if route == "roll" else [party.id]
    data = {"tap_id": str(uuid.uuid4()), "outcome": "two", "seen": "0", field: "9" * 20}
    response = host.post(reverse(f"parties:{route}", args=args), data, **JSON)
    assert response.status_code == 400, response.content
    assert json.loads(response.content)["status"] == "refused"
    assert Roll.objects.count() == 0
