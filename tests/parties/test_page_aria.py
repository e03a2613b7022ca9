"""What the pages say to a screen reader, read off the HTML: every id an attribute points at
exists, no ARIA attribute sits where it is not allowed, and the dice, the round's target and
the flash messages are announced in words."""

import re

import pytest
from django.urls import reverse

from parties.models import AccessLink
from tests.parties.conftest import Browser, redeem
from tests.parties.test_play import new_party

pytestmark = pytest.mark.django_db


def _pages():
    party = new_party()
    host = Browser()
    redeem(host, AccessLink.objects.get(party=party, role="host"))
    yield "create", Browser().get(reverse("parties:create")).content.decode()
    for name, url in [
        ("host", reverse("parties:host", args=[party.id])),
        ("table", reverse("parties:table", args=[party.id, 1])),
        ("results", reverse("parties:results", args=[party.id])),
        ("party", reverse("parties:party", args=[party.id])),
    ]:
        yield name, host.get(url).content.decode()


def test_every_id_a_page_points_at_is_on_the_page():
    for name, page in _pages():
        ids = set(re.findall(r'\sid="([^"]+)"', page))
        for attribute in ("aria-describedby", "aria-labelledby", "aria-controls", "for"):
            for value in re.findall(rf'\s{attribute}="([^"]+)"', page):
                for target in value.split():
                    assert target in ids, (name, attribute, target)


def test_no_label_on_an_element_that_may_not_have_one():
    # aria-label on a div or span with no role is not allowed (axe: aria-prohibited-attr).
    for name, page in _pages():
        for tag in re.findall(r"<(?:div|span|p)\b[^>]*\saria-label=[^>]*>", page):
            assert " role=" in tag, (name, tag)


def test_the_dice_the_target_and_the_messages_are_said_in_words():
    party = new_party()
    host = Browser()
    redeem(host, AccessLink.objects.get(party=party, role="host"))
    page = host.post(reverse("parties:start", args=[party.id]), follow=True).content.decode()
    # The list keeps its list role: the live region is the box around it.
    assert '<div role="status"><ul class="messages">' in page
    keeper = Browser()
    redeem(keeper, AccessLink.objects.get(party=party, role="table", table__number=1))
    table = keeper.get(reverse("parties:table", args=[party.id, 1])).content.decode()
    assert '<div class="slots" aria-hidden="true"></div>' in table  # "11" for two 1s: hidden
    assert 'class="visually-hidden dice-said" aria-live="polite"' in table  # said as words
    assert '<span class="visually-hidden">Target </span>1</div>' in table
