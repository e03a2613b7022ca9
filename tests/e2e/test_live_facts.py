"""What the pages state is what is happening, in Chromium: individual play without partners and
ranked by personal points, the host's header, the round's target and the fuzzy die on a
player's phone, and a player taking over as a table's scorekeeper before the round."""

import re
from types import SimpleNamespace

import pytest
from playwright.sync_api import expect

from tests.devices import LAPTOP, PHONE
from tests.e2e.test_live_round import Table
from tests.e2e.test_party_setup import create_party, form_ready, link_url, settled_form

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

EIGHT = ["Ann", "Bea", "Cleo", "Dot", "Edie", "Fran", "Gail", "Hope"]
ELEVEN = EIGHT + ["Iris", "June", "Kay"]


def create_with(page, server, name, players, preset, **options):
    """Create a party from `preset` with some options changed in the form (select by label)."""
    page.goto(f"{server.url}/parties/new/?preset={preset}")
    form_ready(page)
    page.get_by_label("Party name").fill(name)
    page.get_by_label("Players", exact=True).fill("\n".join(players))
    if options:
        page.get_by_text("Every rule, as the preset sets it").click()
        for label, value in options.items():
            page.get_by_label(label, exact=True).select_option(value)
    settled_form(page, len(players))
    page.get_by_role("button", name="Create the party").click()
    expect(page).to_have_url(re.compile(r"/parties/\d+/host/$"))


def listening(page):
    expect(page.locator("body")).to_have_attribute("data-socket", "open")
    return page


def words(locator):
    return locator.inner_text()


def test_individual_play_shows_no_partners_and_ranks_by_personal_points(chromium, server, shots):
    host = chromium.new_context(**LAPTOP).new_page()
    # Individual play, two tables of four, the head table's bell at 11.
    create_with(
        host, server, "Solo Night", EIGHT, "tournament", **{"Round end": "head_table",
                                                             "Play to": "11"}
    )
    expect(host.locator(".table-card")).to_have_count(2)
    expect(host.locator(".seat")).to_have_count(8)
    seating = words(host.locator("#seating"))
    assert "partner" not in seating.lower() and "&" not in seating
    expect(host.locator("#fact-rules")).to_have_text("custom rules")  # round end and play to
    shots(host, "host-individual-laptop")

    player = chromium.new_context(**PHONE).new_page()
    player.goto(link_url(host, "Ann"))
    expect(player.locator("#where")).to_contain_text("Set 1, round 1: table")
    assert "partner" not in words(player.locator("main")).lower()
    shots(player, "player-individual-phone")

    phones = {}
    for n in (1, 2):
        page = chromium.new_context(**PHONE).new_page()
        page.goto(link_url(host, f"Table {n}"))
        listening(page)
        phones[n] = Table(page, n)
    listening(host)
    host.get_by_role("button", name="Start round 1").click()
    head, t2 = phones[1], phones[2]
    for table in (head, t2):
        expect(table.live.locator(".side-names")).to_have_count(4)  # one player a side
        names = table.live.locator(".side-names").all_inner_texts()
        assert all(name and "&" not in name for name in names), names
        assert "partner" not in words(table.page.locator("main")).lower()
    shots(t2.page, "table-individual-phone")

    # Table 2: its first roller scores 1 and misses. The head table: 10 points for its first
    # roller, a miss, then a called Bunco for the next: 21, past 11, the bell.
    t2.tap("1 point")
    t2.tap("Nothing")
    for _ in range(5):
        head.tap("2 points")
    head.tap("Nothing")
    bunco_roller = head.live.locator(".turn .roller-name").inner_text()
    dialog, before = head.bunco(bunco_roller)
    dialog.get_by_role("button", name="Yes, they called it").click()
    head.saved(before)
    expect(head.live).to_have_attribute("data-phase", "done")  # a Bunco ends the turn here
    expect(t2.live).to_have_attribute("data-phase", "finishing")
    t2.tap("Nothing")  # the player holding the dice at the bell finishes the turn
    expect(host.locator("#fact-stage")).to_have_text("Set 1, round 2 waiting to start")

    host.goto(re.sub(r"host/$", "results/", host.url))
    rows = host.locator("table.standings tbody tr")
    expect(rows).to_have_count(8)
    table = [row.locator("td").all_inner_texts() for row in rows.all()]
    points = [int(cells[5]) for cells in table]
    wins = [int(cells[1]) for cells in table]
    assert points == sorted(points, reverse=True), table
    assert points[:3] == [21, 10, 1] and wins[:3] == [1, 0, 1], table  # 10 points, no win, 2nd
    assert table[0][0] == bunco_roller
    shots(host, "results-individual-laptop")


def test_the_hosts_header_states_the_live_facts(chromium, server, shots):
    host = chromium.new_context(**LAPTOP).new_page()
    create_party(host, SimpleNamespace(url=server.url), "Facts Night", ELEVEN)
    facts = host.locator("#host-facts")
    expect(facts).to_have_text(
        re.compile(r"^11 players \+ 1 ghost · Setting up · standard rules · 2 sets$")
    )
    listening(host)
    # Ann goes home before round 1: a ghost takes her seat (her row stays, for her sheet).
    host.get_by_label("Gone home").select_option(label="Ann")
    host.get_by_role("button", name="A ghost takes the seat").click()
    expect(facts).to_contain_text("10 players + 2 ghosts · Setting up")
    shots(host, "host-header-setup-laptop")
    listening(host)
    host.get_by_role("button", name="Start round 1").click()
    expect(host.locator("#fact-stage")).to_have_text("Set 1, round 1 in play")
    host.get_by_role("button", name="Pause").click()
    expect(host.locator("#fact-stage")).to_have_text("Set 1, round 1 paused")
    shots(host, "host-header-paused-laptop")


def test_a_players_phone_shows_the_target_and_the_fuzzy_die_from_the_head_table(
    chromium, server, shots
):
    host = chromium.new_context(**LAPTOP).new_page()
    # The form at ?preset=wba: every option as wba sets it (picking the preset in the form and
    # creating at once can post the options from before htmx swapped in wba's).
    create_with(host, server, "WBA Night", EIGHT, "wba")
    expect(host.locator("#fact-rules")).to_have_text("World Bunco Association rules")
    keeper = host.locator("#seats-1 .scorekeeper strong").inner_text()
    someone = host.locator("#seats-2 .seat-name").first.inner_text()
    player = chromium.new_context(**PHONE).new_page()
    player.goto(link_url(host, someone))
    listening(player)
    expect(player.locator("#fuzzy-die")).to_have_text(
        "Fuzzy die: nobody yet (the head table's scorekeeper takes it at the start)"
    )
    listening(host)
    host.get_by_role("button", name="Start round 1").click()
    # The player's phone hears the start and shows the round's target and the die's holder.
    expect(player.locator("#target")).to_have_text("Target 1: roll for 1s")
    expect(player.locator("#fuzzy-die")).to_have_text(f"Fuzzy die: {keeper} (head table)")
    expect(host.locator("#fuzzy-die")).to_have_text(f"Fuzzy die: {keeper} (head table)")
    shots(player, "player-target-fuzzy-phone")
    shots(host, "host-fuzzy-laptop")
    view = chromium.new_context(**PHONE).new_page()
    view.goto(link_url(host, "Table 2"))
    expect(view.locator("#fuzzy-die")).to_have_text(f"Fuzzy die: {keeper} (head table)")
    view.goto(re.sub(r"table/2/$", "", view.url))  # the party's view, from the same phone
    expect(view.locator("#target")).to_have_text("target 1 (roll for 1s)")
    expect(view.locator("#fuzzy-die")).to_have_text(f"Fuzzy die: {keeper} (head table)")
    shots(view, "party-view-fuzzy-phone")


def test_a_player_takes_over_as_scorekeeper_before_the_round(chromium, server, shots):
    host = chromium.new_context(**LAPTOP).new_page()
    create_party(host, SimpleNamespace(url=server.url), "Keeper Night", EIGHT)
    seats = host.locator("#seats-2 .seat-name").all_inner_texts()
    phone = chromium.new_context(**PHONE).new_page()
    phone.goto(link_url(host, "Table 2"))
    offer = phone.locator("form.keep-score")
    expect(offer.get_by_role("button")).to_have_text(seats)
    expect(offer).to_contain_text("Keep score:")
    shots(phone, "table-keep-score-offer-phone")
    offer.get_by_role("button", name=seats[2], exact=True).click()
    expect(phone.locator(".messages")).to_contain_text(f"{seats[2]} keeps score at table 2")
    expect(phone.locator(".scorekeeper-now")).to_have_text(f"{seats[2]} keeps score")
    expect(phone.locator("#seats-2 .scorekeeper strong")).to_have_text(seats[2])
    shots(phone, "table-keep-score-chosen-phone")
    listening(phone)
    listening(host)
    host.get_by_role("button", name="Start round 1").click()
    table = Table(phone, 2)
    expect(table.live.locator(".turn .roller-name")).to_have_text(seats[2])  # rolls first
    expect(phone.locator("form.keep-score")).to_have_count(0)  # fixed once the round started
    expect(phone.locator(".scorekeeper-now")).to_have_text(f"{seats[2]} keeps score")
    shots(phone, "table-keep-score-playing-phone")
