"""The create form's plan preview: the tables a party of the typed count would sit at."""

from dataclasses import dataclass, fields

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from parties.party_limits import party_size_problem
from scoring import Rules, RulesError
from scoring.seating import ghosts_needed, plan_for
from scoring.small_groups import FEWEST, MOST


@dataclass(frozen=True)
class PlannedTable:
    number: int
    size: int
    alone: bool

    @property
    def words(self):
        if not self.alone:
            return _("4 in two teams, partners across")
        return ngettext(
            "%(count)s playing alone, each for themself",
            "%(count)s playing alone, each for themself",
            self.size,
        ) % {"count": self.size}


def preview_context(form):
    """What the plan partial shows for the create form as it stands (sent or first drawn)."""
    rules, count = _rules_and_count(form)
    context = {"count": count, "tables": [], "ghosts": 0, "problem": "", "hint": ""}
    if rules is None:
        context["problem"] = _("Fix the rules below to see the tables.")
        return context
    if count == 0:
        return context
    context["problem"] = party_size_problem(count, rules)
    if context["problem"]:
        return context
    context["tables"] = [
        PlannedTable(number, table.size, table.alone)
        for number, table in enumerate(plan_for(count, rules), start=1)
    ]
    context["ghosts"] = ghosts_needed(count, rules)
    if rules.small_group == "ghosts" and rules.team_size == 2 and FEWEST <= count <= MOST:
        context["hint"] = "boxed"
    return context


def _rules_and_count(form):
    if form.is_bound:
        form.is_valid()  # runs once; the page shows the same errors
        rules = form.cleaned_data.get("rules")
        text = form.data.get("players", "")
    else:
        initial = {n: form[n].initial for n in form.fields}
        options = {f.name: initial[f.name] for f in fields(Rules)}
        try:
            rules = Rules.from_options(options)
        except RulesError:
            rules = None
        text = initial.get("players") or ""
    if "players" in getattr(form, "cleaned_data", {}):
        return rules, len(form.cleaned_data["players"])
    return rules, _lines(text)


def _lines(text):
    # A list with mistakes still has a count; its errors are shown beside the list.
    return len([line for line in str(text).splitlines() if line.strip()])
