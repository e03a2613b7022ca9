"""The rule sheet's sentences: each option changes the sentence of its own topic, and nothing
is said about what the night does not play."""

import dataclasses
import re

import pytest

from scoring.rules import PRESETS, Rules
from scoring.rules_text import rules_sentences

STANDARD = PRESETS["standard"]
TRAVELING = Rules(traveling="triple")
TIMED = Rules(round_end="timed")
ALONE = Rules(team_size=1, rotation="none")
BOXED_GAME = Rules(
    dice=4, round_end="each_table", bunco_ends_round="everywhere", rotation="losers_down_wrap"
)


def sheet(rules, tables=None):
    return dict(rules_sentences(rules, tables))


# (option changed, the rules it is changed from, the change, the topic that changes, words the
# new sentence says). Every option of Rules is here: a new option needs its sentence.
CHANGES = [
    ("dice", STANDARD, {"dice": 4}, {"Target", "Points", "Bunco", "Mini Bunco"}, "four dice"),
    ("play_to", STANDARD, {"play_to": 11}, {"End of a round"}, "reaches 11 points"),
    ("round_end", STANDARD, {"round_end": "each_table"}, {"End of a round"}, "on its own"),
    ("round_end", STANDARD, {"round_end": "timed"}, {"End of a round"}, "10 minutes"),
    ("round_minutes", TIMED, {"round_minutes": 15}, {"End of a round"}, "15 minutes"),
    ("bunco_ends_round", STANDARD, {"bunco_ends_round": "everywhere"}, {"End of a round"},
     "A Bunco at any table rings the bell for every table"),
    ("bunco_must_be_called", STANDARD, {"bunco_must_be_called": False}, {"Calling"},
     "scores whether you call it out or not"),
    ("mini_bunco_must_be_called", STANDARD, {"mini_bunco_must_be_called": True}, {"Calling"},
     '"mini Bunco!"'),
    ("mini_bunco_points", STANDARD, {"mini_bunco_points": "sum"}, {"Mini Bunco"},
     "three 4s score 12"),
    ("mini_bunco_ends_turn", STANDARD, {"mini_bunco_ends_turn": True}, {"Mini Bunco"},
     "mini Bunco: 5 points. Then pass the dice"),
    ("bunco_ends_turn", STANDARD, {"bunco_ends_turn": True}, {"Bunco"},
     "21 points. Then pass the dice"),
    ("finish_turn_after_bell", STANDARD, {"finish_turn_after_bell": False}, {"End of a round"},
     "stops the moment the bell rings"),
    ("tie_break", STANDARD, {"tie_break": "rolloff_dice_total"}, {"Ties"},
     "higher total of the faces"),
    ("rotation", STANDARD, {"rotation": "head_losers_to_bottom"}, {"Moving"},
     "go to the bottom table"),
    ("rotation", STANDARD, {"rotation": "losers_down_wrap"}, {"Moving"},
     "bottom table's losers go up to the head table"),
    ("rotation", STANDARD, {"rotation": "none"}, {"Moving"}, "Nobody changes tables"),
    ("partners", STANDARD, {"partners": "movers_keep_partners"}, {"Partners"},
     "arrive at a table together stay partners"),
    ("team_size", Rules(rotation="none"), {"team_size": 1},
     {"Points", "Bunco", "End of a round", "Ties", "Score sheet", "Partners", "Playing alone"},
     "highest scorer"),
    ("small_group", BOXED_GAME, {"small_group": "boxed_plans"}, {"Moving", "Partners"},
     "everyone plays alone and the highest scorer wins"),
    ("sets", STANDARD, {"sets": 3}, {"Sets"}, "three sets of 6 rounds"),
    ("break_after_set", STANDARD, {"break_after_set": 1}, {"Sets"}, "break after set 1"),
    ("traveling", STANDARD, {"traveling": "bunco"}, {"Fuzzy die"},
     "Whoever rolls a Bunco takes the fuzzy die"),
    ("traveling", STANDARD, {"traveling": "triple"}, {"Fuzzy die"}, "rolls 2-2-2"),
    ("traveling_triple", TRAVELING, {"traveling_triple": 5}, {"Fuzzy die"}, "rolls 5-5-5"),
    ("fuzzy_die_starts", TRAVELING, {"fuzzy_die_starts": "head_table"}, {"Fuzzy die"},
     "starts with the head table's scorekeeper"),
    ("prizes", STANDARD, {"prizes": ("most_wins", "last_bunco")}, {"Prizes"},
     "the most wins and the night's last Bunco"),
    ("overall_tiebreak", Rules(prizes=("overall",)), {"overall_tiebreak": "buncos"}, {"Prizes"},
     "a tie going to the most Buncos"),
]


def test_every_option_of_the_rules_has_a_sentence_that_it_changes():
    assert {name for name, *_ in CHANGES} == {f.name for f in dataclasses.fields(Rules)}


@pytest.mark.parametrize(
    "base, change, topics, words",
    [case[1:] for case in CHANGES],
    ids=[f"{case[0]}-{next(iter(case[2].values()))}" for case in CHANGES],
)
def test_an_option_changes_the_sentence_of_its_own_topic_and_no_other(base, change, topics, words):
    before = sheet(base)
    after = sheet(dataclasses.replace(base, **change))
    changed = {
        heading for heading in before.keys() | after.keys() if before.get(heading) != after.get(heading)
    }
    assert changed == topics
    assert any(words in after.get(topic, "") for topic in topics), [after.get(t) for t in topics]
    assert not any(words in text for text in before.values())


def test_with_the_fuzzy_die_off_the_sheet_says_nothing_of_a_traveling_triple():
    for triple in range(1, 7):
        text = " ".join(sheet(Rules(traveling="off", traveling_triple=triple)).values())
        assert f"{triple}-{triple}-{triple}" not in text
        assert "takes the fuzzy die" not in text and "holds it" not in text
    assert sheet(STANDARD)["Fuzzy die"] == "No fuzzy die tonight."


def test_the_traveling_prize_is_named_only_where_the_host_chose_it():
    without = sheet(Rules(traveling="bunco"))["Fuzzy die"]
    chosen = sheet(Rules(traveling="bunco", prizes=("traveling",)))
    assert "wins a prize" not in without
    assert "wins a prize" in chosen["Fuzzy die"]
    assert "whoever holds the fuzzy die at the end" in chosen["Prizes"]


def test_individual_play_speaks_of_players_never_of_teams_or_partners():
    for rules in (ALONE, PRESETS["tournament"]):
        text = " ".join(sheet(rules).values()).lower()
        assert "team" not in text and "partner" not in text and "ghost" not in text


def test_the_overall_prize_in_individual_play_goes_by_personal_points():
    text = sheet(dataclasses.replace(ALONE, prizes=("overall",)))["Prizes"]
    assert "the most personal points, a tie going to the most wins" in text


def test_moving_speaks_of_the_night_s_own_tables():
    assert sheet(STANDARD, tables=1)["Moving"] == "Nobody changes tables."
    two = sheet(STANDARD, tables=2)["Moving"]
    assert "head table's losers and table 2's winners change tables" in two
    assert "bottom" not in two
    assert "the losers of the two tables" in sheet(Rules(rotation="losers_down_wrap"), 2)["Moving"]
    assert sheet(STANDARD, tables=3)["Moving"] == sheet(STANDARD)["Moving"]


def test_a_preset_reads_as_plain_sentences_with_no_option_names_or_values():
    names = {f.name for f in dataclasses.fields(Rules)}
    for preset, rules in PRESETS.items():
        for heading, text in rules_sentences(rules, 3):
            assert text.endswith("."), (preset, heading, text)
            words = set(re.findall(r"[a-z_]+", text))
            assert not words & names - {"dice", "sets", "partners", "prizes"}, (preset, text)
            assert "_" not in text and "True" not in text and "False" not in text, (preset, text)


def test_no_prizes_is_said_so():
    assert sheet(Rules(prizes=()))["Prizes"] == "No prizes tonight."


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_gets_every_topic_once(preset):
    headings = [heading for heading, _ in rules_sentences(PRESETS[preset])]
    assert len(headings) == len(set(headings)) == 13


def test_a_night_that_shares_tied_prizes_says_so_and_no_roll_off():
    shared = dict(rules_sentences(Rules(), tied_prize="split"))["Prizes"]
    assert "shared by the tied players" in shared and "roll-off" not in shared
    assert "roll-off" in dict(rules_sentences(Rules()))["Prizes"]
