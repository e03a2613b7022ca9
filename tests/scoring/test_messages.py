"""Scoring's refusals carry an English message id and its values, so the shell can show them in
the reader's language; their English text is as it was."""

import ast
import pickle
from pathlib import Path

import pytest

from scoring import InvalidRoll, NotAllowed, Progress, Rules, RulesError, SeatingError
from scoring.messages import RuleError, gettext_noop
from scoring.pot import Pot, PotError, parse_money
from scoring.quick import quick_dice
from scoring.roll import check_dice
from scoring.seating import check_seating, plan_for
from scoring.table import TableRound

SCORING = Path(__file__).resolve().parents[2] / "scoring"

# (what raises, its type, its English text as it always read)
REFUSALS = [
    (lambda: check_dice([1, 2], 3), InvalidRoll,
     "a roll has 3 dice, but 2 were entered: [1, 2]"),
    (lambda: check_dice([1, 2, 7], 3), InvalidRoll, "each die shows 1 to 6, not 7"),
    (lambda: quick_dice("mini", 2, Rules(), 2), InvalidRoll,
     "A mini Bunco is three of a number other than 2"),
    (lambda: quick_dice("mini", 2, Rules(mini_bunco_points="sum")), InvalidRoll,
     "Which number was the mini Bunco?"),
    (lambda: Progress(Rules()).resume(), NotAllowed, "the party is not on a break"),
    (lambda: Progress(Rules(), state="over").round_over(), NotAllowed,
     "no round is being played (the party is at over)"),
    (lambda: TableRound.start(("a", "b", "c", "d"), Rules(), 1, first_seat=5), NotAllowed,
     "the scorekeeper sits in seat 1 to 4, not 5"),
    (lambda: plan_for(3, Rules()), SeatingError,
     "teams with ghosts need at least 4 players, not 3: pick the boxed set's table plans (small "
     "group: boxed plans, or the boxed_small preset) to play with 2 or 3"),
    (lambda: check_seating([["a", "b", "c", "d"]], Rules(), frozenset({"a", "c"})), SeatingError,
     "two ghosts are partners at table 1; a ghost needs a real partner"),
    (lambda: Rules(sets=3, break_after_set=3), RulesError,
     "break_after_set must be 0 or 1 to 2 (a break comes between sets) with sets=3, not 3"),
    (lambda: Rules(round_minutes="5"), RulesError,
     "round_minutes must be int (one of 1 to 60), not '5'"),
    (lambda: Rules(dice=5), RulesError, "dice must be one of 3, 4, not 5"),
    (lambda: Rules(small_group="boxed_plans"), RulesError,
     "small_group 'boxed_plans' needs dice=4 (the boxed set plays its plans that way), not 3"),
    (lambda: Rules.from_options({"x": 1, "y": 2}), RulesError, "unknown option(s): x, y"),
    (lambda: Pot(unit="x"), PotError, "the shares are in percent or amount, not 'x'"),
    (lambda: Pot(shares=(("a", 30), ("b", 20))), PotError,
     "the percentages add up to 50, not 100"),
    (lambda: parse_money(" 5x% "), PotError, "“5x%” is not an amount like 6 or 6.50"),
]


def refusal(raises):
    with pytest.raises(RuleError) as caught:
        raises()
    return caught.value


def marked_messages():
    """Every literal in a gettext_noop() call in scoring/: the ids makemessages extracts."""
    return {
        node.args[0].value
        for path in SCORING.glob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "gettext_noop"
        and isinstance(node.args[0], ast.Constant)
    }


@pytest.mark.parametrize("raises, kind, english", REFUSALS, ids=[r[2][:40] for r in REFUSALS])
def test_a_refusal_reads_as_it_did_and_carries_its_message_id(raises, kind, english):
    error = refusal(raises)
    assert type(error) is kind and isinstance(error, ValueError)
    assert str(error) == english
    assert error.msgid % error.params == english
    assert error.msgid in marked_messages()


def test_a_refusal_names_its_values():
    error = refusal(lambda: check_dice([1, 2], 3))
    assert error.msgid == "a roll has %(count)s dice, but %(entered)s were entered: %(dice)s"
    assert error.params == {"count": 3, "entered": 2, "dice": [1, 2]}
    rules = refusal(lambda: Rules(dice=5))
    assert rules.params["option"] == "dice"  # the form's field, whatever the language


def test_a_translation_puts_the_values_where_the_language_wants_them():
    french = {
        "two ghosts are partners at table %(table)s; a ghost needs a real partner":
        "à la table %(table)s, deux fantômes sont partenaires",
    }
    error = refusal(lambda: check_seating([["a", "b", "c", "d"]], Rules(), frozenset({"a", "c"})))
    assert french[error.msgid] % error.params == "à la table 1, deux fantômes sont partenaires"


def test_a_message_without_values_keeps_its_percent_signs():
    """The shell may raise scoring's errors with a finished text (a typed "50%" in it): the
    text is its own message id, and `msgid % params` still gives it back."""
    error = PotError("“50%” is not a whole percentage")
    assert str(error) == "“50%” is not a whole percentage"
    assert error.msgid % error.params == str(error) and error.params == {}


def test_a_refusal_survives_a_pickle():
    error = refusal(lambda: check_dice([1, 2], 3))
    again = pickle.loads(pickle.dumps(error))  # noqa: S301 - our own bytes
    assert type(again) is InvalidRoll
    assert (str(again), again.msgid, again.params) == (str(error), error.msgid, error.params)


def test_gettext_noop_changes_nothing():
    assert gettext_noop("the party is already over") == "the party is already over"
