"""A club in Chromium, on phones: the organizer starts it, makes two nights from it (a sub for a
member on the first; on the second, guests may add themselves, and one does, seated by that
night's host) and hands each night's host link over; the nights are played through the
services in the server's own database, as the scorekeepers' phones would play them; a member
types the club code where guests type a party code and reads the season's standings on a
360x740 phone, nothing wider than the screen."""

import json
import re
import subprocess
import sys

import pytest
from playwright.sync_api import expect

from bench.servers import ROOT
from tests.devices import LAPTOP
from tests.e2e.phone import phone_context
from tests.e2e.test_party_setup import chromium  # noqa: F401 - every page logs no CSP refusal

pytestmark = [pytest.mark.e2e]

MEMBERS = ["Ann", "Bea", "Cleo", "Dot", "Edie", "Fran", "Gail", "Hope", "Iris", "June", "Kay",
           "Lou"]

# A night played in the server's database through the services (bench.club_standings), then
# what the standings should say, worked out from each night's own results page's reads.
PLAY = """
import random
from parties.models import Party
from bench.club_standings import play_night
play_night(Party.objects.get(pk={party}), random.Random({seed}))
"""
EXPECTED = """
import json
from clubs import selectors
from clubs.models import Club
club = Club.objects.get(pk={club})
table = selectors.season_standings(club, selectors.latest_season(club))
print(json.dumps([[r.name, r.rank, r.tied, r.totals.nights, r.totals.wins, r.totals.losses,
                   r.totals.buncos, r.totals.points] for r in table.rows]))
"""


def manage_shell(server, code):
    done = subprocess.run([sys.executable, "manage.py", "shell", "-c", code], cwd=ROOT,
                          env=server.env, capture_output=True, text=True, check=True)
    return done.stdout


def no_wider_than_the_phone(page):
    # A mobile browser zooms out to show what overflows, so compare with the phone's width.
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]


def part(page, shots, locator, label):
    """A screenshot of one part of a long page, at the size a person sees it."""
    shots.count += 1
    locator.screenshot(path=str(shots.folder / f"{shots.count:02d}-{label}.png"))


def make_night(page, shots, label, out=(), subs=(), date=None, self_join=False):
    """On the organizer's club page: a new night on `date` (today), `out` unticked, `subs` as
    (name, for whom), guests let in if `self_join`; the night's host link, as the page hands it
    over."""
    page.get_by_role("link", name="A new night").click()
    expect(page).to_have_url(re.compile(r"/nights/new/$"))
    if date:
        page.get_by_label("Date").fill(date)
    for name in out:
        page.locator("#night-form fieldset").get_by_label(name, exact=True).uncheck()
    for n, (name, for_whom) in enumerate(subs, start=1):
        page.get_by_label(f"Sub {n}", exact=True).fill(name)
        page.locator(f"#id_sub-{n}-for").select_option(label=for_whom)
    if self_join:
        page.get_by_label("Guests may add themselves").check()
    no_wider_than_the_phone(page)
    shots(page, f"{label}-form-phone")
    page.get_by_role("button", name="Make the night").click()
    expect(page.locator(".messages")).to_contain_text("The night is ready")
    night = page.locator("article.card", has=page.locator("details[open]"))
    expect(night.locator("input.url")).to_be_visible()
    expect(night.locator(".qr svg")).to_be_visible()
    no_wider_than_the_phone(page)
    shots(page, f"{label}-host-link-phone")
    part(page, shots, night, f"{label}-card-phone")
    host_link = night.locator("input.url").input_value()
    return host_link


def test_a_club_holds_two_nights_and_a_member_reads_the_standings_on_a_phone(
    chromium, server, shots  # noqa: F811
):
    organizer = phone_context(chromium).new_page()
    organizer.goto(server.url + "/clubs/new/")
    organizer.get_by_label("Club name").fill("Thursday Club")
    organizer.get_by_label("Members", exact=True).fill("\n".join(MEMBERS))
    organizer.get_by_label("Buy-in per player, each night").fill("5")
    organizer.get_by_label("A sub's night counts for the member they play for").check()
    no_wider_than_the_phone(organizer)
    shots(organizer, "club-form-phone")
    organizer.get_by_role("button", name="Start the club").click()
    expect(organizer).to_have_url(re.compile(r"/clubs/\d+/$"))
    club_id = int(re.search(r"/clubs/(\d+)/", organizer.url).group(1))
    code = organizer.locator("#club-code").inner_text()
    assert re.fullmatch(r"[A-Z2-9]{5} [A-Z2-9]{5} [A-Z2-9]{5}", code)  # three groups of five
    no_wider_than_the_phone(organizer)
    shots(organizer, "club-page-organizer-phone")

    first_link = make_night(organizer, shots, "night-1", out=["Lou"], subs=[("Sam", "Lou")])
    # The night's host opens the link on a phone of their own: that night's host page.
    night_host = phone_context(chromium).new_page()
    night_host.goto(first_link)
    expect(night_host).to_have_url(re.compile(r"/parties/\d+/host/$"))
    expect(night_host.locator(".seat-name", has_text="Sam")).to_have_count(1)
    first_party = int(re.search(r"/parties/(\d+)/", night_host.url).group(1))
    shots(night_host, "night-1-host-page-phone")
    # ... and nothing of the club.
    answer = night_host.goto(f"{server.url}/clubs/{club_id}/")
    assert answer.status == 403
    manage_shell(server, PLAY.format(party=first_party, seed=1))

    second_link = make_night(organizer, shots, "night-2", date="2027-01-07", self_join=True)
    second_host = phone_context(chromium).new_page()
    second_host.goto(second_link)
    second_party = int(re.search(r"/parties/(\d+)/", second_host.url).group(1))
    assert second_party != first_party
    # A friend brought along adds herself with the night's code and her name; its host seats
    # her from the host page, and her phone lands on her own sheet.
    guest = phone_context(chromium).new_page()
    guest.goto(server.url + "/join/")
    guest.get_by_label("Party code").fill(second_host.locator("#party-code").inner_text())
    guest.get_by_label("Your name (optional)").fill("Nell")
    guest.get_by_role("button", name="Find the party").click()
    expect(guest.locator("#waiting h1")).to_have_text("Hello, Nell!")
    expect(second_host.locator("#guests-waiting")).to_have_text("Waiting to be seated: Nell")
    second_host.get_by_role("button", name="Seat Nell").click()
    expect(guest).to_have_url(re.compile(r"/parties/\d+/players/\d+/$"), timeout=10_000)
    expect(guest.locator("h1")).to_have_text("Nell")
    manage_shell(server, PLAY.format(party=second_party, seed=2))

    # A member types the club code where guests type a party code.
    member = phone_context(chromium).new_page()
    member.goto(server.url + "/join/")
    member.get_by_label("Party code").fill(code.lower())
    member.get_by_role("button", name="Find the party").click()
    expect(member).to_have_url(f"{server.url}/clubs/{club_id}/")
    expect(member.locator("#nights article.card")).to_have_count(2)
    expect(member.locator("#nights")).to_contain_text("Sam for Lou")
    expect(member.locator("#nights")).to_contain_text("Guests: Nell")  # not a member's season
    expect(member.locator("#links")).to_have_count(0)  # no organizer link for a member
    no_wider_than_the_phone(member)
    shots(member, "club-page-member-phone")
    part(member, shots, member.locator("#nights"), "club-nights-member-phone")
    part(member, shots, member.locator("#rotation"), "club-rotation-member-phone")

    member.get_by_role("link", name="Standings", exact=True).click()
    expect(member).to_have_url(re.compile(r"/standings/$"))
    expect(member.locator("#standings-table tbody tr")).to_have_count(12)
    expect(member.locator(".help").first).to_contain_text("From 2 finished nights")
    # The shell says how many objects it imported first: the JSON is its last line.
    expected = json.loads(manage_shell(server, EXPECTED.format(club=club_id)).splitlines()[-1])
    rows = member.locator("#standings-table tbody tr")
    for index, (name, rank, tied, nights, wins, losses, buncos, points) in enumerate(expected):
        cells = rows.nth(index).locator("td").all_inner_texts()
        assert cells == [f"={rank}" if tied else str(rank), name, str(nights), str(wins),
                         str(losses), str(buncos), str(points)], (cells, name)
    assert all(nights == 2 for _n, _r, _t, nights, *_rest in expected)  # Sam counted for Lou
    no_wider_than_the_phone(member)
    for table in ("#standings-table", "#standings-more"):
        box = member.locator(table).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 360, (table, box)
    shots(member, "standings-member-phone")

    member.get_by_role("link", name="Print").click()
    expect(member.locator("h1")).to_have_text("Season 1: standings so far")
    expect(member.locator("#standings-table tbody tr")).to_have_count(12)
    no_wider_than_the_phone(member)
    shots(member, "season-print-phone")

    # The organizer's link, opened on a laptop: the club page with both nights and the links.
    organizer_link = organizer.locator("#organizer-link input.url").input_value()
    laptop = chromium.new_context(**LAPTOP).new_page()
    laptop.goto(organizer_link)
    expect(laptop).to_have_url(f"{server.url}/clubs/{club_id}/")
    expect(laptop.get_by_role("link", name="A new night")).to_be_visible()
    expect(laptop.locator("#nights article.card")).to_have_count(2)
    shots(laptop, "club-page-organizer-laptop")
    part(laptop, shots, laptop.locator("#rotation"), "club-rotation-organizer-laptop")
    part(laptop, shots, laptop.locator("#season"), "club-season-organizer-laptop")
    laptop.locator("#organizer-link summary").click()
    part(laptop, shots, laptop.locator("#links"), "club-links-organizer-laptop")

    # The organizer, on the phone, welcomes a newcomer; Kay leaves (asked first), her two
    # nights staying in the standings the member reads.
    organizer.reload()
    organizer.get_by_label("A new member").fill("Olive")
    organizer.get_by_role("button", name="Add to the club").click()
    expect(organizer.locator(".messages")).to_contain_text("Olive is a member now.")
    organizer.get_by_label("A member leaves").select_option(label="Kay")
    organizer.once("dialog", lambda dialog: dialog.accept())
    organizer.get_by_role("button", name="Has left the club").click()
    expect(organizer.locator("#members-left")).to_have_text("Left the club: Kay")
    expect(organizer.locator("#members h2")).to_have_text("12 members")  # Olive in, Kay out
    expect(organizer.get_by_label("One who left comes back")).to_be_visible()
    no_wider_than_the_phone(organizer)
    part(organizer, shots, organizer.locator("#members"), "club-members-organizer-phone")
    member.reload()
    expect(member.locator("#standings-table tbody tr", has_text="Kay")).to_contain_text("2")
    expect(member.locator("#standings-table tbody tr")).to_have_count(13)  # Olive: no night yet
