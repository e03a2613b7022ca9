"""A small cast for the party tests, each a browser with CSRF checks on, as in production.

- host: created party A in this browser, so holds its host link.
- keeper: redeemed party A's table 2 link (scorekeeper of table 2 only).
- player: redeemed party A's link for Ann (reads sheets, writes nothing).
- code_viewer: typed party A's code (reads sheets, writes nothing).
- stranger: holds nothing.
- other_host: created party B; nothing at party A.
"""

import re
import threading

import pytest
from django.test import Client
from django.urls import reverse

from parties import access
from parties.models import AccessLink, Party

TWELVE = ["Ann", "Bea", "Cleo", "Dot", "Edie", "Fran", "Gail", "Hope", "Iris", "June", "Kay", "Lou"]


class Browser(Client):
    """A test client that sends the CSRF token the way our forms and htmx do."""

    def __init__(self):
        super().__init__(enforce_csrf_checks=True)

    def csrf_token(self):
        if "csrftoken" not in self.cookies:
            self.get(reverse("parties:landing"))
        return self.cookies["csrftoken"].value

    def post(self, path, data=None, **extra):
        data = dict(data or {})
        data.setdefault("csrfmiddlewaretoken", self.csrf_token())
        return super().post(path, data, **extra)


def create_form(names=TWELVE, preset="standard", **overrides):
    """The create form as a browser submits it for `preset`, with `overrides` applied."""
    from parties.forms import preset_initial

    data = {"name": "Friday Bunco", "players": "\n".join(names), "options_for": preset}
    for key, value in preset_initial(preset).items():
        if isinstance(value, bool):
            if value:
                data[key] = "on"
        elif isinstance(value, list):
            data[key] = value
        else:
            data[key] = str(value)
    for key, value in overrides.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return data


def create_party(browser, **kwargs):
    response = browser.post(reverse("parties:create"), create_form(**kwargs))
    assert response.status_code == 302, response.content.decode()[:2000]
    party_id = int(re.search(r"/parties/(\d+)/host/", response["Location"]).group(1))
    return Party.objects.get(pk=party_id)


def redeem(browser, link):
    response = browser.get(reverse("parties:redeem", args=[access.token_for(link)]))
    assert response.status_code == 302
    return response


@pytest.fixture
def host():
    return Browser()


@pytest.fixture
def party(host):
    return create_party(host)


@pytest.fixture
def keeper(party):
    browser = Browser()
    redeem(browser, AccessLink.objects.get(party=party, role="table", table__number=2))
    return browser


@pytest.fixture
def player(party):
    browser = Browser()
    redeem(browser, AccessLink.objects.get(party=party, role="player", player__name="Ann"))
    return browser


@pytest.fixture
def code_viewer(party):
    browser = Browser()
    response = browser.post(reverse("parties:join"), {"code": party.code.lower()})
    assert response.status_code == 302
    return browser


@pytest.fixture
def stranger():
    return Browser()


@pytest.fixture
def other_host(party):
    browser = Browser()
    create_party(browser, names=["Wu", "Xi", "Yan", "Zoe"])
    return browser


@pytest.fixture(autouse=True)
def _fresh_limits():
    # The rate limits count in Django's cache, which outlives a test: without this, the
    # parties every test creates from 127.0.0.1 would add up to the creation limit.
    clear_own_cache()
    yield
    clear_own_cache()


def clear_own_cache():
    """Forget what the app's cache holds. On Redis only the cache's own keys go: clear() is a
    FLUSHDB, which would wipe whatever else shares the database (another test run's)."""
    from django.core.cache import cache
    from django.core.cache.backends.redis import RedisCache

    if not isinstance(cache, RedisCache):
        cache.clear()
        return
    client = cache._cache.get_client(write=True)
    keys = list(client.scan_iter(match=cache.make_key("*"), count=1000))
    if keys:
        client.delete(*keys)


@pytest.fixture(autouse=True)
def _close_the_socket_reads_connections():
    # A socket's reads run in threads of their own (parties/live/consumers.py), whose connections
    # (pooled, on PostgreSQL) would stay checked out after a test that opened a socket and
    # keep the test database from being dropped at the end. One close in each thread: each
    # waits at the barrier for the others, so no thread takes two.
    yield
    from django.db import connections

    from parties.live import consumers

    threads = consumers._socket_reads._max_workers
    barrier = threading.Barrier(threads)

    def close():
        connections.close_all()
        barrier.wait(timeout=10)

    for done in [consumers._socket_reads.submit(close) for _ in range(threads)]:
        done.result()


@pytest.fixture(autouse=True)
def _fresh_round_state_cache():
    # The live-state cache lives in the process, and a test database may reuse a round's id.
    from parties import state

    state.forget_all()
    yield
    state.forget_all()
