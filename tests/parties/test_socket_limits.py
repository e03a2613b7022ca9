"""The websocket's limits: what its query string may say, and how many sockets one session may
hold open. The session here is the smallest there is: a guest who typed the party code."""

import asyncio
import json
import urllib.parse

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bunco_site.asgi import application
from parties.live import consumers
from parties.live.announce import party_group, table_group
from tests.parties.conftest import Browser, create_party

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

NINES = "9" * 5000  # past Python's limit on the digits int() reads (4,300)
CAP = 20  # sockets one session may hold open in a process (settings' PARTY_SOCKETS_PER_SESSION)
TOO_MANY = 4429  # the close code refusing one more (consumers.TOO_MANY_SOCKETS)
# Seconds a socket may take to open, or to be refused: twenty open at once, and on a loaded
# machine (both cores busy) that took longer than Channels' default second.
WAIT = 10


def code_cookie(party):
    """The cookie of a browser that typed the party's code, and holds nothing else."""
    browser = Browser()
    response = browser.post(reverse("parties:join"), {"code": party.code.lower()})
    assert response.status_code == 302
    return f"sessionid={browser.cookies['sessionid'].value}"


@pytest.fixture
def party():
    return create_party(Browser())


@pytest.fixture
def guest(party):
    return code_cookie(party)


def socket(party_id, cookie, query=b"tables=1"):
    """A page's socket, its query string sent as the bytes given (a client may send any)."""
    communicator = WebsocketCommunicator(
        application,
        f"/ws/parties/{party_id}/",
        headers=[(b"origin", b"http://localhost"), (b"cookie", cookie.encode()),
                 (b"host", b"localhost")],
    )
    communicator.scope["query_string"] = query if isinstance(query, bytes) else query.encode()
    return communicator


async def opened(party_id, cookie, query=b"tables=1"):
    """The socket, open, past its hello; fails the test if it was refused."""
    communicator = socket(party_id, cookie, query)
    connected, code = await communicator.connect(timeout=WAIT)
    assert connected, f"refused with {code}"
    hello = json.loads(await communicator.receive_from(timeout=WAIT))
    assert hello["type"] == "hello"
    return communicator


async def hears(communicator, group):
    """Whether the socket is in `group`: a push sent there reaches it."""
    await get_channel_layer().group_send(group, {"type": "push", "text": f"to {group}"})
    if await communicator.receive_nothing(timeout=0.3):
        return False
    assert await communicator.receive_from() == f"to {group}"
    return True


# --- the query string ---------------------------------------------------------------------


async def test_a_table_number_of_5000_digits_is_ignored_as_any_other_bad_table(party, guest):
    """int() refuses a string of more than 4,300 digits (ValueError), which answered the
    handshake with a 500. It is a table number no party has: ignored, as `tables=abc` is, and
    the table numbers beside it still count."""
    for query in (f"tables={NINES}", f"tables=2,{NINES},abc&round={NINES}&view=table-{NINES}"):
        phone = await opened(party.id, guest, query)
        assert await hears(phone, party_group(party.id))
        assert await hears(phone, table_group(party.id, 2)) == query.startswith("tables=2,")
        await phone.send_to(text_data="ping")
        assert await phone.receive_from() == "pong"
        await phone.disconnect()


async def test_numbers_int_reads_that_are_not_plain_digits_or_out_of_range_are_ignored(
    party, guest
):
    """`str.isdigit()` is true of "²" and "٣" (int() refuses the first); a round id past the
    database's bigint; a table past the party's last; raw bytes that are not UTF-8."""
    round_id = await sync_to_async(lambda: party.rounds.order_by("id").first().id)()
    for query in ("tables=²", "tables=2²", "tables=٣", "tables=-2", "tables=+2", "tables=0",
                  "tables=2.0", "tables= 2", "tables=99", f"tables=2&round={2**63}",
                  "tables=2&round=99999999999999999999", "tables=2&round=²",
                  f"tables=2&round={round_id}%00"):
        phone = await opened(party.id, guest, query)
        assert await hears(phone, table_group(party.id, 2)) == query.startswith("tables=2&")
        await phone.disconnect()
    phone = await opened(party.id, guest, b"tables=2&round=\xff\xfe&view=\xc3")
    assert await hears(phone, table_group(party.id, 2))
    await phone.disconnect()


KEYS = st.sampled_from(["tables", "round", "view", "tables", "x", ""])
JUNK = st.one_of(
    st.text(alphabet="0123456789", min_size=4000, max_size=6000),
    st.text(alphabet="0123456789,-+ .e=&%²٣\x00", max_size=30),
    st.tuples(st.sampled_from(["table-", "player-"]), st.text(alphabet="0123456789²",
                                                               max_size=30)).map("".join),
    st.integers().map(str),
    st.text(max_size=20),
)
PAIRS = st.lists(st.tuples(KEYS, JUNK), max_size=4).map(
    lambda pairs: "&".join(f"{key}={value}" for key, value in pairs).encode("utf-8", "replace")
)
RAW = st.binary(max_size=60)
QUOTED = st.lists(st.tuples(KEYS, JUNK), max_size=3).map(
    lambda pairs: urllib.parse.urlencode(pairs).encode()
)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(query=st.one_of(PAIRS, RAW, QUOTED))
async def test_whatever_else_the_query_string_says_a_session_with_access_is_let_in(
    party, guest, query
):
    """The session may watch the party, so whatever else the query string says the socket
    opens (a bad value is ignored) and says hello: nothing raises into the server."""
    phone = await opened(party.id, guest, query)
    await phone.disconnect()


# --- sockets per session ------------------------------------------------------------------


async def open_all(party_id, cookie, count):
    return list(await asyncio.gather(*(opened(party_id, cookie) for _ in range(count))))


async def refused(party_id, cookie):
    communicator = socket(party_id, cookie)
    connected, code = await communicator.connect(timeout=WAIT)
    assert not connected, "accepted past the cap"
    return code


async def test_a_session_holds_at_most_the_cap_of_sockets_and_a_closed_one_frees_its_place(
    party, guest
):
    phones = await open_all(party.id, guest, CAP)
    assert await refused(party.id, guest) == TOO_MANY
    assert await refused(party.id, guest) == TOO_MANY  # and again: a refusal holds no place

    # Another guest's session is not affected.
    other = await sync_to_async(code_cookie)(party)
    theirs = await opened(party.id, other)

    await phones.pop().disconnect()
    phones.append(await opened(party.id, guest))  # the place it freed
    assert await refused(party.id, guest) == TOO_MANY
    for phone in [*phones, theirs]:
        await phone.disconnect()
    phones = await open_all(party.id, guest, CAP)  # every place freed
    for phone in phones:
        await phone.disconnect()
    assert (django_settings.PARTY_SOCKETS_PER_SESSION, consumers.TOO_MANY_SOCKETS) == (CAP, TOO_MANY)
    # Nothing left counted for the session once every socket of it closed.
    assert guest.removeprefix("sessionid=") not in consumers._open_sockets


async def test_a_socket_whose_server_ended_it_without_a_disconnect_frees_its_place(
    party, guest
):
    """daphne cancels an application that does not end after a disconnect; the place goes
    as the socket's task ends, however it ends."""
    phones = await open_all(party.id, guest, CAP)
    assert await refused(party.id, guest) == TOO_MANY
    phones.pop().future.cancel()
    session = guest.removeprefix("sessionid=")
    for _ in range(500):  # the cancelled task's end frees it: at most 5 s on a loaded machine
        if consumers._open_sockets[session] < CAP:
            break
        await asyncio.sleep(0.01)
    phones.append(await opened(party.id, guest))
    for phone in phones:
        await phone.disconnect()
