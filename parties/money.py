"""Money as a person reads it: the pot's currency until the host picks one, and an amount in the
reader's language (its separators, and the symbol where its catalog puts it). scoring.pot keeps
the cents; the files keep plain numbers."""

from decimal import Decimal

from django.utils.formats import number_format
from django.utils.translation import gettext, pgettext

from scoring.pot import CURRENCIES

# The currency a pot is in until its host picks one: the host's country's, where the browser
# says it (es-MX), else the language's most likely one.
REGION_CURRENCIES = {
    "US": "USD", "CA": "CAD", "MX": "MXN", "GB": "GBP", "AU": "AUD", "CH": "CHF",
    **dict.fromkeys(("ES", "FR", "BE", "LU", "DE", "AT", "IT", "PT", "IE", "NL", "FI"), "EUR"),
}
LANGUAGE_CURRENCIES = {"en": "USD", "es": "EUR", "fr": "EUR"}


def default_currency(language, accept_language=""):
    """The currency a host's pot starts in: from the region of the first of the browser's
    languages (`Accept-Language`) that is in `language` ("es-MX" gives MXN), else from
    `language` alone."""
    for part in accept_language.split(","):
        tag = part.split(";")[0].strip().replace("_", "-")
        base, _, region = tag.partition("-")
        if base.lower() == language and region.upper() in REGION_CURRENCIES:
            return REGION_CURRENCIES[region.upper()]
    return LANGUAGE_CURRENCIES.get(language.split("-")[0], "USD")


def currency_label(code):
    """"US dollar ($, USD)", in the active language."""
    symbol, name = CURRENCIES[code]
    return f"{gettext(name)} ({symbol}, {code})" if symbol != code else f"{gettext(name)} ({code})"


def money_text(cents, currency):
    """An amount of `currency` for a person to read, in the active language's way: "$1,234.50",
    "1.234,50 €", "1 234,50 €"."""
    amount = number_format(
        Decimal(cents) / 100, decimal_pos=2, use_l10n=True, force_grouping=True
    )
    # Translators: an amount of money: put the currency's symbol where your language puts it
    # (no-break space between them where one goes), e.g. "%(amount)s %(symbol)s".
    symbol = CURRENCIES[currency][0]
    text = pgettext("money", "%(symbol)s%(amount)s") % {"symbol": symbol, "amount": amount}
    if symbol.isalpha():  # "CHF 5.00", never "CHF5.00"
        text = text.replace(symbol + amount, f"{symbol}\u00a0{amount}")
    return text
