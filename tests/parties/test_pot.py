"""The prize pot on the results page: the host sets a buy-in and shares; the money adds up."""

import re

import pytest
from django.urls import reverse

from parties.models import Party, Player, PrizeRollOff
from tests.parties.test_prizes import prize_text, tied_party  # noqa: F401 - a fixture

pytestmark = pytest.mark.django_db


def set_pot(browser, party, **data):
    return browser.post(reverse("parties:pot_set", args=[party.id]), data, follow=True)


def results(browser, party):
    return browser.get(reverse("parties:results", args=[party.id])).content.decode()


def section(page, id_):
    start = page.index(f'id="{id_}"')
    return page[start : page.index("</section>", start)]


def test_equal_shares_of_twelve_buy_ins(host, tied_party):  # noqa: F811
    seq = Party.objects.get(pk=tied_party.pk).seq
    response = set_pot(host, tied_party, buy_in="6", unit="percent", tied="rolloff")
    assert "The pot is set." in response.content.decode()
    assert Party.objects.get(pk=tied_party.pk).seq == seq + 1  # its pages refetch the money
    pot = section(results(host, tied_party), "pot")
    assert "<strong>$72.00</strong>: 12 players × $6.00" in pot
    # Three prizes, $24 each; but nobody rolled a Bunco, so that share goes to the other two
    # ($36 each) and the whole pot is still paid. Most wins waits for its roll-off.
    assert "nobody won it" in prize_text(host, tied_party, "most_buncos")
    wins = prize_text(host, tied_party, "most_wins")
    assert '<span class="prize-money">$36.00</span>' in wins
    assert "to the roll-off&#x27;s winner" in wins


def test_amounts_must_make_the_pot_and_a_split_tie_shares_to_the_cent(host, tied_party):  # noqa: F811
    bad = set_pot(host, tied_party, buy_in="6", unit="amount", tied="split",
                  **{"share-most_wins": "40", "share-most_buncos": "20",
                     "share-most_losses": "10"})
    assert "the amounts add up to $70.00, but the pot is $72.00 (12 players × $6.00)" in (
        bad.content.decode()
    )
    assert Party.objects.get(pk=tied_party.pk).pot == {}  # nothing saved
    set_pot(host, tied_party, buy_in="$6.00", unit="amount", tied="split",
            **{"share-most_wins": "41", "share-most_buncos": "20", "share-most_losses": "11"})
    page = results(host, tied_party)
    wins = prize_text(host, tied_party, "most_wins")
    # No Buncos: their $20 goes to the others in proportion, 72 x 41/52 = 56.77 for most wins.
    assert '<span class="prize-money">$56.77</span>' in wins
    assert "tie: shared" in wins and "Ann $28.39 · Bea $28.38" in wins  # the odd cent: first
    take_home = section(page, "pot")
    assert "<td class=\"name\">Ann</td><td>$28.39</td>" in take_home
    assert "Record totals" not in page  # a shared tie has no roll-off
    ann, bea = (tied_party.players.get(name=n) for n in ("Ann", "Bea"))
    response = host.post(reverse("parties:prize_rolloff", args=[tied_party.id, "most_wins"]),
                         {f"total-{ann.id}": "9", f"total-{bea.id}": "12"}, follow=True)
    assert "shared, not rolled off" in response.content.decode()
    assert not PrizeRollOff.objects.exists()


def test_ten_losers_share_eleven_dollars_exactly(host, tied_party):  # noqa: F811
    set_pot(host, tied_party, buy_in="1", unit="percent", tied="split",
            **{"share-most_wins": "0", "share-most_buncos": "0", "share-most_losses": "100"})
    losses = prize_text(host, tied_party, "most_losses")
    amounts = [a.split()[-1] for a in losses.split("</span>")[-2].split("·")]
    cents = sorted(int(a.lstrip("$").replace(".", "")) for a in amounts if a[0] == "$")
    assert len(cents) == 10 and sum(cents) == 1200 and cents[-1] - cents[0] <= 1


@pytest.mark.parametrize(
    "data, message",
    [
        ({"buy_in": "six"}, "is not an amount like 6 or 6.50"),
        ({"buy_in": "6", "share-most_wins": "50", "share-most_buncos": "30",
          "share-most_losses": "10"}, "add up to 90, not 100"),
        ({"buy_in": "6", "share-most_wins": "100"}, "give every prize a share"),
        ({"buy_in": "6", "share-most_wins": "50%", "share-most_buncos": "25",
          "share-most_losses": "25"}, "not a whole percentage"),
        ({"buy_in": "6", "share-most_wins": "5²", "share-most_buncos": "25",  # "²": a digit to
          "share-most_losses": "25"}, "not a whole percentage"),  # str.isdigit, not to int()
        ({"buy_in": "6", "tied": "coin"}, "rolloff or split"),
    ],
)
def test_a_pot_that_does_not_add_up_is_refused_and_nothing_changes(host, tied_party, data,  # noqa: F811
                                                                   message):
    set_pot(host, tied_party, buy_in="5")
    seq = Party.objects.get(pk=tied_party.pk).seq
    response = set_pot(host, tied_party, **{"unit": "percent", **data})
    assert message in response.content.decode().replace("&#x27;", "'")
    assert Party.objects.get(pk=tied_party.pk).pot["buy_in_cents"] == 500
    assert Party.objects.get(pk=tied_party.pk).seq == seq  # no page told of a refused pot


def test_only_the_host_sets_the_pot_and_players_see_it(tied_party, player, keeper, host):  # noqa: F811
    for browser in (player, keeper):
        assert set_pot(browser, tied_party, buy_in="6").status_code == 403
    assert "No pot tonight." in results(player, tied_party)
    set_pot(host, tied_party, buy_in="6")
    page = results(player, tied_party)
    assert "72.00" in page and "Save the pot" not in page


def test_the_form_shows_shares_that_save_again_after_a_late_arrival(host, tied_party):  # noqa: F811
    set_pot(host, tied_party, buy_in="100", unit="amount",
            **{"share-most_wins": "600", "share-most_buncos": "300", "share-most_losses": "300"})
    Player.objects.create(party=tied_party, name="Zoe", position=99)  # 13 buy-ins: 1,300.00
    page = results(host, tied_party)
    assert "$1,300.00" in section(page, "pot")
    shown = dict(re.findall(r'name="share-(\w+)" value="([^"]*)"', page))
    assert shown == {"most_wins": "650.00", "most_buncos": "325.00", "most_losses": "325.00"}
    response = set_pot(host, tied_party, buy_in="100.00", unit="amount", tied="split",
                       **{f"share-{key}": value for key, value in shown.items()})
    assert "The pot is set." in response.content.decode()  # saved as shown, no 'add up' error


def test_a_refused_pot_comes_back_open_as_typed_with_the_error_beside_its_field(
    host, tied_party  # noqa: F811
):
    typed = {"buy_in": "6", "unit": "amount", "tied": "split", "share-most_wins": "40",
             "share-most_buncos": "20", "share-most_losses": "10"}
    response = set_pot(host, tied_party, **typed)
    assert response.status_code == 400 and response.redirect_chain == []
    form = section(response.content.decode(), "pot")
    assert '<details class="card no-print pot-form" open>' in form
    assert 'value="40"' in form and 'value="20"' in form and 'value="10"' in form
    assert re.search(r'value="amount" checked', form) and 'value="split" selected' in form
    # The refusal is in the shares' fieldset, which points at it, not at the page's top.
    shares = form[form.index("<fieldset"):form.index("</fieldset>")]
    assert 'aria-describedby="pot-error"' in shares
    assert 'id="pot-error" role="alert">The shares: the amounts add up to $70.00' in shares
    assert 'class="messages"' not in response.content.decode().split('id="pot"')[0]
    assert Party.objects.get(pk=tied_party.pk).pot == {}

    bad_buy_in = section(set_pot(host, tied_party, buy_in="six").content.decode(), "pot")
    assert 'value="six"' in bad_buy_in and 'aria-invalid="true"' in bad_buy_in
    label = bad_buy_in[bad_buy_in.index("Buy-in per player"):bad_buy_in.index("<fieldset")]
    assert "The buy-in: “six” is not an amount like 6 or 6.50." in label


def test_money_waiting_for_a_roll_off_is_said_under_who_takes_home_what(host, tied_party):  # noqa: F811
    set_pot(host, tied_party, buy_in="6", unit="percent", tied="rolloff")
    pot = section(results(host, tied_party), "pot")
    # Most wins is tied and settled by a roll-off: its 36.00 (no Buncos: their share went to
    # the other two prizes) is nobody's yet, and the page says so beside the take-home table.
    assert "$36.00 of the pot waits for the roll-off for Most wins" in pot


def test_the_pot_is_in_the_currency_the_host_picks_written_as_each_phone_reads(
    host, player, tied_party  # noqa: F811
):
    set_pot(host, tied_party, buy_in="6,50", unit="percent", tied="split", currency="EUR")
    assert Party.objects.get(pk=tied_party.pk).prize_pot.currency == "EUR"
    pot = section(results(host, tied_party), "pot")
    assert "<strong>€78.00</strong>: 12 players × €6.50" in pot
    assert '<option value="EUR" selected>euro (€, EUR)</option>' in pot
    # A Spanish phone and a French one read the same pot with their own separators and order.
    player.cookies["django_language"] = "es"
    assert "<strong>78,00\u00a0€</strong>" in section(results(player, tied_party), "pot")
    player.cookies["django_language"] = "fr"
    assert "<strong>78,00\u00a0€</strong>" in section(results(player, tied_party), "pot")


def test_a_currency_not_on_the_list_is_refused_and_nothing_is_saved(host, tied_party):  # noqa: F811
    response = set_pot(host, tied_party, buy_in="6", currency="DOGE")
    assert response.status_code == 400
    form = section(response.content.decode(), "pot")
    assert 'id="pot-error" role="alert">Choose the pot&#x27;s currency from the list.' in form
    assert Party.objects.get(pk=tied_party.pk).pot == {}


@pytest.mark.parametrize(
    "accept, offered",
    [("en-US,en;q=0.9", "USD"), ("es-MX,es;q=0.9", "MXN"), ("es", "EUR"),
     ("fr-CA,fr;q=0.8", "CAD"), ("en-GB", "GBP"), ("", "USD")],
)
def test_a_new_pot_offers_the_hosts_currency_first(host, tied_party, accept, offered):  # noqa: F811
    page = host.get(
        reverse("parties:results", args=[tied_party.id]), headers={"accept-language": accept}
    ).content.decode()
    assert re.search(rf'<option value="{offered}" selected>', section(page, "pot"))


def test_a_pot_saved_before_pots_had_a_currency_reads_in_the_partys(host, tied_party):  # noqa: F811
    Party.objects.filter(pk=tied_party.pk).update(pot={"buy_in_cents": 600}, language="fr")
    assert "<strong>€72.00</strong>" in section(results(host, tied_party), "pot")
