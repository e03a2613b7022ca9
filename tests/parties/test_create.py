"""The host creates a party in the browser: what is saved, and what bad input is refused."""

import re

import pytest
from django.urls import reverse

from parties.models import AccessLink, Party, Player, Round, Seat, Table
from parties.party_codes import party_code_shown
from parties.services.errors import PartyError
from parties.services.party import party_create
from tests.parties.conftest import TWELVE, Browser, create_form, create_party

pytestmark = pytest.mark.django_db


def seating_of(party):
    round_ = Round.objects.get(party=party, bunco_set__number=1, number=1)
    tables = {}
    for seat in Seat.objects.filter(round=round_).select_related("table", "player"):
        tables.setdefault(seat.table.number, {})[seat.position] = seat.player
    return tables


def test_it_creates_a_twelve_player_party_seated_at_three_tables(host):
    party = create_party(host)
    assert party.name == "Friday Bunco"
    assert party.preset == "standard"
    assert sorted(p.name for p in party.players.all()) == sorted(TWELVE)
    assert Table.objects.filter(party=party).count() == 3
    tables = seating_of(party)
    assert sorted(tables) == [1, 2, 3]
    assert all(sorted(seats) == [1, 2, 3, 4] for seats in tables.values())
    seated = [p.name for seats in tables.values() for p in seats.values()]
    assert sorted(seated) == sorted(TWELVE)
    assert party.bunco_sets.count() == 2  # the standard preset plays 2 sets
    round_ = Round.objects.get(party=party)
    assert (round_.number, round_.target, round_.status) == (1, 1, "waiting")


def test_it_makes_one_host_link_one_per_table_and_one_per_player(host):
    party = create_party(host)
    links = AccessLink.objects.filter(party=party)
    assert links.filter(role="host").count() == 1
    assert sorted(links.filter(role="table").values_list("table__number", flat=True)) == [1, 2, 3]
    assert links.filter(role="player").count() == 12


def test_the_creating_browser_becomes_the_host(host):
    party = create_party(host)
    response = host.get(reverse("parties:host", args=[party.id]))
    assert response.status_code == 200
    assert party_code_shown(party.code) in response.content.decode()


def test_it_fills_empty_seats_with_ghosts_who_never_partner_each_other(host):
    party = create_party(host, names=TWELVE[:9])  # 9 players: 3 tables, 3 ghosts
    ghosts = list(Player.objects.filter(party=party, is_ghost=True))
    assert [g.name for g in ghosts] == ["Ghost 1", "Ghost 2", "Ghost 3"]
    for seats in seating_of(party).values():
        for a, b in ((1, 3), (2, 4)):
            assert not (seats[a].is_ghost and seats[b].is_ghost)
        assert not seats[1].is_ghost  # seat 1 keeps score first
    assert not AccessLink.objects.filter(player__is_ghost=True).exists()


def test_an_eleven_player_party_has_one_ghost_shown_as_a_ghost(host):
    party = create_party(host, names=TWELVE[:11])
    page = host.get(reverse("parties:host", args=[party.id])).content.decode()
    assert Player.objects.filter(party=party, is_ghost=True).count() == 1
    assert page.count('class="badge ghost"') == 1


def test_individual_play_has_no_ghosts_and_tables_of_two_to_four(host):
    party = create_party(host, names=TWELVE[:5], preset="tournament")
    assert not Player.objects.filter(party=party, is_ghost=True).exists()
    assert sorted(len(seats) for seats in seating_of(party).values()) == [2, 3]


def test_it_saves_every_rule_option_the_host_changed(host):
    party = create_party(host, play_to="11", rotation="losers_down_wrap", sets="3",
                         mini_bunco_points="sum", prizes=["most_wins", "lowest_points"])
    rules = party.rules
    assert rules.play_to == 11
    assert rules.rotation == "losers_down_wrap"
    assert rules.sets == 3 and party.bunco_sets.count() == 3
    assert rules.mini_bunco_points == "sum"
    assert rules.prizes == ("most_wins", "lowest_points")
    assert rules.bunco_must_be_called is True


def test_every_preset_can_be_created(host):
    from scoring import PRESETS

    for preset, rules in PRESETS.items():
        # The boxed set's table plans stop at 10 players.
        names = TWELVE[:7] if rules.small_group == "boxed_plans" else TWELVE
        party = create_party(host, preset=preset, names=names)
        assert party.rules == rules, preset


def test_names_in_any_language_are_kept_and_escaped(host):
    names = ["Zoë", "Ngozi", "Мария", "佐藤 花子", "<script>alert(1)</script>", "Ana & Bo"]
    party = create_party(host, names=names)
    assert sorted(p.name for p in party.players.filter(is_ghost=False)) == sorted(names)
    page = host.get(reverse("parties:host", args=[party.id])).content.decode()
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "佐藤 花子" in page


@pytest.mark.parametrize(
    "players, message",
    [
        ("Ann", "A party needs 2 to 400 players; this list has 1."),
        ("Ann\nBea\nCleo", "Teams with ghosts need at least 4 players, not 3"),
        ("Ann\nBea\n\nCleo\nDot", "Line 3 is blank"),
        ("Ann\nBea\nCleo\nann", "Line 4: “ann” is already on line 1."),
        ("Ann\nBea\nCleo\n" + "x" * 41, "is longer than 40 characters"),
        ("Ann\nBea\nCleo\nGhost 2", "is kept for the ghosts"),
        ("\n".join(f"P{i}" for i in range(401)), "this list has 401"),
        ("", "Paste the players&#x27; names, one per line, or choose a CSV file of them."),
    ],
)
def test_bad_player_lists_are_refused_with_a_clear_message(host, players, message):
    response = host.post(reverse("parties:create"), {**create_form(), "players": players})
    assert response.status_code == 400
    assert message in response.content.decode()
    assert Party.objects.count() == 0


def test_what_the_host_typed_is_kept_when_the_form_is_refused(host):
    data = {**create_form(names=["Ann", "Bea", "Bea"]), "name": "Gran's Bunco"}
    page = host.post(reverse("parties:create"), data).content.decode()
    assert "Gran&#x27;s Bunco" in page
    assert "Ann\nBea\nBea" in page


def test_contradictory_rules_are_refused_naming_the_option(host):
    response = host.post(reverse("parties:create"), create_form(team_size="1"))
    assert response.status_code == 400
    assert "rotation must be &#x27;none&#x27; when team_size is 1" in response.content.decode()
    assert Party.objects.count() == 0


def test_an_option_outside_its_choices_is_refused(host):
    response = host.post(reverse("parties:create"), create_form(dice="5"))
    assert response.status_code == 400
    assert "Select a valid choice" in response.content.decode()
    assert Party.objects.count() == 0


def test_a_blank_party_name_is_refused(host):
    response = host.post(reverse("parties:create"), create_form(name="   "))
    assert response.status_code == 400
    assert Party.objects.count() == 0


def test_posting_without_the_csrf_token_is_refused_and_changes_nothing():
    browser = Browser()
    response = browser.post(reverse("parties:create"), {**create_form(), "csrfmiddlewaretoken": ""})
    assert response.status_code == 403
    assert Party.objects.count() == 0


def test_switching_preset_with_htmx_returns_only_that_presets_options(host):
    response = host.get(
        reverse("parties:create"), {"preset": "short"}, headers={"HX-Request": "true"}
    )
    page = response.content.decode()
    assert page.lstrip().startswith('<div id="rules-options">')
    assert "Standard play with rounds to 11 points" in page
    assert '<option value="11" selected>' in page
    assert "<html" not in page


def test_switching_preset_without_javascript_keeps_the_names(host):
    data = {**create_form(), "preset": "boxed4", "load_preset": "1"}
    response = host.post(reverse("parties:create"), data)
    page = response.content.decode()
    assert response.status_code == 200
    assert '<option value="4" selected>' in page  # boxed4 rolls four dice
    assert "Ann\nBea" in page
    assert Party.objects.count() == 0


def test_the_create_page_shows_every_rule_with_its_explanation(host):
    import dataclasses

    from scoring import Rules

    page = host.get(reverse("parties:create")).content.decode()
    for option in dataclasses.fields(Rules):
        assert f'name="{option.name}"' in page, option.name
        assert option.metadata["help"].replace("'", "&#x27;") in page, option.name


def test_a_form_sent_before_the_chosen_presets_rules_arrived_gets_that_preset(host):
    # The host picks "wba" and taps Create before htmx has drawn the wba rules: the rule
    # fields still hold standard's, which the host never chose.
    from scoring import PRESETS

    data = create_form(preset="standard")
    data["preset"] = "wba"
    response = host.post(reverse("parties:create"), data)
    assert response.status_code == 302
    party = Party.objects.latest("id")
    assert party.preset == "wba" and party.rules == PRESETS["wba"]


def test_the_rules_as_drawn_for_the_chosen_preset_are_kept_with_the_hosts_changes(host):
    party = create_party(host, preset="wba", play_to="11")
    assert party.rules.play_to == 11 and party.rules.sets == 4


# -- small groups: the boxed set's table plans (docs/rules.md "Small groups") ------------------

PLAN_WORDS = {
    2: ["2 playing alone"],
    3: ["3 playing alone"],
    4: ["4 playing alone"],
    5: ["3 playing alone", "2 playing alone"],
    6: ["4 in two teams", "2 playing alone"],
    7: ["4 in two teams", "3 playing alone"],
    8: ["4 in two teams", "4 in two teams"],
    9: ["4 in two teams", "3 playing alone", "2 playing alone"],
    10: ["4 in two teams", "4 in two teams", "2 playing alone"],
}


@pytest.mark.parametrize("count", sorted(PLAN_WORDS))
def test_boxed_plans_seat_2_to_10_with_no_ghosts_as_the_plan_says(host, count):
    party = create_party(host, names=TWELVE[:count], preset="boxed_small")
    assert party.players.count() == count and not party.players.filter(is_ghost=True).exists()
    first = Round.objects.get(party=party, number=1, bunco_set__number=1)
    sizes = [
        Seat.objects.filter(round=first, table=t).count()
        for t in Table.objects.filter(party=party).order_by("number")
    ]
    assert sizes == [int(words.split()[0]) for words in PLAN_WORDS[count]]


@pytest.mark.parametrize("count", sorted(PLAN_WORDS))
def test_the_plan_preview_shows_each_table_and_who_plays_alone(host, count):
    data = create_form(names=TWELVE[:count], preset="boxed_small")
    page = host.post(reverse("parties:create_plan"), data).content.decode()
    assert page.lstrip().startswith('<h2 class="plan-heading">')  # the content, not the box
    shown = re.findall(r"<strong>Table (\d+)(?: \(head\))?</strong>: ([^<]+)</li>", page)
    assert [int(n) for n, _ in shown] == list(range(1, len(PLAN_WORDS[count]) + 1))
    for (_, words), expected in zip(shown, PLAN_WORDS[count], strict=True):
        assert words.startswith(expected)
    assert "ghost" not in page
    assert Party.objects.count() == 0  # the preview writes nothing


def test_the_preview_with_ghosts_counts_them_and_points_at_the_boxed_plans(host):
    page = host.post(reverse("parties:create_plan"), create_form(names=TWELVE[:7])).content
    page = page.decode()
    assert "7 players and 1 ghost sit at 2 tables" in page
    assert page.count("4 in two teams") == 2
    assert "Boxed set, small group" in page


def test_the_create_page_draws_the_preview_from_what_was_sent(host):
    page = host.get(reverse("parties:create")).content.decode()
    assert "Type the players' names to see the tables" in page
    data = {**create_form(names=TWELVE[:5], preset="boxed_small"), "name": ""}
    page = host.post(reverse("parties:create"), data).content.decode()  # refused: no name
    assert "Table 1 (head)</strong>: 3 playing alone" in page
    assert "Table 2</strong>: 2 playing alone" in page


@pytest.mark.parametrize(
    "names, preset, message",
    [
        (TWELVE[:3], "standard", "Teams with ghosts need at least 4 players, not 3"),
        (TWELVE[:2], "standard", "the boxed_small preset"),
        (TWELVE[:11], "boxed_small", "table plans seat 2 to 10 players, not 11"),
    ],
)
def test_a_count_the_rules_cannot_seat_is_refused_in_the_form_and_the_preview(
    host, names, preset, message
):
    data = create_form(names=names, preset=preset)
    response = host.post(reverse("parties:create"), data)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert message in host.post(reverse("parties:create_plan"), data).content.decode()
    assert Party.objects.count() == 0


def test_boxed_plans_without_the_boxed_game_are_refused_naming_the_option(host):
    data = create_form(names=TWELVE[:6], small_group="boxed_plans")
    response = host.post(reverse("parties:create"), data)
    assert response.status_code == 400
    assert "small_group &#x27;boxed_plans&#x27; needs dice=4" in response.content.decode()
    assert Party.objects.count() == 0


def test_the_service_refuses_a_count_the_plan_cannot_seat():
    from scoring import PRESETS

    with pytest.raises(PartyError, match="not 11"):
        party_create(
            name="x", player_names=TWELVE[:11], preset="boxed_small", rules=PRESETS["boxed_small"]
        )
    with pytest.raises(PartyError, match="at least 4"):
        party_create(
            name="x", player_names=TWELVE[:3], preset="standard", rules=PRESETS["standard"]
        )


def test_individual_play_seats_two_or_three_at_one_table(host):
    party = create_party(host, names=TWELVE[:3], preset="tournament")
    assert party.tables.count() == 1 and not party.players.filter(is_ghost=True).exists()
