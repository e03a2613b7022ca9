"""The house rules of a Bunco party as one frozen value, and the named presets (docs/rules.md)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from scoring.messages import RuleError, gettext_noop

# docs/rules.md section 9, in the order it lists them.
PRIZE_CATEGORIES: tuple[str, ...] = (
    "most_wins",
    "most_buncos",
    "most_losses",
    "most_mini_buncos",
    "even_wins_losses",
    "last_bunco",
    "traveling",
    "highest_points",
    "lowest_points",
    "overall",
)


class RulesError(RuleError):
    """A set of options that cannot be played; the message names the option (`params["option"]`
    where it starts with one)."""


def _option(default: Any, help: str, choices: tuple) -> Any:
    return field(default=default, metadata={"help": help, "choices": choices})


@dataclass(frozen=True)
class Rules:
    """Every option a host picks when creating a party; `Rules()` is the standard preset."""

    # Each option's help is what a person reads of it (the create form, the host's list):
    # marked here for makemessages, translated where it is shown.
    dice: int = _option(
        3, gettext_noop("How many dice each roll uses (4 is the boxed party set)."), (3, 4)
    )
    play_to: int = _option(
        21, gettext_noop("The points that end a round (11 for shorter rounds)."), (21, 11)
    )
    round_end: str = _option(
        "head_table",
        gettext_noop(
            "What ends a round: the head table reaching the score, each table alone, or the clock."
        ),
        ("head_table", "each_table", "timed"),
    )
    round_minutes: int = _option(
        10,
        gettext_noop("Minutes a timed round lasts (only when rounds are timed)."),
        tuple(range(1, 61)),
    )
    bunco_ends_round: str = _option(
        "normal",
        gettext_noop("Whether a Bunco at any table ends the round for every table."),
        ("normal", "everywhere"),
    )
    bunco_must_be_called: bool = _option(
        True, gettext_noop("A Bunco scores only if the roller calls out 'Bunco'."), (True, False)
    )
    mini_bunco_must_be_called: bool = _option(
        False, gettext_noop("A mini Bunco scores only if the roller calls it out."), (True, False)
    )
    mini_bunco_points: str = _option(
        "5",
        gettext_noop("What a mini Bunco scores: 5, or the faces added up (three 4s = 12)."),
        ("5", "sum"),
    )
    mini_bunco_ends_turn: bool = _option(
        False, gettext_noop("After a mini Bunco scores, the dice pass to the left."), (True, False)
    )
    bunco_ends_turn: bool = _option(
        False, gettext_noop("After a Bunco scores, the dice pass to the left."), (True, False)
    )
    finish_turn_after_bell: bool = _option(
        True,
        gettext_noop(
            "After the bell, whoever is rolling finishes the turn (off: every table stops at "
            "once)."
        ),
        (True, False),
    )
    tie_break: str = _option(
        "rolloff_turns",
        gettext_noop(
            "How a tie is settled: everyone takes a turn again, or one roller a team adds up the "
            "dice."
        ),
        ("rolloff_turns", "rolloff_dice_total"),
    )
    rotation: str = _option(
        "ladder",
        gettext_noop("How teams change tables after a round."),
        ("ladder", "head_losers_to_bottom", "losers_down_wrap", "none"),
    )
    partners: str = _option(
        "new_every_round",
        gettext_noop(
            "A new partner every round, or pairs that move to a table together stay partners."
        ),
        ("new_every_round", "movers_keep_partners"),
    )
    team_size: int = _option(
        2,
        gettext_noop(
            "Players a team: 2 (two a side, across the table) or 1 (everyone plays alone)."
        ),
        (2, 1),
    )
    small_group: str = _option(
        "ghosts",
        gettext_noop(
            "How a group that is not a multiple of 4 sits: ghosts fill the empty seats, or the "
            "boxed set's table plans for 2 to 10 players (some tables play alone, 4 dice)."
        ),
        ("ghosts", "boxed_plans"),
    )
    sets: int = _option(
        2, gettext_noop("How many sets of 6 rounds the party plays."), (1, 2, 3, 4)
    )
    break_after_set: int = _option(
        0, gettext_noop("The set after which the party takes a break (0: no break)."), (0, 1, 2, 3)
    )
    traveling: str = _option(
        "off",
        gettext_noop(
            "The fuzzy die: off, to whoever rolls the chosen three of a kind, or to each Bunco "
            "roller."
        ),
        ("off", "triple", "bunco"),
    )
    traveling_triple: int = _option(
        2,
        gettext_noop("The three of a kind that takes the fuzzy die (2 means 2-2-2)."),
        (1, 2, 3, 4, 5, 6),
    )
    fuzzy_die_starts: str = _option(
        "nobody",
        gettext_noop(
            "Who holds the fuzzy die when the night starts: nobody until the first taker, or the "
            "head table's scorekeeper."
        ),
        ("nobody", "head_table"),
    )
    prizes: tuple[str, ...] = _option(
        ("most_wins", "most_buncos", "most_losses"),
        gettext_noop("The prize categories awarded at the end of the night."),
        PRIZE_CATEGORIES,
    )
    overall_tiebreak: str = _option(
        "points",
        gettext_noop(
            "What breaks a tie for the overall winner (most wins): personal points or most "
            "Buncos."
        ),
        ("points", "buncos"),
    )

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            _check_field(f, getattr(self, f.name))
        self._check_combination()

    def _check_combination(self) -> None:
        if self.small_group == "boxed_plans":
            self._check_boxed_plans()
        if self.team_size == 1 and self.rotation != "none":
            raise RulesError(
                gettext_noop(
                    "%(option)s must be 'none' when team_size is 1 (individual play has no "
                    "teams to move), not %(value)r"
                ),
                option="rotation",
                value=self.rotation,
            )
        if self.break_after_set and self.break_after_set >= self.sets:
            self._refuse_break()
        if self.dice == 4 and self.mini_bunco_points == "sum":
            raise RulesError(
                gettext_noop(
                    "%(option)s 'sum' needs dice=3: with four dice four of a kind scores "
                    "5 (lower than the target) or 7 (higher)"
                ),
                option="mini_bunco_points",
            )
        if self.dice == 4 and self.traveling == "triple":
            raise RulesError(
                gettext_noop(
                    "%(option)s 'triple' needs dice=3: with four dice a three of a kind is not "
                    "special"
                ),
                option="traveling",
            )
        if self.fuzzy_die_starts != "nobody" and self.traveling == "off":
            raise RulesError(
                gettext_noop(
                    "%(option)s %(value)r needs traveling to be 'triple' or 'bunco' (with "
                    "traveling off there is no fuzzy die)"
                ),
                option="fuzzy_die_starts",
                value=self.fuzzy_die_starts,
            )
        if "traveling" in self.prizes and self.traveling == "off":
            raise RulesError(
                gettext_noop("the 'traveling' prize needs traveling to be 'triple' or 'bunco'")
            )

    def _refuse_break(self) -> None:
        if self.sets == 1:
            raise RulesError(
                gettext_noop(
                    "%(option)s must be 0 (a break comes between sets) with sets=%(sets)s, "
                    "not %(value)s"
                ),
                option="break_after_set",
                sets=self.sets,
                value=self.break_after_set,
            )
        raise RulesError(
            gettext_noop(
                "%(option)s must be 0 or 1 to %(last)s (a break comes between sets) with "
                "sets=%(sets)s, not %(value)s"
            ),
            option="break_after_set",
            last=self.sets - 1,
            sets=self.sets,
            value=self.break_after_set,
        )

    def _check_boxed_plans(self) -> None:
        # The boxed set's plans come with its own game (seed 000): 4 dice, each table plays to
        # the score by itself, a Bunco ends the round everywhere, losers move down a table.
        needs = {
            "team_size": 2,
            "dice": 4,
            "round_end": "each_table",
            "bunco_ends_round": "everywhere",
            "rotation": "losers_down_wrap",
        }
        for name, value in needs.items():
            if getattr(self, name) != value:
                why = (
                    gettext_noop(
                        "%(option)s 'boxed_plans' needs %(name)s=%(needed)r (the plans say "
                        "which tables play alone), not %(value)r"
                    )
                    if name == "team_size"
                    else gettext_noop(
                        "%(option)s 'boxed_plans' needs %(name)s=%(needed)r (the boxed set "
                        "plays its plans that way), not %(value)r"
                    )
                )
                raise RulesError(
                    why,
                    option="small_group",
                    name=name,
                    needed=value,
                    value=getattr(self, name),
                )

    def to_options(self) -> dict[str, Any]:
        """The options as a JSON-ready dict (tuples become lists)."""
        return {
            f.name: list(v) if isinstance(v := getattr(self, f.name), tuple) else v
            for f in dataclasses.fields(self)
        }

    @classmethod
    def from_options(cls, options: dict[str, Any]) -> Rules:
        """Rules from a dict such as `to_options()` gives; missing options take their defaults."""
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(options) - names)
        if unknown:
            raise RulesError(gettext_noop("unknown option(s): %(names)s"), names=", ".join(unknown))
        values = dict(options)
        if isinstance(values.get("prizes"), list):
            values["prizes"] = tuple(values["prizes"])
        return cls(**values)


def rules_name(preset: str, rules: Rules, *, gettext: Callable[[str], str] = gettext_noop) -> str:
    """What the rules are called: the preset's name while every option is as the preset sets
    it, else "custom rules" (the preset only filled in the form). `gettext` translates
    (django.utils.translation's, say); without it the name is in English."""
    base = PRESETS.get(preset)
    same = (
        base is not None
        and dataclasses.replace(rules, prizes=base.prizes) == base
        and set(rules.prizes) == set(base.prizes)  # the form lists prizes in its own order
    )
    return _preset_rules(preset, gettext) if same else gettext("custom rules")


def _preset_rules(preset: str, gettext: Callable[[str], str]) -> str:
    """A preset's rules by name, each written whole ("quick rules"): where "rules" has a gender
    and a number, the preset's word agrees with it."""
    names = {
        "standard": gettext("standard rules"),
        "wba": gettext("World Bunco Association rules"),
        "quick": gettext("quick rules"),
        "short": gettext("short (to 11) rules"),
        "boxed4": gettext("boxed set (4 dice) rules"),
        "boxed_small": gettext("boxed set, small group rules"),
        "tournament": gettext("tournament rules"),
    }
    if preset in names:
        return names[preset]
    # Translators: the rules of a preset, by its name (as the create form lists it, not
    # capitalised).
    return gettext("%(preset)s rules") % {"preset": gettext(PRESET_TITLES[preset])}


def _check_field(f: dataclasses.Field, value: Any) -> None:
    choices = f.metadata["choices"]
    if f.name == "prizes":
        if not isinstance(value, tuple) or not all(isinstance(p, str) for p in value):
            raise RulesError(
                gettext_noop("%(option)s must be a tuple of category names, not %(value)r"),
                option="prizes",
                value=value,
            )
        unknown = [p for p in value if p not in PRIZE_CATEGORIES]
        if unknown:
            raise RulesError(
                gettext_noop("%(option)s has unknown categories %(unknown)s; known: %(known)s"),
                option="prizes",
                unknown=unknown,
                known=", ".join(PRIZE_CATEGORIES),
            )
        if len(set(value)) != len(value):
            raise RulesError(
                gettext_noop("%(option)s lists a category twice: %(value)s"),
                option="prizes",
                value=list(value),
            )
        return
    expected = type(f.default)
    # bool is an int subclass: True must not pass for dice, nor 1 for a yes/no option.
    if type(value) is not expected:
        raise _choice_error(f.name, choices, value, expected.__name__)
    if value not in choices:
        raise _choice_error(f.name, choices, value)


def _choice_error(name: str, choices: tuple, value: Any, kind: str = "") -> RulesError:
    """The option `name` is not one of its `choices` (not even of their `kind`, where given)."""
    params = {"option": name, "value": value} | ({"kind": kind} if kind else {})
    if len(choices) > 6 and all(isinstance(c, int) for c in choices):
        msgid = (
            gettext_noop(
                "%(option)s must be %(kind)s (one of %(lowest)s to %(highest)s), not %(value)r"
            )
            if kind
            else gettext_noop("%(option)s must be one of %(lowest)s to %(highest)s, not %(value)r")
        )
        return RulesError(msgid, lowest=min(choices), highest=max(choices), **params)
    msgid = (
        gettext_noop("%(option)s must be %(kind)s (one of %(choices)s), not %(value)r")
        if kind
        else gettext_noop("%(option)s must be one of %(choices)s, not %(value)r")
    )
    return RulesError(msgid, choices=", ".join(repr(c) for c in choices), **params)


PRESETS: dict[str, Rules] = {
    "standard": Rules(),
    "wba": Rules(sets=4, break_after_set=2, traveling="bunco", fuzzy_die_starts="head_table"),
    "quick": Rules(round_end="each_table", rotation="head_losers_to_bottom", sets=1),
    "short": Rules(play_to=11),
    "boxed4": Rules(
        dice=4,
        round_end="each_table",
        bunco_ends_round="everywhere",
        traveling="bunco",
        overall_tiebreak="buncos",
    ),
    "tournament": Rules(
        team_size=1,
        round_end="timed",
        rotation="none",
        mini_bunco_ends_turn=True,
        bunco_ends_turn=True,
        bunco_must_be_called=True,
        mini_bunco_must_be_called=True,
        prizes=("highest_points", "most_buncos", "most_mini_buncos"),
    ),
}
# The boxed set's small-group game is its 4-dice game on its table plans.
PRESETS["boxed_small"] = dataclasses.replace(
    PRESETS["boxed4"], rotation="losers_down_wrap", small_group="boxed_plans"
)

# What a person reads for each preset: capitalised, its name in the create form's list; the keys
# are what forms and files store. The values are marked for makemessages and translated where
# they are shown (the English value is the message id).
PRESET_TITLES: dict[str, str] = {
    # Translators: the name of a preset of rules, in the create form's list (capitalised there).
    "standard": gettext_noop("standard"),
    "wba": gettext_noop("World Bunco Association"),
    # Translators: the name of a preset of rules (play to 21 at each table, 1 set).
    "quick": gettext_noop("quick"),
    # Translators: the name of a preset of rules (rounds to 11 points).
    "short": gettext_noop("short (to 11)"),
    "boxed4": gettext_noop("boxed set (4 dice)"),
    "boxed_small": gettext_noop("boxed set, small group"),
    # Translators: the name of a preset of rules (individual play on the clock).
    "tournament": gettext_noop("tournament"),
}

PRESET_HELP: dict[str, str] = {
    "standard": gettext_noop(
        "Dice Game Depot's rules: 3 dice, the head table's bell ends each round at 21, "
        "ladder moves, 2 sets."
    ),
    "wba": gettext_noop(
        "World Bunco Association: standard play, 4 sets with a break after set 2, "
        "the fuzzy die starts at the head table and goes to Bunco rollers."
    ),
    "quick": gettext_noop(
        "Wikipedia's game: each table plays to 21 on its own, head losers drop to the bottom, "
        "1 set."
    ),
    "short": gettext_noop("Standard play with rounds to 11 points instead of 21."),
    "boxed4": gettext_noop(
        "The boxed party set: 4 dice, each table plays to 21, a Bunco anywhere ends the "
        "round everywhere."
    ),
    "boxed_small": gettext_noop(
        "The boxed set for 2 to 10 players: its table plans (some tables play alone), "
        "4 dice, each table plays to 21, a Bunco anywhere ends the round everywhere."
    ),
    "tournament": gettext_noop(
        "Individual play on the clock: Little and Big Buncos must be called and end the "
        "turn; personal points win."
    ),
}
