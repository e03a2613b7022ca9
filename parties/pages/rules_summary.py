"""The host's list of the night's rules: every option as set, each with its help, as the host
page shows it; and an option's label, which the create form's fields share."""

import dataclasses

from django.utils.translation import gettext, pgettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

# Options that mean nothing without teams: individual play shows no partners anywhere.
TEAM_ONLY = {"partners"}


# Options that mean nothing while the fuzzy die is off (or not taken by a triple).
TRAVELING_ONLY = {"traveling_triple": "triple", "fuzzy_die_starts": ("triple", "bunco")}


# Each option's label and each prize category's name, as a person reads them (in English, the
# name with its underscores as spaces, capitalized: `break_after_set` is "Break after set").
LABELS = {
    "dice": _("Dice"),
    "play_to": _("Play to"),
    "round_end": _("Round end"),
    "round_minutes": _("Round minutes"),
    "bunco_ends_round": _("Bunco ends round"),
    "bunco_must_be_called": _("Bunco must be called"),
    "mini_bunco_must_be_called": _("Mini bunco must be called"),
    "mini_bunco_points": _("Mini bunco points"),
    "mini_bunco_ends_turn": _("Mini bunco ends turn"),
    "bunco_ends_turn": _("Bunco ends turn"),
    "finish_turn_after_bell": _("Finish turn after bell"),
    "tie_break": _("Tie break"),
    "rotation": _("Rotation"),
    "partners": _("Partners"),
    "team_size": _("Team size"),
    "small_group": _("Small group"),
    "sets": _("Sets"),
    "break_after_set": _("Break after set"),
    "traveling": _("Traveling"),
    "traveling_triple": _("Traveling triple"),
    "fuzzy_die_starts": _("Fuzzy die starts"),
    "prizes": _("Prizes"),
    "overall_tiebreak": _("Overall tiebreak"),
    # the prize categories (the prizes option's choices)
    "most_wins": _("Most wins"),
    "most_buncos": _("Most Buncos"),
    "most_losses": _("Most losses"),
    "most_mini_buncos": _("Most mini Buncos"),
    "even_wins_losses": _("As many wins as losses"),
    "last_bunco": _("Last Bunco"),
    "highest_points": _("Highest points"),
    "lowest_points": _("Lowest points"),
    "overall": _("Overall"),
}


# Each choice of an option, as the create form and the host's list show it (in English, the
# value with its underscores as spaces).
CHOICE_WORDS = {
    "head_table": _("head table"),
    "each_table": _("each table"),
    "timed": _("timed"),
    "normal": _("normal"),
    "everywhere": _("everywhere"),
    "sum": _("sum"),
    "rolloff_turns": _("rolloff turns"),
    "rolloff_dice_total": _("rolloff dice total"),
    "ladder": _("ladder"),
    "head_losers_to_bottom": _("head losers to bottom"),
    "losers_down_wrap": _("losers down wrap"),
    "none": pgettext_lazy("rotation", "none"),
    "new_every_round": _("new every round"),
    "movers_keep_partners": _("movers keep partners"),
    "ghosts": _("ghosts"),
    "boxed_plans": _("boxed plans"),
    "off": _("off"),
    "triple": _("triple"),
    "bunco": _("bunco"),
    "nobody": _("nobody"),
    "points": _("points"),
    "buncos": _("buncos"),
}


def option_label(name):
    """An option's (or a prize category's) name as a person reads it: `break_after_set` is
    "Break after set"."""
    label = LABELS.get(name)
    return str(label) if label is not None else name.replace("_", " ").capitalize()


def choice_label(value):
    """A choice of an option as a person reads it: `head_table` is "head table", 21 is "21"."""
    words = CHOICE_WORDS.get(value) if isinstance(value, str) else None
    return str(words) if words is not None else str(value).replace("_", " ")


def _shown(value):
    if isinstance(value, bool):
        return gettext("yes") if value else gettext("no")
    if isinstance(value, tuple):
        return ", ".join(option_label(item) for item in value) or pgettext("prizes", "none")
    return choice_label(value)


def _options(rules):
    return [(f.name, getattr(rules, f.name), f.metadata["help"]) for f in dataclasses.fields(rules)]


def _row(name, value, help_text):
    # The help is scoring's English (marked there for makemessages), read in the reader's language.
    return option_label(name), _shown(value), gettext(help_text) if help_text else ""


def every_option(rules):
    """(label, value, help) for every option of `rules`, in the fields' order."""
    return [_row(*option) for option in _options(rules)]


def rules_summary(rules):
    """The host's list of every option as set, without those that mean nothing tonight (the
    team options in individual play, the traveling triple while the fuzzy die is off)."""
    return [
        _row(name, value, help_text)
        for name, value, help_text in _options(rules)
        if not (rules.team_size == 1 and name in TEAM_ONLY)
        and (name not in TRAVELING_ONLY or rules.traveling in TRAVELING_ONLY[name])
    ]
