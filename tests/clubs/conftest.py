"""A small cast for the club tests, each a browser with CSRF checks on, as in production.

- organizer: created the club in this browser, so holds its organizer link.
- reader: typed the club's code at /join/ (reads the club, changes nothing).
- night_host: redeemed the host link of the club's first night (that party only).
- stranger: holds nothing.
"""

import datetime
import re

import pytest
from django.urls import reverse

from clubs.models import Club, ClubNight
from parties import access as party_access
from parties.models import AccessLink
from tests.parties.conftest import (  # noqa: F401 - the parties tests' autouse fixtures
    Browser,
    _close_the_socket_reads_connections,
    _fresh_limits,
    _fresh_round_state_cache,
    create_form,
)

TWELVE = ["Ann", "Bea", "Cleo", "Dot", "Edie", "Fran", "Gail", "Hope", "Iris", "June", "Kay",
          "Lou"]


def club_form(names=TWELVE, **overrides):
    """The club form as a browser submits it: the party's create form's fields (the standard
    rules, in one set), a club name, the members, and the pot and settings."""
    data = create_form(names=names, name="Thursday Club")
    # One set of six rounds a night, where the standard rules play two: the nights the tests
    # play end sooner, and nothing of a club depends on the count.
    data.update({"buy_in": "5", "unit": "percent", "tied": "rolloff", "ranking": "wins",
                 "sets": "1"})
    for key, value in overrides.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return data


def create_club(browser, **kwargs):
    response = browser.post(reverse("clubs:create"), club_form(**kwargs))
    assert response.status_code == 302, response.content.decode()[:3000]
    club_id = int(re.search(r"/clubs/(\d+)/", response["Location"]).group(1))
    return Club.objects.get(pk=club_id)


def night_form(club, *, out=(), subs=(), host=None, date=None):
    """The night's form: every member coming but `out` (names), `subs` as (name, member's name
    or None)."""
    members = {m.name: m for m in club.members.all()}
    data = {
        "date": (date or datetime.date(2026, 3, 5)).isoformat(),
        "host": str(members[host or "Ann"].id),
        "coming": [str(m.id) for name, m in members.items() if name not in out],
    }
    for n, (name, for_name) in enumerate(subs, start=1):
        data[f"sub-{n}-name"] = name
        data[f"sub-{n}-for"] = str(members[for_name].id) if for_name else ""
    return data


def create_night(browser, club, **kwargs):
    response = browser.post(reverse("clubs:night_create", args=[club.id]),
                            night_form(club, **kwargs))
    assert response.status_code == 302, response.content.decode()[:3000]
    night_id = int(re.search(r"night=(\d+)", response["Location"]).group(1))
    return ClubNight.objects.select_related("party").get(pk=night_id)


def join_with_code(browser, code):
    return browser.post(reverse("parties:join"), {"code": code})


@pytest.fixture(autouse=True)
def _fresh_nights_read():
    # The nights read live in the process, by party id and sequence number, and a test
    # database may reuse a party's id (its creation rolled back with the test before).
    from clubs import selectors

    selectors.forget_nights()
    yield
    selectors.forget_nights()


@pytest.fixture
def organizer():
    return Browser()


@pytest.fixture
def club(organizer):
    return create_club(organizer)


@pytest.fixture
def reader(club):
    browser = Browser()
    response = join_with_code(browser, club.code.lower())
    assert response.status_code == 302 and response["Location"] == f"/clubs/{club.id}/"
    return browser


@pytest.fixture
def night(organizer, club):
    return create_night(organizer, club, out=["Lou"], subs=[("Sam", "Lou")])


@pytest.fixture
def night_host(night):
    browser = Browser()
    link = AccessLink.objects.get(party=night.party, role=AccessLink.Role.HOST)
    response = browser.get(reverse("parties:redeem", args=[party_access.token_for(link)]))
    assert response.status_code == 302
    return browser


@pytest.fixture
def stranger():
    return Browser()
