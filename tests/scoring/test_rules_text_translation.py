"""The rule sheet in any language: every sentence goes through the `gettext` the caller passes,
as a whole sentence written where `makemessages` finds it, and with none passed the English is
word for word what it was."""

import ast
import dataclasses
from pathlib import Path

import pytest

from scoring.rules import PRESETS, Rules, RulesError
from scoring.rules_text import rules_sentences

SCORING = Path(__file__).resolve().parents[2] / "scoring"

STANDARD_SHEET = [
    ("Target", "Roll three dice. Each round has a target number: round 1 rolls for 1s, round 2 "
     "for 2s, and so on up to round 6 for 6s."),
    ("Points", "The scorekeeper rolls first. Each die showing the target scores 1 point, and the "
     "other faces score nothing, however high: in round 2, 2-2-6 is 2 points. Keep rolling while "
     "you score; when a roll scores nothing, pass the dice to your left. Points are your team's."),
    ("Bunco", "All three dice showing the target is a Bunco: 21 points. Then roll again. The "
     "Bunco is marked on the roller's own score sheet (the partner shares the points, not the "
     "mark)."),
    ("Mini Bunco", "Three of a kind of any other number is a mini Bunco: 5 points. Then roll "
     "again. The mini Bunco is marked on the roller's own sheet."),
    ("Calling", 'Shout "Bunco!" when you roll one: a Bunco not called scores nothing, gets no '
     "mark and ends the turn. A mini Bunco scores whether you call it or not."),
    ("End of a round", "The head table (table 1) starts each round. When a team there reaches 21 "
     "points, the bell rings on every phone; at the other tables reaching the score ends "
     "nothing. After the bell, whoever holds the dice finishes their turn, and those points "
     "count; then the team with more points at each table wins the round there."),
    ("Ties", "A table whose teams are level when play stops settles it in a roll-off: starting "
     "with the scorekeeper, every player of the tied teams takes one turn for the target; if one "
     "team is ahead once everyone has rolled, it wins, else they go round again. Roll-off points "
     "only settle the tie (a Bunco rolled in it still gets its mark)."),
    ("Score sheet", "After each round your sheet gets a W if your team won at your table, else "
     "an L; partners get the same mark. Your Buncos and mini Buncos are counted on it too, and "
     "so are your personal points, the points of the rolls you threw. Table scores start again "
     "at 0 every round."),
    ("Moving", "After each round, the head table's winners stay and its losers go down to table "
     "2. At the other tables the winners move up one table and the losers down one; at the "
     "bottom table the losers stay."),
    ("Partners", "Your partner sits across from you. After every round the two pairs at each "
     "table split up, so everyone has a new partner every round; your phone shows where to sit. "
     "An empty chair holds a ghost: its partner rolls its turn too, and a ghost wins no prize."),
    ("Sets", "The night is two sets of 6 rounds; each set starts again at round 1."),
    ("Fuzzy die", "No fuzzy die tonight."),
    ("Prizes", "Prizes for the most wins, the most Buncos and the most losses. A prize still tied "
     "at the end is settled by a roll-off: each tied player throws three dice once and the "
     "highest total wins."),
]

# Sentences whose English is put together from several choices, each as it read before.
ENGLISH = [
    (Rules(round_end="timed", round_minutes=1), "End of a round",
     "Each round lasts 1 minute on the host's clock, and the bell rings when time is up (the "
     "host may ring it sooner). Reaching a score ends nothing. After the bell, whoever holds the "
     "dice finishes their turn, and those points count; then the team with more points at each "
     "table wins the round there."),
    (Rules(round_end="each_table", bunco_ends_round="everywhere", finish_turn_after_bell=False,
           team_size=1, rotation="none"), "End of a round",
     "Each table plays on its own: the first player to reach 21 points wins the round at that "
     "table (a Bunco wins at once). The round is over when every table has finished. A Bunco at "
     "any table rings the bell for every table at once: every table stops the moment the bell "
     "rings; then the highest scorer at each table wins the round there."),
    (Rules(bunco_ends_round="everywhere", finish_turn_after_bell=False), "End of a round",
     "The head table (table 1) starts each round. When a team there reaches 21 points, the bell "
     "rings on every phone; at the other tables reaching the score ends nothing. A Bunco at any "
     "table rings the bell for every table at once. Every table stops the moment the bell rings; "
     "then the team with more points at each table wins the round there."),
    (Rules(sets=3, break_after_set=2), "Sets",
     "The night is three sets of 6 rounds; each set starts again at round 1. There is a break "
     "after set 2."),
    (Rules(traveling="triple", traveling_triple=5, fuzzy_die_starts="head_table",
           prizes=("traveling",)), "Fuzzy die",
     "Whoever rolls 5-5-5, in any round, takes the fuzzy die. It starts with the head table's "
     "scorekeeper of the first round. Whoever holds it at the end of the night wins a prize."),
    (Rules(prizes=("overall", "most_buncos", "last_bunco")), "Prizes",
     "Prizes for the overall winner (the most wins, a tie going to the most personal points); "
     "the most Buncos; the night's last Bunco. A prize still tied at the end is settled by a "
     "roll-off: each tied player throws three dice once and the highest total wins."),
    (Rules(prizes=("most_wins", "last_bunco")), "Prizes",
     "Prizes for the most wins and the night's last Bunco. A prize still tied at the end is "
     "settled by a roll-off: each tied player throws three dice once and the highest total "
     "wins."),
    (Rules(dice=4, mini_bunco_ends_turn=True), "Mini Bunco",
     "Four of a kind of any other number is a mini Bunco: 5 points if that number is below the "
     "target, 7 if above. Three of a kind scores nothing special. Then pass the dice to your "
     "left. The mini Bunco is marked on the roller's own sheet."),
]


def every_night():
    """Each preset, and each preset with each option changed to each of its choices (where the
    rules allow it), so that every branch of every sentence is read."""
    for name, preset in PRESETS.items():
        yield name, preset
        for f in dataclasses.fields(Rules):
            choices = f.metadata["choices"]
            if f.name == "prizes":
                choices = [(), ("most_wins",), ("overall", "traveling"), choices]
            elif f.name == "round_minutes":
                choices = (1, 2)
            for value in choices:
                for extra in ({}, {"team_size": 1, "rotation": "none"}, {"traveling": "bunco"}):
                    try:
                        yield name, dataclasses.replace(preset, **{**extra, f.name: value})
                    except RulesError:
                        pass


NIGHTS = list(every_night())


def bracketed(message):
    return f"[{message}]"


def bracketed_plural(singular, plural, n):
    return f"[{singular if n == 1 else plural}]"


def outside_brackets(text):
    """The characters of `text` not inside any [...]: what no gettext call went through."""
    depth, left = 0, []
    for char in text:
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
        elif depth == 0:
            left.append(char)
    assert depth == 0, text
    return "".join(left)


def test_the_standard_sheet_reads_as_it_did():
    assert rules_sentences(PRESETS["standard"], 3) == STANDARD_SHEET


@pytest.mark.parametrize("rules, heading, text", ENGLISH, ids=[e[1] for e in ENGLISH])
def test_a_sentence_put_together_from_choices_reads_as_it_did(rules, heading, text):
    assert dict(rules_sentences(rules))[heading] == text


def test_without_gettext_the_sheet_is_the_english_one():
    def same(message):
        return message

    def same_plural(singular, plural, n):
        return singular if n == 1 else plural

    for _name, rules in NIGHTS[::7]:
        for tables in (None, 1, 2, 3):
            assert rules_sentences(rules, tables, "split") == rules_sentences(
                rules, tables, "split", gettext=same, ngettext=same_plural
            )


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_word_of_every_sentence_goes_through_gettext(preset):
    for name, rules in NIGHTS:
        if name != preset:
            continue
        for tables in (None, 1, 2, 3):
            for tied in ("rolloff", "split"):
                sheet = rules_sentences(
                    rules, tables, tied, gettext=bracketed, ngettext=bracketed_plural
                )
                for heading, text in sheet:
                    assert outside_brackets(text).strip() == "", (heading, text)
                    # "Bunco" is the game's name in every language.
                    assert heading == "Bunco" or outside_brackets(heading) == "", heading


def written_messages(*names):
    """The literal messages of every call to `names` in scoring/, as makemessages reads them."""
    found = set()
    for path in SCORING.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in names
            ):
                found.update(
                    arg.value
                    for arg in node.args
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
                )
    return found


def test_every_message_the_sheet_asks_for_is_written_where_makemessages_finds_it():
    """No message reaches gettext from a variable or an f-string: each one is a literal in a
    `_()` or `ngettext()` call, so the catalogue holds it."""
    written = written_messages("_", "ngettext")
    asked = set()

    def recording(message):
        asked.add(message)
        return message

    def recording_plural(singular, plural, n):
        asked.update((singular, plural))
        return singular if n == 1 else plural

    for _name, rules in NIGHTS:
        for tables in (None, 1, 2, 3):
            for tied in ("rolloff", "split"):
                rules_sentences(
                    rules, tables, tied, gettext=recording, ngettext=recording_plural
                )
    assert asked - written == set()
    assert written - asked == set()  # and each one written is read on some night


def test_a_translation_keeps_the_night_s_own_values():
    french = {
        "Each round lasts %(minutes)s minute on the host's clock, and the bell rings when time "
        "is up (the host may ring it sooner). Reaching a score ends nothing.":
        "Chaque manche dure %(minutes)s minute.",
        "Each round lasts %(minutes)s minutes on the host's clock, and the bell rings when time "
        "is up (the host may ring it sooner). Reaching a score ends nothing.":
        "Chaque manche dure %(minutes)s minutes.",
        "%(list)s and %(prize)s": "%(list)s et %(prize)s",
        "the most wins": "le plus de victoires",
        "the night's last Bunco": "le dernier Bunco de la soirée",
    }

    def gettext(message):
        return french.get(message, message)

    def ngettext(singular, plural, n):
        return gettext(singular if n == 1 else plural)

    sheet = dict(
        rules_sentences(
            Rules(round_end="timed", round_minutes=15, prizes=("most_wins", "last_bunco")),
            gettext=gettext,
            ngettext=ngettext,
        )
    )
    assert sheet["End of a round"].startswith("Chaque manche dure 15 minutes. After the bell")
    assert sheet["Prizes"].startswith(
        "Prizes for le plus de victoires et le dernier Bunco de la soirée. "
    )
