"""Writes to the prize pot: the host sets the buy-in and each prize's share (scoring.pot splits
it; no score or prize changes)."""

from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from parties import selectors
from parties.models import Party
from parties.money import money_text
from parties.services.changes import lock_party, party_changed
from parties.services.errors import PartyError
from parties.translation import rule_error_text
from scoring.pot import CURRENCIES, Pot, PotError, parse_money


@transaction.atomic
def pot_set(*, party: Party, data) -> Pot:
    """Save the pot the host entered; it changes no score or prize, only the money."""
    lock_party(party)
    _rows, prize_rows = selectors.party_results(party)
    # A client that sends no currency keeps the pot's: only the page's form offers the choice.
    data = {"currency": party.pot_currency, **{key: data.get(key) for key in data}}
    pot = pot_from_form(data, [row.key for row in prize_rows], selectors.buy_ins(party))
    Party.objects.filter(pk=party.pk).update(pot=pot.to_dict())
    party.pot = pot.to_dict()
    party_changed(party, "pot")  # the results, the TV and the players' sheets show the money
    return pot


class PotFormError(PartyError):
    """The host's pot form cannot be saved: the message (in the host's language), and the field
    to fix ("currency", "buy_in" or "shares"), so the page can show it beside that field."""

    def __init__(self, message, field):
        super().__init__(message)
        self.field = field


def pot_from_form(data, prize_keys, players) -> Pot:
    """The host's form as a Pot, or PotFormError saying what to fix (nothing is saved)."""
    currency = data.get("currency", "")
    if currency not in CURRENCIES:
        raise PotFormError(_("Choose the pot's currency from the list."), "currency")
    try:
        buy_in = parse_money(data.get("buy_in", ""))
    except PotError as error:
        raise PotFormError(
            _("The buy-in: %(problem)s.") % {"problem": rule_error_text(error)}, "buy_in"
        ) from None
    try:
        unit = data.get("unit", "percent")
        typed = {key: data.get(f"share-{key}", "").strip() for key in prize_keys}
        if unit == "amount":
            shares = {key: parse_money(text) for key, text in typed.items() if text}
        else:
            shares = {key: _percent(text) for key, text in typed.items() if text}
        if shares and len(shares) < len(prize_keys):
            missing = [selectors.prize_label(key).lower() for key in prize_keys
                       if key not in shares]
            raise PotError(
                gettext_noop("give every prize a share, or none for equal shares (%(missing)s)"),
                missing=", ".join(missing),
            )
        pot = Pot(buy_in, tuple(shares.items()), unit, data.get("tied", "rolloff"), currency)
    except PotError as error:
        raise PotFormError(
            _("The shares: %(problem)s.") % {"problem": rule_error_text(error)}, "shares"
        ) from None
    if unit == "amount" and shares and sum(shares.values()) != pot.total(players):
        raise PotFormError(
            ngettext(
                "The shares: the amounts add up to %(shares)s, but the pot is %(pot)s "
                "(%(count)s player × %(buy_in)s).",
                "The shares: the amounts add up to %(shares)s, but the pot is %(pot)s "
                "(%(count)s players × %(buy_in)s).",
                players,
            )
            % {
                "shares": money_text(sum(shares.values()), currency),
                "pot": money_text(pot.total(players), currency),
                "count": players,
                "buy_in": money_text(buy_in, currency),
            },
            "shares",
        )
    return pot


def _percent(text):
    if not (text.isascii() and text.isdigit()):  # "²" is a digit to isdigit, not to int
        raise PotError(gettext_noop("“%(text)s” is not a whole percentage"), text=text)
    return int(text)
