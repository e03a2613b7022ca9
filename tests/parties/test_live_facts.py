"""The pages state live facts: individual play without partners and ranked by personal points,
the host's header, the round's target, the fuzzy die's holder from the start, a scorekeeper
who takes over before a round, and the host's reseat between sets with rotation none."""

import re
import uuid

import pytest
from django.urls import reverse

from parties import selectors, state
from parties.models import AccessLink, Correction, Party, Player, Round, ScoreSheetLine, Seat
from parties.services.party import party_end, party_pause, party_resume
from parties.services.player import player_arrive, player_leave
from parties.services.roll import roll_record
from parties.services.round import round_start
from parties.translation import correction_effects
from tests.parties.conftest import Browser, redeem
from tests.parties.test_play import new_party

pytestmark = pytest.mark.django_db

EIGHT = ["Ann", "Bea", "Cleo", "Dot", "Edie", "Fran", "Gail", "Hope"]
ELEVEN = ["Ann", "Bea", "Cleo", "Dot", "Edie", "Fran", "Gail", "Hope", "Iris", "June", "Kay"]
# Individual play, two tables of four: the case that used to show partners.
SOLO = {"preset": "tournament", "names": EIGHT}


def browser_with(party, role, **where):
    browser = Browser()
    redeem(browser, AccessLink.objects.get(party=party, role=role, **where))
    return browser


def host_of(party):
    return browser_with(party, "host")


def text_of(response):
    """The page's words, without tags, scripts or attributes (what a person reads)."""
    html = response.content.decode()
    html = re.sub(r"<(script|style|template)\b.*?</\1>", " ", html, flags=re.S)
    html = re.sub(r"</?(span|strong|em|b|i|a)\b[^>]*>", "", html)  # inline: no break in a word
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def seats(party, round_=None):
    round_ = round_ or selectors.current_round(party)
    return list(
        Seat.objects.filter(round=round_).select_related("player", "table").order_by(
            "table__number", "position"
        )
    )


def tap(party, table, dice, called=True):
    round_ = selectors.current_round(party)
    now = state.load(round_, party.rules)
    link = AccessLink.objects.get(party=party, role="table", table__number=table)
    return roll_record(
        party_id=party.id, table_number=table, tap_id=uuid.uuid4(), dice=tuple(dice),
        called=called, seen=now.extras[table - 1].version, link_ids=[link.id],
    )


def play_round_by_buncos(party):
    """Start the waiting round and end it: a Bunco at every table (round_end each_table)."""
    round_start(party=party)
    round_ = selectors.current_round(party)
    for table in range(1, party.tables.count() + 1):
        tap(party, table, (round_.target,) * 3)
    assert Round.objects.get(pk=round_.pk).status == Round.Status.CLOSED


# --- individual play -----------------------------------------------------------------------


def test_individual_play_shows_no_partner_on_the_host_player_party_and_table_pages():
    party = new_party(**SOLO)
    assert [len(t.seats) for t in selectors.seating(selectors.current_round(party))] == [4, 4]
    ann = Player.objects.get(party=party, name="Ann")
    pages = {
        "host": host_of(party).get(reverse("parties:host", args=[party.id])),
        "player": browser_with(party, "player", player=ann).get(
            reverse("parties:player", args=[party.id, ann.id])
        ),
        "party": host_of(party).get(reverse("parties:party", args=[party.id])),
        "table": browser_with(party, "table", table__number=2).get(
            reverse("parties:table", args=[party.id, 2])
        ),
    }
    for name, response in pages.items():
        assert response.status_code == 200, name
        assert "partner" not in text_of(response).lower(), name
        assert "team-a" not in response.content.decode(), name  # no team colours either
    seat_views = [s for t in selectors.seating(selectors.current_round(party)) for s in t.seats]
    assert all(seat.partner == "" for seat in seat_views)


def test_team_play_still_names_partners():
    party = new_party(names=EIGHT)
    response = host_of(party).get(reverse("parties:host", args=[party.id]))
    assert text_of(response).count("partner:") == 8


def test_individual_standings_go_by_personal_points_not_wins():
    party = new_party(**SOLO)
    round_ = selectors.current_round(party)
    by_name = {seat.player.name: seat for seat in seats(party)}
    # Ann won with few points; Bea lost with many.
    for name, won, points in [("Ann", True, 3), ("Bea", False, 40), ("Cleo", False, 10)]:
        seat = by_name[name]
        ScoreSheetLine.objects.create(
            player=seat.player, round=round_, table=seat.table, won=won, points=points
        )
    rows, _prizes = selectors.party_results(party)
    assert [row.name for row in rows[:3]] == ["Bea", "Cleo", "Ann"]
    team = new_party(names=EIGHT, prizes=("overall",))
    round_ = selectors.current_round(team)
    by_name = {seat.player.name: seat for seat in seats(team)}
    for name, won, points in [("Ann", True, 3), ("Bea", False, 40)]:
        seat = by_name[name]
        ScoreSheetLine.objects.create(
            player=seat.player, round=round_, table=seat.table, won=won, points=points
        )
    rows, prizes = selectors.party_results(team)
    assert [row.name for row in rows[:2]] == ["Ann", "Bea"]
    assert prizes[0].winners == [(by_name["Ann"].player_id, "Ann")]


# --- the host's header ---------------------------------------------------------------------


def facts(party):
    party = Party.objects.get(pk=party.pk)
    response = host_of(party).get(reverse("parties:host", args=[party.id]))
    assert response.status_code == 200
    match = re.search(r'<p class="facts" id="host-facts">(.*?)</p>', response.content.decode(), re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", match.group(1)).split())


def test_the_header_counts_the_seated_players_and_ghosts_not_every_name_ever_added():
    party = new_party(names=ELEVEN)
    assert facts(party).startswith("11 players + 1 ghost · Setting up · standard rules")
    ann = Player.objects.get(party=party, name="Ann")
    player_leave(party=party, player_id=ann.id)
    # Ann's row stays (her link still opens her sheet), but a ghost sits in her chair.
    assert facts(party).startswith("10 players + 2 ghosts")
    player_arrive(party=party, name="Zoe")
    assert facts(party).startswith("11 players + 1 ghost")


def test_the_header_says_what_is_happening():
    party = new_party("quick", names=EIGHT, round_end="each_table", sets=2, break_after_set=1)
    assert " Setting up " in f" {facts(party)} "
    round_start(party=party)
    assert "Set 1, round 1 in play" in facts(party)
    party_pause(party=party)
    assert "Set 1, round 1 paused" in facts(party)
    party_resume(party=party)
    round_ = selectors.current_round(party)
    for table in (1, 2):
        tap(party, table, (round_.target,) * 3)
    assert "Set 1, round 2 waiting to start" in facts(party)
    for _ in range(5):
        play_round_by_buncos(party)
    assert "Break after set 1" in facts(party)
    party_resume(party=party)
    assert "Set 2, round 1 waiting to start" in facts(party)
    party_end(party=party)
    assert "Finished" in facts(party)


def test_the_header_names_the_preset_until_an_option_differs():
    assert "· World Bunco Association rules ·" in facts(new_party("wba", names=EIGHT))
    changed = new_party("wba", names=EIGHT, sets=3)
    assert "· custom rules ·" in facts(changed)
    assert "World Bunco Association rules" not in facts(changed)


# --- the target and the fuzzy die ----------------------------------------------------------


def test_the_create_form_lists_presets_by_the_names_a_person_reads():
    page = Browser().get(reverse("parties:create")).content.decode()
    for key, title in [("wba", "World Bunco Association"), ("boxed_small", "Boxed set, small group"),
                       ("boxed4", "Boxed set (4 dice)"), ("standard", "Standard")]:
        assert re.search(rf'<option value="{key}"[^>]*>{re.escape(title)}</option>', page), key
    assert ">wba<" not in page and ">boxed_small<" not in page


def test_the_host_is_told_to_press_start_and_the_tables_wait_for_the_bell():
    party = new_party(names=EIGHT)
    host_page = host_of(party).get(reverse("parties:host", args=[party.id])).content.decode()
    assert "Everyone seated? Press <strong>Start round 1</strong> to begin set 1, round 1." in (
        host_page
    )
    assert "Waiting for the bell" not in host_page
    table = Browser()
    redeem(table, AccessLink.objects.get(party=party, role="table", table__number=2))
    table_page = table.get(reverse("parties:table", args=[party.id, 2])).content.decode()
    assert "Waiting for the bell to start set 1, round 1." in table_page


def test_the_player_page_and_the_party_view_show_the_rounds_target():
    party = new_party(names=EIGHT)
    round_start(party=party)
    ann = Player.objects.get(party=party, name="Ann")
    player_page = browser_with(party, "player", player=ann).get(
        reverse("parties:player", args=[party.id, ann.id])
    )
    assert "Target 1: roll for 1s" in text_of(player_page)
    party_view = host_of(party).get(reverse("parties:party", args=[party.id]))
    assert "target 1 (roll for 1s)" in text_of(party_view)


def test_wba_hands_the_fuzzy_die_to_the_head_tables_scorekeeper_as_round_1_starts():
    party = new_party("wba", names=EIGHT)
    keeper = selectors.seating(selectors.current_round(party))[0].scorekeeper
    host = host_of(party)
    assert "Fuzzy die: nobody yet" in text_of(host.get(reverse("parties:host", args=[party.id])))
    round_start(party=party)
    first = selectors.current_round(party)
    assert first.fuzzy_die_id == keeper.player_id
    shown = f"Fuzzy die: {keeper.name} (head table)"
    urls = [
        reverse("parties:host", args=[party.id]),
        reverse("parties:party", args=[party.id]),
        reverse("parties:table", args=[party.id, 2]),
        reverse("parties:player", args=[party.id, keeper.player_id]),
    ]
    for url in urls:
        assert shown in text_of(host.get(url)), url


def test_the_fuzzy_die_stays_with_the_starting_holder_until_a_bunco_takes_it():
    party = new_party("wba", names=EIGHT)
    round_start(party=party)
    keeper = selectors.seating(selectors.current_round(party))[0].scorekeeper
    assert selectors.fuzzy_die(party) == selectors.FuzzyDieView(keeper.name, "head table")
    tap(party, 2, (1, 1, 1))  # a Bunco at table 2 takes it
    roller = selectors.fuzzy_die_holder(party)
    assert roller.id != keeper.player_id
    assert selectors.fuzzy_die(party) == selectors.FuzzyDieView(roller.name, "")


def test_without_a_starting_holder_nobody_holds_it_and_without_traveling_nothing_shows():
    party = new_party(names=EIGHT, traveling="bunco")
    round_start(party=party)
    assert selectors.current_round(party).fuzzy_die_id is None
    assert selectors.fuzzy_die(party) == selectors.FuzzyDieView("nobody yet")
    plain = new_party(names=EIGHT)
    round_start(party=plain)
    page = host_of(plain).get(reverse("parties:host", args=[plain.id]))
    assert page.status_code == 200 and 'id="fuzzy-die"' not in page.content.decode()


def test_the_starting_holder_is_the_scorekeeper_chosen_before_the_start():
    party = new_party("wba", names=EIGHT)
    head = [s for s in seats(party) if s.table.number == 1 and s.position == 3][0]
    keeper = browser_with(party, "table", table__number=1)
    keeper.post(reverse("parties:keep_score", args=[party.id, 1]), {"player": head.player_id})
    round_start(party=party)
    assert selectors.current_round(party).fuzzy_die_id == head.player_id


# --- a scorekeeper takes over --------------------------------------------------------------


def keeps_score(party, table):
    return [
        s.player.name for s in seats(party) if s.table.number == table and s.keeps_score
    ]


def test_a_player_at_the_table_takes_over_keeping_score_for_the_waiting_round():
    party = new_party(names=EIGHT)
    table_2 = [s for s in seats(party) if s.table.number == 2]
    keeper = browser_with(party, "table", table__number=2)
    page = keeper.get(reverse("parties:table", args=[party.id, 2]))
    offered = re.findall(r'name="player" value="(\d+)"', page.content.decode())
    assert offered == [str(s.player_id) for s in table_2]  # everyone at the table, no ghosts
    assert "Keep score:" in text_of(page)
    chosen = table_2[2]
    response = keeper.post(
        reverse("parties:keep_score", args=[party.id, 2]), {"player": chosen.player_id},
        follow=True,
    )
    assert response.redirect_chain[-1][0] == reverse("parties:table", args=[party.id, 2])
    assert f"{chosen.player.name} keeps score at table 2" in text_of(response)
    assert keeps_score(party, 2) == [chosen.player.name]
    again = table_2[1]
    keeper.post(reverse("parties:keep_score", args=[party.id, 2]), {"player": again.player_id})
    assert keeps_score(party, 2) == [again.player.name]  # one a table
    assert keeps_score(party, 1) == []
    round_start(party=party)
    live = state.load(selectors.current_round(party), party.rules)
    assert live.table(2).roller == str(again.player_id)  # the replay lets them roll first
    page = keeper.get(reverse("parties:table", args=[party.id, 2]))
    assert f"{again.player.name} keeps score" in text_of(page)


def test_the_host_chooses_from_the_seating_and_goes_back_to_it():
    party = new_party(names=EIGHT)
    seat = [s for s in seats(party) if s.table.number == 1][1]
    host = host_of(party)
    page = host.get(reverse("parties:host", args=[party.id]))
    assert text_of(page).count("Keep score:") == 2
    response = host.post(
        reverse("parties:keep_score", args=[party.id, 1]),
        {"player": seat.player_id, "back": "host"},
    )
    assert response.url == reverse("parties:host", args=[party.id]) + "#seating"
    assert keeps_score(party, 1) == [seat.player.name]


def test_a_takeover_is_refused_once_the_round_started_and_changes_nothing():
    party = new_party(names=EIGHT)
    round_start(party=party)
    seat = [s for s in seats(party) if s.table.number == 2][1]
    keeper = browser_with(party, "table", table__number=2)
    page = keeper.get(reverse("parties:table", args=[party.id, 2]))
    assert "Keep score:" not in text_of(page)
    response = keeper.post(
        reverse("parties:keep_score", args=[party.id, 2]), {"player": seat.player_id},
        follow=True,
    )
    assert "Round 1 has started: its scorekeeper and seats stay until it ends." in text_of(
        response
    )
    assert keeps_score(party, 2) == []


@pytest.mark.parametrize("who", ["ghost", "other table", "nobody", "not a number"])
def test_a_takeover_by_someone_who_cannot_keep_score_there_is_refused(who):
    party = new_party(names=["Ann", "Bea", "Cleo", "Dot", "Edie", "Fran", "Gail"])
    at = {s.table.number: [] for s in seats(party)}
    for s in seats(party):
        at[s.table.number].append(s)
    choice = {
        "ghost": next(s.player_id for s in at[2] if s.player.is_ghost),
        "other table": at[1][1].player_id,
        "nobody": 999999,
        "not a number": "Ann",
    }[who]
    keeper = browser_with(party, "table", table__number=2)
    seq = Party.objects.get(pk=party.pk).seq
    response = keeper.post(
        reverse("parties:keep_score", args=[party.id, 2]), {"player": choice}, follow=True
    )
    assert response.status_code == 200
    assert re.search(r"cannot keep score|does not sit at table 2|Pick who", text_of(response))
    assert keeps_score(party, 2) == [] and Party.objects.get(pk=party.pk).seq == seq


def test_only_the_tables_phone_or_the_host_may_choose_its_scorekeeper():
    party = new_party(names=EIGHT)
    seat = [s for s in seats(party) if s.table.number == 1][1]
    ann = Player.objects.get(party=party, name="Ann")
    for browser in (
        browser_with(party, "table", table__number=2),
        browser_with(party, "player", player=ann),
        Browser(),
    ):
        response = browser.post(
            reverse("parties:keep_score", args=[party.id, 1]), {"player": seat.player_id}
        )
        assert response.status_code in (403, 404)
    assert keeps_score(party, 1) == []


# --- the host reseats between sets (rotation none) -----------------------------------------


def two_set_party(**changes):
    party = new_party(names=EIGHT, rotation="none", round_end="each_table", **changes)
    for _ in range(6):
        play_round_by_buncos(party)
    party.refresh_from_db()
    round_ = selectors.current_round(party)
    assert (round_.bunco_set.number, round_.number, round_.status) == (2, 1, "waiting")
    return party


def test_with_rotation_none_the_host_swaps_two_players_between_sets_as_a_reseat():
    party = two_set_party()
    before = {s.player.name: (s.table.number, s.position) for s in seats(party)}
    a = next(s for s in seats(party) if s.table.number == 1 and s.position == 2)
    b = next(s for s in seats(party) if s.table.number == 2 and s.position == 2)
    host = host_of(party)
    page = host.get(reverse("parties:host", args=[party.id]))
    assert "Swap seats" in text_of(page) and "Reshuffle everyone" not in text_of(page)
    response = host.post(
        reverse("parties:swap", args=[party.id]),
        {"player_a": a.player_id, "player_b": b.player_id},
    )
    assert response.status_code == 302
    after = {s.player.name: (s.table.number, s.position) for s in seats(party)}
    assert after[a.player.name] == before[b.player.name]
    assert after[b.player.name] == before[a.player.name]
    assert {k: v for k, v in after.items() if k not in (a.player.name, b.player.name)} == {
        k: v for k, v in before.items() if k not in (a.player.name, b.player.name)
    }
    correction = Correction.objects.get(party=party, kind="reseat")
    assert correction.round == selectors.current_round(party)
    assert correction.made_by == "host"
    assert correction_effects(correction) == [
        f"Set 2, round 1: {a.player.name} and {b.player.name} swap seats; {a.player.name} now "
        f"sits at table 2, seat 2, and {b.player.name} at table 1, seat 2"
    ]


def swap_answer(party, a, b):
    """The host's swap, as the page posts it, and the message it leaves."""
    response = host_of(party).post(
        reverse("parties:swap", args=[party.id]), {"player_a": a, "player_b": b}, follow=True
    )
    assert response.status_code == 200
    return text_of(response)


def test_a_reseat_that_would_partner_two_ghosts_is_refused_and_changes_nothing():
    party = new_party(
        names=["Ann", "Bea", "Cleo", "Dot", "Edie", "Fran"], rotation="none",
        round_end="each_table",
    )
    for _ in range(6):
        play_round_by_buncos(party)
    ghosts = [s for s in seats(party) if s.player.is_ghost]
    assert len(ghosts) == 2 and ghosts[0].table_id != ghosts[1].table_id
    partner = next(
        s for s in seats(party)
        if s.table_id == ghosts[1].table_id and (s.position - ghosts[1].position) % 4 == 2
    )
    before = [(s.player_id, s.table_id, s.position) for s in seats(party)]
    said = swap_answer(party, ghosts[0].player_id, partner.player_id)
    assert "That swap cannot be played" in said
    assert [(s.player_id, s.table_id, s.position) for s in seats(party)] == before
    assert not Correction.objects.filter(party=party, kind="reseat").exists()


def test_reseating_is_refused_during_a_set_and_with_another_rotation():
    party = new_party(names=EIGHT, rotation="none", round_end="each_table")
    play_round_by_buncos(party)  # round 2 of set 1 waits: not between sets
    before = [(s.player_id, s.table_id, s.position) for s in seats(party)]
    said = swap_answer(party, seats(party)[1].player_id, seats(party)[5].player_id)
    assert "Players can be reseated between sets: before round 1 of the next set." in said
    assert [(s.player_id, s.table_id, s.position) for s in seats(party)] == before
    ladder = new_party(names=EIGHT, round_end="each_table")
    play_round_by_buncos(ladder)
    said = swap_answer(ladder, seats(ladder)[1].player_id, seats(ladder)[5].player_id)
    assert "The seating is fixed once the first round has started." in said
    assert not Correction.objects.filter(kind="reseat").exists()


def test_the_hosts_rules_are_sentences_with_no_option_that_means_nothing_tonight():
    party = new_party(names=ELEVEN)  # standard rules: the fuzzy die is off
    page = host_of(party).get(reverse("parties:host", args=[party.id])).content.decode()
    rules = page[page.index("<h2>Rules</h2>"):]
    assert "No fuzzy die tonight." in rules
    assert "Traveling triple" not in rules and "Fuzzy die starts" not in rules
    for name in ("rules_sheet", "player_cards", "score_sheets", "tally_sheets", "table_cards"):
        assert reverse(f"parties:{name}", args=[party.id]) in page, name
    wba = new_party("wba", names=ELEVEN)  # the fuzzy die goes to each Bunco roller
    page = host_of(wba).get(reverse("parties:host", args=[wba.id])).content.decode()
    assert "Fuzzy die starts" in page and "Traveling triple" not in page
