"""The demo party the quick start opens."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from parties.models import Party
from parties.party_codes import party_code_shown

pytestmark = pytest.mark.django_db


def test_demo_party_creates_twelve_players_and_prints_links_that_work():
    out = StringIO()
    call_command("demo_party", stdout=out)
    party = Party.objects.get()
    assert party.players.filter(is_ghost=False).count() == 12
    printed = out.getvalue()
    assert printed.count(f"code {party_code_shown(party.code)}") == 2  # in groups, as on the cards
    urls = [word for word in printed.split() if word.startswith("http://127.0.0.1:8000/l/")]
    assert len(urls) == 1 + 3 + 12
    host_url = urls[0].removeprefix("http://127.0.0.1:8000")
    browser = Client()
    response = browser.get(host_url, follow=True)
    assert response.status_code == 200
    assert "Demo Bunco Night" in response.content.decode()
    assert response.redirect_chain[-1][0] == f"/parties/{party.id}/host/"
