"""The live facts the host's page states besides the tables: who is playing, what is happening,
the rules' name, the fuzzy die, and which seat changes the host may make now."""

from parties import selectors
from parties.forms import rules_summary as all_rules
from parties.selectors import reseat_allowed
from scoring.rules_text import rules_sentences


def host_context(party, round_, tables) -> dict:
    reseat = reseat_allowed(party, round_)
    return {
        "facts": selectors.host_facts(party, round_, tables),
        "fuzzy_die": selectors.fuzzy_die(party),
        "reseat": reseat,
        "can_reseat": bool(reseat),
        "offer_keep_score": "host",
        "rules_summary": rules_summary(party.rules),
        "rules_sentences": rules_sentences(party.rules, len(tables), party.prize_pot.tied),
    }


# Options that mean nothing without teams: individual play shows no partners anywhere.
TEAM_ONLY = {"Partners"}


# Options that mean nothing while the fuzzy die is off (or not taken by a triple).
TRAVELING_ONLY = {"Traveling triple": "triple", "Fuzzy die starts": ("triple", "bunco")}


def rules_summary(rules):
    """The host's list of every option as set, without those that mean nothing tonight (the
    team options in individual play, the traveling triple while the fuzzy die is off)."""
    rows = all_rules(rules)
    if rules.team_size == 1:
        rows = [row for row in rows if row[0] not in TEAM_ONLY]
    return [
        row for row in rows
        if row[0] not in TRAVELING_ONLY or rules.traveling in TRAVELING_ONLY[row[0]]
    ]
