"""The prize pot on the results page: what each prize carries and who takes home what
(scoring.pot splits it), and the shares as the host's form shows them (parties.services.pot
saves the form)."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _

from parties import selectors
from parties.money import currency_label, money_text
from scoring.pot import CURRENCIES, apportion, split_pot, typed_money


@dataclass(frozen=True)
class PrizeMoney:
    key: str
    amount: str  # "$25.00": what the prize carries tonight ("" when nobody won it)
    winners: list  # (name, "$12.50") once settled
    note: str  # "to the roll-off's winner", "nobody won it: shared by the other prizes"
    share: str  # the host's share as entered ("25", "25.00"), for the form


@dataclass(frozen=True)
class PotView:
    on: bool
    buy_in: str
    players: int
    total: str
    tied: str
    unit: str
    prizes: list  # PrizeMoney, in the prizes' order
    take_home: list  # (name, "$37.00"), most first
    waiting: list  # (prize label, "$24.00"): money not taken home until a roll-off is played
    currency: str  # its code: "USD"
    take_home_cents: dict  # name -> cents, for the files
    currencies: list  # (code, label) the form offers


def pot_view(party, prize_rows) -> PotView:
    pot = party.prize_pot
    players = selectors.buy_ins(party)
    names = {}
    winners = {}
    for row in prize_rows:
        winners[row.key] = [str(pid) for pid, _ in row.winners]
        names.update({str(pid): name for pid, name in row.winners})
    split = split_pot(pot, players, winners)
    currency = party.pot_currency

    def money(cents):
        return money_text(cents, currency)

    shares = _shares_as_typed(pot, list(winners), players)
    prizes = []
    for row in prize_rows:
        cents = split.per_prize.get(row.key, 0)
        if row.key in split.unwon:
            note = _("nobody won it: its share went to the other prizes")
        elif row.key in split.unsettled:
            note = _("to the roll-off's winner")
        elif len(row.winners) > 1:
            note = _("split between the tied players")
        else:
            note = ""
        paid = split.per_winner.get(row.key, {})
        shown = shares.get(row.key, "")
        amount = "" if row.key in split.unwon else money(cents)  # not "0.00": it has none
        prizes.append(PrizeMoney(
            row.key, amount, [(names[p], money(c)) for p, c in paid.items()], note, shown
        ))
    take_home = sorted(split.take_home().items(), key=lambda item: (-item[1], names[item[0]]))
    currencies = [(code, currency_label(code)) for code in CURRENCIES]
    return PotView(
        on=pot.on,
        buy_in=money(pot.buy_in_cents) if pot.on else "",
        players=players,
        total=money(split.total),
        tied=pot.tied,
        unit=pot.unit,
        prizes=prizes,
        take_home=[(names[p], money(c)) for p, c in take_home],
        waiting=[
            (row.label, money(split.per_prize.get(row.key, 0)))
            for row in prize_rows
            if row.key in split.unsettled
        ],
        currency=currency,
        take_home_cents={names[p]: c for p, c in take_home},
        currencies=currencies,
    )


def _shares_as_typed(pot, prize_keys, players):
    """Each prize's share as the form shows it, ready to be saved again unchanged: the
    percentage, or the amount it carries in tonight's pot (the amounts the host typed, grown
    or shrunk in proportion if players came or went since, so they still make the pot)."""
    if not pot.shares:
        return {}
    if pot.unit == "percent":
        return {key: str(weight) for key, weight in pot.shares}
    weights = pot.weights(prize_keys)
    if not pot.on or not any(weights.values()):
        return {key: typed_money(weight) for key, weight in pot.shares}
    return {
        key: typed_money(cents)
        for key, cents in apportion(pot.total(players), weights).items()
    }
