"""The host's list of the night's rules: every option as set, each with its help, as the host
page shows it; and an option's label, which the create form's fields share."""

import dataclasses

# Options that mean nothing without teams: individual play shows no partners anywhere.
TEAM_ONLY = {"Partners"}


# Options that mean nothing while the fuzzy die is off (or not taken by a triple).
TRAVELING_ONLY = {"Traveling triple": "triple", "Fuzzy die starts": ("triple", "bunco")}


def option_label(name):
    """An option's (or a choice's) name as a person reads it: `break_after_set` is "Break after
    set"."""
    return name.replace("_", " ").capitalize()


def _shown(value):
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, tuple):
        return ", ".join(option_label(item) for item in value) or "none"
    return str(value).replace("_", " ")


def every_option(rules):
    """(label, value, help) for every option of `rules`, in the fields' order."""
    return [
        (option_label(f.name), _shown(getattr(rules, f.name)), f.metadata["help"])
        for f in dataclasses.fields(rules)
    ]


def rules_summary(rules):
    """The host's list of every option as set, without those that mean nothing tonight (the
    team options in individual play, the traveling triple while the fuzzy die is off)."""
    rows = every_option(rules)
    if rules.team_size == 1:
        rows = [row for row in rows if row[0] not in TEAM_ONLY]
    return [
        row for row in rows
        if row[0] not in TRAVELING_ONLY or rules.traveling in TRAVELING_ONLY[row[0]]
    ]
