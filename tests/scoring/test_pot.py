"""The prize pot (docs/rules.md section 9): buy-ins split exactly between the prizes."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.pot import Pot, PotError, apportion, money, parse_money, split_pot

# The example night: 12 players x $6; most Buncos $25, most wins $20, most losses $15,
# traveling $12.
EXAMPLE = Pot(
    buy_in_cents=600,
    shares=(("most_buncos", 2500), ("most_wins", 2000), ("most_losses", 1500),
            ("traveling", 1200)),
    unit="amount",
)


def test_amounts_that_make_the_pot_are_paid_as_given():
    winners = {"most_buncos": ["Ann"], "most_wins": ["Bea"], "most_losses": ["Cleo"],
               "traveling": ["Ann"]}
    split = split_pot(EXAMPLE, 12, winners)
    assert split.total == 7200
    assert split.per_prize == {"most_buncos": 2500, "most_wins": 2000, "most_losses": 1500,
                               "traveling": 1200}
    assert split.take_home() == {"Ann": 3700, "Bea": 2000, "Cleo": 1500}


def test_a_late_arrival_grows_every_prize_in_proportion():
    winners = {"most_buncos": ["Ann"], "most_wins": ["Bea"], "most_losses": ["Cleo"],
               "traveling": ["Dot"]}
    split = split_pot(EXAMPLE, 13, winners)  # $78
    assert split.total == 7800 and sum(split.per_prize.values()) == 7800
    assert split.per_prize["most_buncos"] == 2708  # 7800 * 25/72 = 2708.33


def test_a_tie_split_shares_the_money_to_the_cent():
    pot = Pot(buy_in_cents=500, tied="split")  # equal shares of $25 over 2 prizes
    split = split_pot(pot, 5, {"most_wins": ["Ann", "Bea", "Cleo"], "most_buncos": ["Dot"]})
    assert split.per_prize == {"most_wins": 1250, "most_buncos": 1250}
    assert split.per_winner["most_wins"] == {"Ann": 417, "Bea": 417, "Cleo": 416}
    assert sum(split.take_home().values()) == 2500


def test_a_tie_under_a_rolloff_waits_for_it():
    pot = Pot(buy_in_cents=500)
    split = split_pot(pot, 4, {"most_wins": ["Ann", "Bea"], "most_buncos": ["Dot"]})
    assert split.unsettled == ("most_wins",)
    assert "most_wins" not in split.per_winner and split.per_prize["most_wins"] == 1000


def test_a_prize_nobody_won_gives_its_money_to_the_others():
    split = split_pot(Pot(buy_in_cents=300), 4, {"most_buncos": [], "most_wins": ["Ann"]})
    assert split.unwon == ("most_buncos",)
    assert split.per_prize == {"most_buncos": 0, "most_wins": 1200}


def test_when_only_prizes_without_a_share_were_won_they_share_the_pot_equally():
    # All of the pot on most Buncos, and nobody rolled a Bunco: the pot is still paid out.
    pot = Pot(buy_in_cents=500, shares=(("most_wins", 0), ("most_buncos", 100),
                                        ("most_losses", 0)))
    split = split_pot(pot, 12, {"most_wins": ["Ann"], "most_buncos": [], "most_losses": ["Bea"]})
    assert split.per_prize == {"most_wins": 3000, "most_buncos": 0, "most_losses": 3000}
    assert split.take_home() == {"Ann": 3000, "Bea": 3000}


def test_no_buy_in_is_no_pot():
    split = split_pot(Pot(), 12, {"most_wins": ["Ann"]})
    assert not Pot().on and split.total == 0 and split.take_home() == {}


@pytest.mark.parametrize(
    "values, message",
    [
        ({"buy_in_cents": -1}, "0 or more"),
        ({"shares": (("most_wins", 60), ("most_buncos", 30))}, "add up to 90, not 100"),
        ({"shares": (("most_wins", 0),), "unit": "amount"}, "every share is 0"),
        ({"shares": (("most_wins", 50), ("most_wins", 50))}, "two shares"),
        ({"unit": "euros"}, "percent or amount"),
        ({"tied": "coin"}, "rolloff or split"),
    ],
)
def test_a_pot_that_cannot_be_split_says_why(values, message):
    with pytest.raises(PotError, match=message):
        Pot(**values)


def test_it_round_trips_through_its_stored_form():
    assert Pot.from_dict(EXAMPLE.to_dict()) == EXAMPLE
    assert Pot.from_dict({}) == Pot() and Pot.from_dict(None) == Pot()


@pytest.mark.parametrize(
    "text, cents",
    [("6", 600), ("6.5", 650), ("$6.50", 650), ("6,50", 650), (" 12 ", 1200), ("", 0),
     (".5", 50), ("1,200.00", 120000), ("1200", 120000), ("6,50 €", 650), ("€6", 600),
     ("1.200,50", 120050), ("1 200,50", 120050), ("CHF 5", 500), ("5 chf", 500),
     ("MXN 100", 10000), ("£6.50", 650)],
)
def test_typed_amounts(text, cents):
    assert parse_money(text) == cents


@pytest.mark.parametrize("text", ["six", "6.505", "-6", "6.5.0", "1e3", "$", "100001", "6²",
                                  "6.5²"])  # "²" is a digit to str.isdigit, not to int()
def test_typed_amounts_that_are_not_amounts_are_refused(text):
    with pytest.raises(PotError):
        parse_money(text)


def test_a_pot_is_in_a_currency_of_the_list_or_in_its_partys():
    assert Pot.from_dict({"buy_in_cents": 500, "currency": "EUR"}).currency == "EUR"
    assert Pot.from_dict({"buy_in_cents": 500}).currency == ""  # saved before pots had one
    with pytest.raises(PotError, match="'XYZ' is not a currency"):
        Pot(buy_in_cents=500, currency="XYZ")


def test_money_reads_as_money():
    assert money(7200) == "72.00" and money(5) == "0.05" and money(123456) == "1,234.56"


@settings(max_examples=300, deadline=None)
@given(
    total=st.integers(0, 10_000_000),
    weights=st.lists(st.integers(0, 10_000), min_size=1, max_size=10).filter(any),
)
def test_apportioned_parts_always_add_up_and_stay_within_a_cent(total, weights):
    named = {f"p{i}": w for i, w in enumerate(weights)}
    parts = apportion(total, named)
    assert sum(parts.values()) == total
    whole = sum(weights)
    for name, w in named.items():
        assert abs(parts[name] - total * w / whole) < 1


@settings(max_examples=300, deadline=None)
@given(
    buy_in=st.integers(1, 5000),
    players=st.integers(1, 400),
    tied=st.sampled_from(["split", "rolloff"]),
    prizes=st.lists(
        st.tuples(st.integers(0, 100), st.lists(st.sampled_from("ABCDEFG"), max_size=4,
                                                unique=True)),
        min_size=1, max_size=6,
    ),
)
def test_the_pot_is_paid_out_exactly_once_a_prize_is_won(buy_in, players, tied, prizes):
    shares = tuple((f"prize{i}", weight) for i, (weight, _) in enumerate(prizes))
    if not any(w for _, w in shares):
        return
    pot = Pot(buy_in_cents=buy_in, shares=shares, unit="amount", tied=tied)
    winners = {f"prize{i}": people for i, (_, people) in enumerate(prizes)}
    split = split_pot(pot, players, winners)
    if any(winners.values()):
        assert sum(split.per_prize.values()) == pot.total(players)  # all of it, to the cent
        held = sum(split.per_prize[p] for p in split.unsettled)
        assert sum(split.take_home().values()) + held == pot.total(players)
    else:
        assert split.take_home() == {}
