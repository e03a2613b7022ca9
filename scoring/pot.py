"""The prize pot (docs/rules.md section 9): each player's buy-in, split between the prizes.

Money is whole cents, and every split is exact: the amounts always add up to the pot. The
host gives each prize a share, as percentages or as amounts; either way the shares are
weights, so when the pot changes (a late arrival buys in) every prize keeps its proportion,
and when the pot is what the amounts add up to, each prize gets exactly its amount.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from scoring.messages import RuleError, gettext_noop

TIED = ("rolloff", "split")
UNITS = ("percent", "amount")
# The currencies a pot may be in: each one's code, symbol and name. Amounts are whole cents in
# every one of them; the shell writes them with the reader's separators (parties.translation).
CURRENCIES = {
    "USD": ("$", gettext_noop("US dollar")),
    "CAD": ("$", gettext_noop("Canadian dollar")),
    "MXN": ("$", gettext_noop("Mexican peso")),
    "EUR": ("€", gettext_noop("euro")),
    "GBP": ("£", gettext_noop("pound sterling")),
    "AUD": ("$", gettext_noop("Australian dollar")),
    "CHF": ("CHF", gettext_noop("Swiss franc")),
}


class PotError(RuleError):
    """A pot that cannot be split as given."""


@dataclass(frozen=True)
class Pot:
    buy_in_cents: int = 0  # 0: no pot tonight
    shares: tuple[tuple[str, int], ...] = ()  # (prize category, weight); () means equal
    unit: str = "percent"  # how the host entered the shares (percent, or amount in cents)
    tied: str = "rolloff"  # a tied prize: settled by roll-off, or its money split
    currency: str = ""  # a code of CURRENCIES; "" (a pot saved before pots had one): the party's

    def __post_init__(self) -> None:
        if type(self.buy_in_cents) is not int or self.buy_in_cents < 0:
            raise PotError(gettext_noop("the buy-in is a whole number of cents, 0 or more"))
        if self.unit not in UNITS:
            raise PotError(
                gettext_noop("the shares are in %(first)s or %(second)s, not %(unit)r"),
                first=UNITS[0],
                second=UNITS[1],
                unit=self.unit,
            )
        if self.tied not in TIED:
            raise PotError(
                gettext_noop("a tied prize is settled by %(first)s or %(second)s, not %(tied)r"),
                first=TIED[0],
                second=TIED[1],
                tied=self.tied,
            )
        if self.currency and self.currency not in CURRENCIES:
            raise PotError(
                gettext_noop("%(currency)r is not a currency this pot can be in"),
                currency=self.currency,
            )
        names = [name for name, _ in self.shares]
        if len(set(names)) != len(names):
            raise PotError(gettext_noop("a prize has two shares"))
        if any(type(w) is not int or w < 0 for _, w in self.shares):
            raise PotError(gettext_noop("a share is a whole number, 0 or more"))
        if self.shares and not any(w for _, w in self.shares):
            raise PotError(gettext_noop("every share is 0: give at least one prize a share"))
        if self.unit == "percent" and self.shares and sum(w for _, w in self.shares) != 100:
            total = sum(w for _, w in self.shares)
            raise PotError(
                gettext_noop("the percentages add up to %(total)s, not 100"), total=total
            )

    @property
    def on(self) -> bool:
        return self.buy_in_cents > 0

    def total(self, players: int) -> int:
        return self.buy_in_cents * players

    def weights(self, prizes: Sequence[str]) -> dict[str, int]:
        """Each of tonight's prizes' weight: the host's shares, or equal shares."""
        given = dict(self.shares)
        if not given:
            return {prize: 1 for prize in prizes}
        return {prize: given.get(prize, 0) for prize in prizes}

    def to_dict(self) -> dict:
        return {
            "buy_in_cents": self.buy_in_cents,
            "shares": [[name, weight] for name, weight in self.shares],
            "unit": self.unit,
            "tied": self.tied,
            "currency": self.currency,
        }

    @classmethod
    def from_dict(cls, values: Mapping | None) -> Pot:
        values = dict(values or {})
        shares = tuple((str(name), weight) for name, weight in values.pop("shares", ()))
        return cls(shares=shares, **values)


@dataclass(frozen=True)
class PotSplit:
    total: int
    per_prize: dict[str, int]  # cents each prize carries (0 for a prize with no winner)
    per_winner: dict[str, dict[str, int]] = field(default_factory=dict)  # prize -> player -> cents
    unsettled: tuple[str, ...] = ()  # prizes whose roll-off is still to be rolled
    unwon: tuple[str, ...] = ()  # prizes nobody won, whose money went to the others

    def take_home(self) -> dict[str, int]:
        """Each player's cents over every prize they won (or share)."""
        totals: dict[str, int] = {}
        for winners in self.per_winner.values():
            for player, cents in winners.items():
                totals[player] = totals.get(player, 0) + cents
        return totals


def apportion(total: int, weights: Mapping[str, int]) -> dict[str, int]:
    """`total` cents split in proportion to `weights`, exactly (largest remainders, the first
    named first on a tie): the parts always add up to `total`."""
    whole = sum(weights.values())
    if total < 0 or whole <= 0:
        raise PotError("nothing to split by")
    parts = {name: total * w // whole for name, w in weights.items()}
    left = total - sum(parts.values())
    order = sorted(weights, key=lambda n: -(total * weights[n] % whole))  # stable: names' order
    for name in order[:left]:
        parts[name] += 1
    return parts


def split_pot(
    pot: Pot,
    players: int,
    winners: Mapping[str, Sequence[str]],
) -> PotSplit:
    """Tonight's pot, `players` buy-ins, split between `winners` (prize -> its winners, in the
    order shown; several while a tie stands).

    A tied prize is split between its winners when the pot says so; under a roll-off it waits
    (`unsettled`) until the roll-off leaves one winner. A prize nobody won
    gives its share to the prizes that were won, in their proportions, so the whole pot is
    always paid out once any prize has a winner.
    """
    total = pot.total(players)
    weights = pot.weights(list(winners))
    won = {p: w for p, w in weights.items() if winners[p] and w}
    unwon = tuple(p for p in winners if not winners[p] and weights[p])
    if not won and any(winners.values()):
        # Only prizes given no share were won (the one with all of it had no winner): the pot
        # is still paid out, in equal parts between the prizes that were won.
        won = {p: 1 for p in winners if winners[p]}
    if not total or not won:
        return PotSplit(total, {p: 0 for p in winners}, unwon=unwon)
    per_prize = {p: 0 for p in winners} | apportion(total, won)
    per_winner, unsettled = {}, []
    for prize, people in winners.items():
        if not people or not per_prize[prize]:
            continue
        if len(people) > 1 and pot.tied == "rolloff":
            unsettled.append(prize)
            continue
        per_winner[prize] = apportion(per_prize[prize], {person: 1 for person in people})
    return PotSplit(total, per_prize, per_winner, tuple(unsettled), unwon)


SYMBOLS = "".join(sorted({symbol for symbol, _ in CURRENCIES.values() if len(symbol) == 1}))


def parse_money(text: str) -> int:
    """A typed amount ("6", "6.5", "$6.50", "6,50 €", "1.200,50", "CHF 5") as cents; PotError
    saying why if not."""
    if not text.strip():
        return 0  # nothing typed: no buy-in
    cleaned = " ".join(text.split()).upper().strip(SYMBOLS + " ")
    for code in CURRENCIES:  # "5 CHF", "MXN 100"
        cleaned = cleaned.removeprefix(code).removesuffix(code).strip(SYMBOLS + " ")
    cleaned = cleaned.replace(" ", "")  # "1 200,50": a space between thousands
    # Of "." and ",", the last typed is the decimal mark when both are ("1,200.50", "1.200,50");
    # a comma alone is one ("6,50").
    if "." in cleaned and "," in cleaned:
        thousands = "," if cleaned.rfind(".") > cleaned.rfind(",") else "."
        cleaned = cleaned.replace(thousands, "").replace(",", ".")
    else:
        cleaned = cleaned.replace(",", ".")
    whole, _, fraction = cleaned.partition(".")
    if cleaned in ("", ".") or not cleaned.isascii() or not (whole or "0").isdigit() or (
        fraction and (not fraction.isdigit() or len(fraction) > 2)
    ):
        raise PotError(
            gettext_noop("“%(text)s” is not an amount like 6 or 6.50"), text=text.strip()
        )
    cents = int(whole or "0") * 100 + int((fraction + "00")[:2])
    if cents > 100_000_00:
        raise PotError(gettext_noop("an amount over 100,000 is surely a typo"))
    return cents


def money(cents: int) -> str:
    """An amount as a machine writes it ("1,234.50"): the shell writes it for the reader."""
    return f"{cents // 100:,}.{cents % 100:02d}"


def typed_money(cents: int) -> str:
    """An amount as a form shows it for typing again: no thousands separator."""
    return f"{cents // 100}.{cents % 100:02d}"
