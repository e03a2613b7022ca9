"""The host's pot form on a phone: each radio button sits beside its words, and a pot that
does not add up comes back open, as the host typed it, with the refusal beside the shares and
on screen."""

from types import SimpleNamespace

import pytest
from playwright.sync_api import expect

from tests.e2e.phone import phone_context
from tests.e2e.test_party_setup import create_party

pytestmark = pytest.mark.e2e


def _beside(page, label_text):
    """The radio button of the label that says `label_text`, and the label, as boxes."""
    label = page.locator("#pot label", has_text=label_text)
    return label.locator("input").bounding_box(), label.bounding_box()


def test_the_pot_form_reads_on_a_phone_and_keeps_what_the_host_typed(chromium, server, shots):
    host = phone_context(chromium).new_page()
    create_party(host, SimpleNamespace(url=server.url), "Pot Night", ["Ann", "Bea", "Cleo", "Dot"])
    host.goto(host.url.removesuffix("host/") + "results/")
    for words in ("percentages (adding up to 100)", "amounts (adding up to the pot)"):
        radio, label = _beside(host, words)
        assert radio["width"] <= 30, radio  # a dot, not a field's width
        # At the start of the label's one line (a 44 px target), its words to its right.
        assert label["height"] <= 56, label  # one line (two would be 70 and more)
        assert radio["x"] - label["x"] <= 4, (radio, label)
        middle = radio["y"] + radio["height"] / 2 - label["y"]
        assert abs(middle - label["height"] / 2) <= 4, (radio, label)
    shots(host, "pot-form-phone")

    host.get_by_label("Buy-in per player").fill("5")
    host.get_by_label("amounts (adding up to the pot)").check()
    host.get_by_label("Most wins").fill("10")
    host.get_by_label("Most Buncos").fill("5")
    host.get_by_label("Most losses").fill("1")
    host.get_by_role("button", name="Save the pot").click()

    error = host.locator("#pot-error")
    expect(error).to_have_text(
        "The shares: the amounts add up to $16.00, but the pot is $20.00 (4 players × $5.00)."
    )
    expect(error).to_be_in_viewport()
    expect(host.locator("details.pot-form")).to_have_attribute("open", "")
    expect(host.get_by_label("Buy-in per player")).to_have_value("5")
    expect(host.get_by_label("Most wins")).to_have_value("10")
    expect(host.get_by_label("amounts (adding up to the pot)")).to_be_checked()
    shots(host, "pot-form-refused-phone")

    host.get_by_label("Most losses").fill("5")
    host.get_by_role("button", name="Save the pot").click()
    expect(host.locator(".messages")).to_contain_text("The pot is set.")
    expect(host.locator("#pot .pot-total")).to_contain_text("20.00")
