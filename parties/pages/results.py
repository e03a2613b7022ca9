"""The results page's context: the standings, the prizes with their money, the pot, and the
host's pot form as the host last typed it when it could not be saved."""

from dataclasses import dataclass

from django.utils.translation import get_language

from parties import selectors
from parties.money import default_currency
from parties.pages import corrections as correction_context
from parties.pages import pot as pot_view


@dataclass(frozen=True)
class PotFormAgain:
    """The pot form sent back: what the host typed, the refusal, and the field it is about
    ("buy_in" or "shares")."""

    values: dict
    error: str
    field: str

    def share(self, key):
        return self.values.get(f"share-{key}", "")


def results_context(party, grant, request, pot_form=None):
    rows, prizes = selectors.party_results(party)
    pot = pot_view.pot_view(party, prizes)
    # The currency the form offers first: the one typed, the pot's, or (no pot saved yet) the
    # host's, from their language and the country their browser says.
    currency = (
        pot_form.values.get("currency") if pot_form else None
    ) or party.prize_pot.currency or default_currency(
        get_language(), request.headers.get("Accept-Language", "")
    )
    shown = [(prize, money) for prize, money in zip(prizes, pot.prizes, strict=True)]
    return {
        "party": party,
        "rows": rows,
        "prizes": shown,
        "pot": pot,
        "currency": currency,
        "pot_form": pot_form,
        "form_shares": [
            (prize, pot_form.share(prize.key) if pot_form else money.share)
            for prize, money in shown
        ],
        "grant": grant,
        "corrections": correction_context.audit_lines(party),
    }
