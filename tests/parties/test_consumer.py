"""The websocket: who may connect, what it pushes after a commit, and the heartbeat."""

import asyncio
import json
import uuid

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import transaction

from bunco_site.asgi import application
from parties.live import announce
from parties.models import AccessLink, Party
from parties.services.link import link_reissue
from parties.services.party import party_reshuffle, party_swap_players
from parties.services.roll import roll_record
from parties.services.round import bell_ring, round_start
from tests.parties.conftest import Browser, create_party, redeem

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


def _phone_cookie(party, *more_links, **link):
    """The cookie of a browser that redeemed the link `link` picks (and any of `more_links`)."""
    browser = Browser()
    for chosen in [AccessLink.objects.get(party=party, **link), *more_links]:
        redeem(browser, chosen)
    return f"sessionid={browser.cookies['sessionid'].value}"


def _link(party, **link):
    return AccessLink.objects.get(party=party, revoked_at__isnull=True, **link)


def _reissue(party, link):
    """The host's "New link", as the view runs it."""
    link_reissue(party=party, link_id=link.id)


async def closed_with(phone):
    message = await phone.receive_output(timeout=2)
    assert message["type"] == "websocket.close", message
    return message.get("code")


async def connect(party_id, cookie, tables="", query=None):
    """A page's socket (`query` as the page sends it, else `tables=...`), once open past its
    first message, the hello, which is kept as `communicator.hello`."""
    communicator = WebsocketCommunicator(
        application,
        f"/ws/parties/{party_id}/?{query or f'tables={tables}'}",
        headers=[(b"origin", b"http://localhost"), (b"cookie", cookie.encode()),
                 (b"host", b"localhost")],
    )
    connected, code = await communicator.connect(timeout=10)
    if connected:
        communicator.hello = json.loads(await communicator.receive_from(timeout=10))
        assert communicator.hello["type"] == "hello"
    return communicator, connected, code


async def test_a_phone_with_a_link_connects_and_answers_the_heartbeat():
    party = await sync_to_async(create_party)(Browser())
    cookie = await sync_to_async(_phone_cookie)(party, role="player", player__name="Ann")
    phone, connected, _code = await connect(party.id, cookie, "2")
    assert connected
    await phone.send_to(text_data="ping")
    assert await phone.receive_from() == "pong"
    await phone.disconnect()


async def test_a_stranger_or_another_partys_phone_is_refused():
    party = await sync_to_async(create_party)(Browser())
    other = await sync_to_async(create_party)(Browser(), names=["Wu", "Xi", "Yan", "Zoe"])
    cookie = await sync_to_async(_phone_cookie)(other, role="host")
    for jar in ("", cookie):
        phone, connected, code = await connect(party.id, jar, "1")
        assert not connected and code == 4403


async def test_a_roll_is_pushed_to_that_tables_phones_only_and_the_bell_to_all():
    party = await sync_to_async(create_party)(Browser())
    cookie = await sync_to_async(_phone_cookie)(party, role="player", player__name="Ann")
    at_two, ok2, _ = await connect(party.id, cookie, "2")
    at_three, ok3, _ = await connect(party.id, cookie, "3")
    assert ok2 and ok3
    await sync_to_async(round_start)(party=party)
    started = json.loads(await at_two.receive_from())
    assert started["type"] == "round" and started["what"] == "started"
    await at_three.receive_from()

    scorer = await sync_to_async(
        lambda: [AccessLink.objects.get(party=party, role="table", table__number=2).id]
    )()
    await sync_to_async(roll_record)(
        party_id=party.id, table_number=2, tap_id=uuid.uuid4(), dice=(1, 1, 5), called=None,
        seen=0, link_ids=scorer,
    )
    pushed = json.loads(await at_two.receive_from())
    assert (pushed["type"], pushed["table"], pushed["version"]) == ("table", 2, 1)
    assert 'id="table-2"' in pushed["html"] and ">2</div>" in pushed["html"]
    assert await at_three.receive_nothing()  # table 3's phone is not told about table 2

    await sync_to_async(bell_ring)(party=party, by="host")
    for phone in (at_two, at_three):
        messages = [json.loads(await phone.receive_from()) for _ in range(2)]
        assert {m["type"] for m in messages} == {"bell", "table"}
        bell = next(m for m in messages if m["type"] == "bell")
        assert bell["by"] == "host" and bell["seq"] > started["seq"]
        table = next(m for m in messages if m["type"] == "table")
        assert table["bell"] is True and 'data-bell="1"' in table["html"]  # "finish your turn"
    await at_two.disconnect()
    await at_three.disconnect()


async def test_a_revoked_links_open_socket_is_closed_and_cannot_reconnect():
    party = await sync_to_async(create_party)(Browser())
    ann = await sync_to_async(_link)(party, role="player", player__name="Ann")
    keeper = await sync_to_async(_link)(party, role="table", table__number=2)
    ann_cookie = await sync_to_async(_phone_cookie)(party, pk=ann.pk)
    keeper_cookie = await sync_to_async(_phone_cookie)(party, pk=keeper.pk)
    at_ann, ok1, _ = await connect(party.id, ann_cookie, "1")
    at_keeper, ok2, _ = await connect(party.id, keeper_cookie, "2")
    assert ok1 and ok2

    await sync_to_async(_reissue)(party, ann)
    assert await closed_with(at_ann) == 4403  # the page reconnects on any close ...
    again, connected, code = await connect(party.id, ann_cookie, "1")
    assert not connected and code == 4403  # ... and is refused

    # Another link's socket is left open, and still hears the party.
    await sync_to_async(round_start)(party=party)
    started = json.loads(await at_keeper.receive_from())
    assert started["type"] == "round" and started["what"] == "started"
    await at_keeper.disconnect()


async def test_a_socket_another_live_link_lets_in_stays_open_when_one_is_revoked():
    party = await sync_to_async(create_party)(Browser())
    ann = await sync_to_async(_link)(party, role="player", player__name="Ann")
    keeper = await sync_to_async(_link)(party, role="table", table__number=2)
    # Ann keeps score at table 2 too: her browser redeemed both links.
    cookie = await sync_to_async(_phone_cookie)(party, keeper, pk=ann.pk)
    phone, connected, _ = await connect(party.id, cookie, "2")
    assert connected

    await sync_to_async(_reissue)(party, ann)
    assert await phone.receive_nothing(timeout=0.5)
    await sync_to_async(round_start)(party=party)
    assert json.loads(await phone.receive_from())["type"] == "round"
    await phone.disconnect()


async def test_a_revoke_rolled_back_closes_nothing():
    party = await sync_to_async(create_party)(Browser())
    ann = await sync_to_async(_link)(party, role="player", player__name="Ann")
    cookie = await sync_to_async(_phone_cookie)(party, pk=ann.pk)
    phone, connected, _ = await connect(party.id, cookie, "1")
    assert connected

    def revoke_then_fail():
        with pytest.raises(RuntimeError), transaction.atomic():
            link_reissue(party=party, link_id=ann.id)
            announce.on_commit_links_revoked(party.id, [ann.id])
            raise RuntimeError("the host's request failed after the revoke")

    await sync_to_async(revoke_then_fail)()
    assert await phone.receive_nothing(timeout=0.5)  # only a committed revoke is announced
    await phone.send_to(text_data="ping")
    assert await phone.receive_from() == "pong"
    await phone.disconnect()


async def test_a_reshuffle_and_a_swap_before_round_1_reach_every_open_phone():
    """A guest who opened their link before the host reshuffled (or swapped two players) is
    told at once, so their page never shows the chair they no longer have."""
    party = await sync_to_async(create_party)(Browser())
    cookie = await sync_to_async(_phone_cookie)(party, role="player", player__name="Ann")
    phone, connected, _ = await connect(party.id, cookie, "1")
    assert connected

    await sync_to_async(party_reshuffle)(party=party)
    reshuffled = json.loads(await phone.receive_from())
    assert reshuffled["type"] == "round" and reshuffled["what"] == "seating"

    ann, bea = await sync_to_async(
        lambda: [party.players.get(name=name).id for name in ("Ann", "Bea")]
    )()
    await sync_to_async(party_swap_players)(party=party, player_a=ann, player_b=bea)
    swapped = json.loads(await phone.receive_from())
    assert swapped["what"] == "seating" and swapped["seq"] > reshuffled["seq"]
    await phone.disconnect()


async def test_the_first_message_says_what_the_party_and_the_pages_round_are_at():
    """A page compares the hello with what it rendered: a round started, or a roll made,
    between its render and the socket joining its groups reached no socket of its own."""
    party = await sync_to_async(create_party)(Browser())
    cookie = await sync_to_async(_phone_cookie)(party, role="table", table__number=2)
    round_id = await sync_to_async(lambda: party.rounds.order_by("id").first().id)()
    rendered = await sync_to_async(lambda: Party.objects.get(pk=party.id).seq)()
    await sync_to_async(round_start)(party=party)  # the page missed this

    phone, connected, _ = await connect(party.id, cookie, query=f"tables=2&round={round_id}")
    assert connected
    started = await sync_to_async(lambda: party.rounds.get(pk=round_id).version)()
    assert phone.hello == {"type": "hello", "seq": rendered + 1, "version": started}
    await phone.disconnect()

    # Another party's round, or none named, is version 0: nothing to compare.
    other = await sync_to_async(create_party)(Browser())
    other_round = await sync_to_async(lambda: other.rounds.order_by("id").first().id)()
    for query in (f"tables=2&round={other_round}", "tables=2", "tables=2&round=x"):
        phone, connected, _ = await connect(party.id, cookie, query=query)
        assert connected and phone.hello["version"] == 0
        await phone.disconnect()


async def test_at_a_round_close_each_page_is_sent_one_message_its_seat_or_the_refetch():
    """A table's page and the page of a player who sat there take their new seat from the
    table's event, each sent its own page's message, and are not sent the party-wide one; a page without a piece there (the
    host's, watching every table; a page that said no view) is sent only the party-wide one."""
    from tests.parties.test_round_close_push import close_by_hand

    party = await sync_to_async(create_party)(Browser())
    await sync_to_async(round_start)(party=party)
    seated = await sync_to_async(
        lambda: list(party.rounds.get(number=1).seats.filter(table__number=2)
                     .values_list("player_id", flat=True))
    )()
    table_cookie = await sync_to_async(_phone_cookie)(party, role="table", table__number=2)
    player_cookie = await sync_to_async(_phone_cookie)(
        party, role="player", player_id=seated[0]
    )
    host_cookie = await sync_to_async(_phone_cookie)(party, role="host")
    pages = {
        "table": await connect(party.id, table_cookie, query="tables=2&view=table-2"),
        "player": await connect(party.id, player_cookie,
                                query=f"tables=2&view=player-{seated[0]}"),
        "host": await connect(party.id, host_cookie, query="tables=1,2,3&view="),
        "no view": await connect(party.id, table_cookie, query="tables=2"),
    }
    phones = {name: communicator for name, (communicator, ok, _code) in pages.items()}
    assert all(ok for _c, ok, _code in pages.values())

    await sync_to_async(close_by_hand)(party, 3)
    closes = {}
    for name, phone in phones.items():
        while not await phone.receive_nothing(timeout=0.5):
            message = json.loads(await phone.receive_from())
            if message["type"] == "round" and message["what"] == "closed":
                closes.setdefault(name, []).append(message)
    seq = closes["host"][0]["seq"]
    # Each page is sent its own view's piece only, not those of the other pages at its table.
    assert [list(m["views"]) for m in closes["table"]] == [["table-2"]]
    assert [list(m["views"]) for m in closes["player"]] == [[f"player-{seated[0]}"]]
    for name in ("host", "no view"):
        assert [("views" in m, m["seq"]) for m in closes[name]] == [(False, seq)]
    assert closes["table"][0]["seq"] == closes["player"][0]["seq"] == seq
    for phone in phones.values():
        await phone.disconnect()


async def test_sockets_opening_at_once_read_their_access_at_the_same_time(monkeypatch):
    """Two phones reconnecting at once: each socket's access is read while the other's is
    (in Channels' one sync thread the first would wait for the second, which waits for it)."""
    import threading

    from parties import access

    party = await sync_to_async(create_party)(Browser())
    cookie = await sync_to_async(_phone_cookie)(party, role="table", table__number=1)
    both_reading = threading.Barrier(2, timeout=5)
    grant_for = access.grant_for

    def read_with_the_other(session, party):
        both_reading.wait()
        return grant_for(session, party)

    monkeypatch.setattr(access, "grant_for", read_with_the_other)
    opened = await asyncio.gather(connect(party.id, cookie, "1"), connect(party.id, cookie, "1"))
    assert [ok for _phone, ok, _code in opened] == [True, True]
    for phone, _ok, _code in opened:
        await phone.disconnect()
