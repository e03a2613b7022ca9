"""The party's paper language: the host chooses it (on the create form, and later on the host
page); the printables print in it on any phone, and in any other language a link away; the
results page stays in each phone's own language, one link from its print."""

import pytest
from django.urls import reverse

from parties.exchange import exports
from parties.models import Party
from parties.services import party_import
from tests.parties.conftest import Browser, create_form, create_party
from tests.parties.test_import import column, imported, rows

pytestmark = pytest.mark.django_db

PAPER = ["rules_sheet", "score_sheets", "tally_sheets", "player_cards", "table_cards"]


def spanish_host():
    browser = Browser()
    browser.cookies["django_language"] = "es"
    return browser


def page(browser, name, party, query=""):
    response = browser.get(reverse(f"parties:{name}", args=[party.id]) + query)
    assert response.status_code == 200, name
    return response


def test_the_paper_is_in_the_hosts_language_unless_they_choose_another():
    assert create_party(spanish_host()).language == "es"
    assert create_party(Browser()).language == "en"
    assert create_party(Browser(), language="fr").language == "fr"
    form = spanish_host().get(reverse("parties:create")).content.decode()
    assert '<option value="es" lang="es" selected>' in form


def test_a_language_the_site_does_not_speak_is_refused_and_no_party_is_made():
    before = Party.objects.count()
    response = Browser().post(reverse("parties:create"), create_form(language="zz"))
    assert response.status_code == 400 and "zz" in response.content.decode()
    assert 'class="error"' in response.content.decode()
    assert Party.objects.count() == before


@pytest.mark.parametrize("name", PAPER)
def test_every_printable_prints_in_the_partys_language_on_any_phone(host, name):
    party = create_party(host, language="es")
    response = page(host, name, party)  # an English phone
    assert response["Content-Language"] == "es"
    html = response.content.decode()
    assert '<html lang="es">' in html and "Imprimir" in html
    # Any other language is one link away, and the page says which it prints in.
    assert 'aria-current="page">Español</a>' in html and "?language=fr" in html
    french = page(host, name, party, "?language=fr")
    assert french["Content-Language"] == "fr" and '<html lang="fr">' in french.content.decode()


def test_the_filled_sheets_keep_their_choice_in_another_language(host, party):
    html = page(host, "score_sheets", party, "?filled=1").content.decode()
    assert "?filled=1&amp;language=es" in html


def test_a_language_asked_for_that_the_site_does_not_speak_is_the_partys(host, party):
    response = page(host, "rules_sheet", party, "?language=zz")
    assert response["Content-Language"] == "en"


def test_the_results_stay_in_the_phones_language_one_link_from_the_partys(host):
    party = create_party(host, language="fr")
    html = page(host, "results", party).content.decode()
    assert '<html lang="en">' in html
    assert 'href="?language=fr" hreflang="fr">As printed, in Français</a>' in html
    printed = page(host, "results", party, "?language=fr").content.decode()
    assert '<html lang="fr">' in printed and "As printed" not in printed


def test_the_host_changes_the_paper_language_and_nobody_else_can(host, keeper, player, party):
    url = reverse("parties:paper_language", args=[party.id])
    for browser in (keeper, player):
        assert browser.post(url, {"language": "es"}).status_code == 403
    response = host.post(url, {"language": "es"}, follow=True)
    assert "The printouts are in Spanish." in response.content.decode()
    assert Party.objects.get(pk=party.pk).language == "es"
    assert page(host, "rules_sheet", party)["Content-Language"] == "es"
    refused = host.post(url, {"language": "zz"}, follow=True).content.decode()
    assert "“zz” is not a language this site speaks." in refused
    assert Party.objects.get(pk=party.pk).language == "es"


def test_the_paper_language_travels_in_the_party_file(host):
    party = create_party(host, language="fr")
    assert imported(exports.party_document(party)).language == "fr"
    document = exports.party_document(party)
    rows(document, "parties.party")[0][column(document, "parties.party", "language")] = "zz"
    with pytest.raises(party_import.ImportRefused, match="a language this server does not"):
        imported(document)
