"""A party page's web app manifest: it opens this browser's own link, for that page only, to
nobody else, and nothing keeps it."""

import json

import pytest
from django.contrib.staticfiles import finders
from django.urls import reverse

from parties.models import AccessLink
from tests.parties.conftest import Browser, redeem

pytestmark = pytest.mark.django_db


def manifest_url(party, page):
    return reverse("parties:manifest", args=[party.id]) + f"?for={page}"


def manifest(browser, party, page):
    response = browser.get(manifest_url(party, page))
    assert response.status_code == 200, response.status_code
    assert response["Content-Type"] == "application/manifest+json"
    return json.loads(response.content)


def opened_by(start_url):
    """Where a fresh browser (an iOS home-screen app has a cookie jar of its own) lands when it
    follows start_url, and what that page answers it."""
    app = Browser()
    response = app.get(start_url)
    assert response.status_code == 302
    return response["Location"], app.get(response["Location"]).status_code


def test_the_table_page_manifest_opens_that_table_full_screen_for_its_scorekeeper(keeper, party):
    data = manifest(keeper, party, "table-2")

    assert data["name"] == "Friday Bunco · Bunco Night"
    assert data["short_name"] == "Bunco table 2"
    assert data["display"] == "standalone"
    assert data["scope"] == "/"
    assert data["id"] == reverse("parties:table", args=[party.id, 2])
    assert data["background_color"] and data["theme_color"]
    assert opened_by(data["start_url"]) == (reverse("parties:table", args=[party.id, 2]), 200)


def test_each_role_gets_its_own_link_and_it_opens_that_role(host, keeper, player, party):
    ann = party.players.get(name="Ann")
    for browser, page, opens in (
        (host, "host", reverse("parties:host", args=[party.id])),
        (keeper, "table-2", reverse("parties:table", args=[party.id, 2])),
        (player, f"player-{ann.id}", reverse("parties:player", args=[party.id, ann.id])),
    ):
        start_url = manifest(browser, party, page)["start_url"]
        assert start_url.startswith("/l/"), page
        assert opened_by(start_url) == (opens, 200), page


def test_the_icons_are_static_files_at_the_sizes_the_manifest_says(keeper, party):
    icons = manifest(keeper, party, "table-2")["icons"]

    assert {(icon["sizes"], icon["purpose"]) for icon in icons} == {
        ("192x192", "any"), ("512x512", "any"), ("512x512", "maskable"),
    }
    for icon in icons:
        path = icon["src"].removeprefix("/static/")
        found = finders.find(path)
        assert found, icon["src"]
        with open(found, "rb") as png:
            header = png.read(24)
        width, height = int.from_bytes(header[16:20]), int.from_bytes(header[20:24])
        assert f"{width}x{height}" == icon["sizes"], icon["src"]


def test_a_browser_without_the_page_s_link_gets_404_never_another_role_s_link(
    host, keeper, player, code_viewer, stranger, other_host, party
):
    ann = party.players.get(name="Ann")
    refused = [
        (stranger, "table-2"), (stranger, "host"),
        (other_host, "host"), (other_host, "table-2"),  # a host, but of another party
        (code_viewer, "table-2"), (code_viewer, f"player-{ann.id}"),
        (keeper, "host"), (keeper, "table-1"), (keeper, f"player-{ann.id}"),
        (player, "table-2"), (player, "host"),
        # The host may open every table's page, but holds no table's link to give out.
        (host, "table-2"),
        (keeper, ""), (keeper, "table"), (keeper, "table-x"), (keeper, "table-2-2"),
        (keeper, "host-1"), (keeper, "table-" + "9" * 20),
    ]
    for browser, page in refused:
        response = browser.get(manifest_url(party, page))
        assert response.status_code == 404, (page, response.status_code)
        assert b"/l/" not in response.content


def test_a_replaced_link_s_manifest_is_gone_and_the_new_one_gives_the_new_link(host, keeper, party):
    old = manifest(keeper, party, "table-2")["start_url"]
    link = AccessLink.objects.get(party=party, role="table", table__number=2)
    response = host.post(reverse("parties:link_reissue", args=[party.id, link.id]))
    assert response.status_code == 302

    assert keeper.get(manifest_url(party, "table-2")).status_code == 404
    scorekeeper = Browser()
    redeem(scorekeeper, AccessLink.objects.get(party=party, role="table", table__number=2,
                                               revoked_at__isnull=True))
    new = manifest(scorekeeper, party, "table-2")["start_url"]
    assert new != old
    assert Browser().get(old).status_code == 404  # the old start_url opens nothing any more


def test_the_manifest_is_kept_by_no_cache(keeper, party):
    response = keeper.get(manifest_url(party, "table-2"))
    cache_control = {part.strip() for part in response["Cache-Control"].split(",")}
    assert {"private", "no-store"} <= cache_control


def test_each_role_s_page_links_its_manifest_and_other_pages_the_site_s(host, keeper, player, party):
    ann = party.players.get(name="Ann")
    site = "/static/parties/site.webmanifest"
    for browser, page, manifest_link in (
        (host, reverse("parties:host", args=[party.id]), manifest_url(party, "host")),
        (keeper, reverse("parties:table", args=[party.id, 2]), manifest_url(party, "table-2")),
        (player, reverse("parties:player", args=[party.id, ann.id]),
         manifest_url(party, f"player-{ann.id}")),
        # The host reads Ann's sheet, but Ann's link is not the host's to put on a home screen.
        (host, reverse("parties:player", args=[party.id, ann.id]), site),
        (host, reverse("parties:results", args=[party.id]), site),
        (Browser(), reverse("parties:landing"), site),
        (Browser(), reverse("parties:create"), site),
    ):
        html = browser.get(page).content.decode()
        assert html.count('rel="manifest"') == 1, page
        assert f'<link rel="manifest" href="{manifest_link}"' in html, page


def test_the_site_manifest_opens_the_landing_page():
    with open(finders.find("parties/site.webmanifest")) as file:
        data = json.load(file)
    assert data["start_url"] == "/" and data["scope"] == "/"
    assert data["display"] == "standalone"
    for icon in data["icons"]:
        assert finders.find("parties/" + icon["src"]), icon["src"]


def test_a_page_that_is_no_page_has_no_manifest(keeper, party):
    for page in ("table-²", "player-²", "table-x", "table-" + "9" * 30, "bar-1"):  # "²": a
        assert keeper.get(manifest_url(party, page)).status_code == 404, page  # digit to isdigit
