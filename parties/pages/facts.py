"""The live facts the host's page states besides the tables: who is playing, what is happening,
the rules' name, the fuzzy die, and which seat changes the host may make now."""

from django.utils.translation import gettext, ngettext

from parties import selectors
from parties.pages.rules_summary import rules_summary
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
        "rules_sentences": rules_sentences(
            party.rules, len(tables), party.prize_pot.tied, gettext=gettext, ngettext=ngettext
        ),
    }
