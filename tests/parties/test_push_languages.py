"""Two phones at one table may read two languages: each is sent the table's update, and the new
seats after a bell, in its own (parties/live/languages.py), and a party whose phones all read the
default is rendered once, as before languages."""

import json
import uuid

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import translation

from bunco_site.asgi import application
from parties.live import announce, languages
from parties.models import AccessLink
from parties.pages.fragments import PHASE_LABELS
from parties.services.roll import roll_record
from parties.services.round import round_start
from tests.parties.conftest import Browser, create_party
from tests.parties.test_consumer import _phone_cookie

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


def in_language(language, text):
    with translation.override(language):
        return str(text)


async def phone(party, cookie, accept_language=None, chosen=None):
    """A table-2 page's socket, from a browser asking for `accept_language` or holding the
    language cookie of a `chosen` language, once open past its hello."""
    if chosen:
        cookie = f"{cookie}; django_language={chosen}"
    headers = [(b"origin", b"http://localhost"), (b"cookie", cookie.encode()),
               (b"host", b"localhost")]
    if accept_language:
        headers.append((b"accept-language", accept_language.encode()))
    communicator = WebsocketCommunicator(
        application, f"/ws/parties/{party.id}/?tables=2", headers=headers)
    connected, _code = await communicator.connect(timeout=10)
    assert connected
    assert json.loads(await communicator.receive_from(timeout=10))["type"] == "hello"
    return communicator


async def tap_at_table_two(party):
    scorer = await sync_to_async(
        lambda: [AccessLink.objects.get(party=party, role="table", table__number=2).id]
    )()
    await sync_to_async(roll_record)(
        party_id=party.id, table_number=2, tap_id=uuid.uuid4(), dice=(1, 1, 5), called=None,
        seen=0, link_ids=scorer,
    )


async def test_each_phone_at_a_table_gets_the_update_in_its_own_language():
    languages.forget_read()
    party = await sync_to_async(create_party)(Browser())
    cookie = await sync_to_async(_phone_cookie)(party, role="player", player__name="Ann")
    english = await phone(party, cookie)
    spanish = await phone(party, cookie, accept_language="es-MX,es;q=0.9,en;q=0.5")
    french = await phone(party, cookie, chosen="fr")
    await sync_to_async(round_start)(party=party)
    for each in (english, spanish, french):
        assert json.loads(await each.receive_from(timeout=10))["what"] == "started"

    await tap_at_table_two(party)
    for each, language in ((english, "en"), (spanish, "es"), (french, "fr")):
        pushed = json.loads(await each.receive_from(timeout=10))
        assert (pushed["type"], pushed["table"], pushed["version"]) == ("table", 2, 1)
        rolling = in_language(language, PHASE_LABELS["playing"])
        assert rolling in pushed["html"], (language, rolling)
        assert await each.receive_nothing()  # one update each, not one per language
    assert in_language("es", PHASE_LABELS["playing"]) != in_language("en", PHASE_LABELS["playing"])
    for each in (english, spanish, french):
        await each.disconnect()


async def test_a_party_read_in_one_language_renders_each_update_once(monkeypatch):
    languages.forget_read()
    party = await sync_to_async(create_party)(Browser())
    cookie = await sync_to_async(_phone_cookie)(party, role="player", player__name="Ann")
    english = await phone(party, cookie)
    await sync_to_async(round_start)(party=party)
    await english.receive_from(timeout=10)
    rendered = []
    real = announce.fragments.render_table
    monkeypatch.setattr(announce.fragments, "render_table",
                        lambda **kw: rendered.append(translation.get_language()) or real(**kw))
    await tap_at_table_two(party)
    assert json.loads(await english.receive_from(timeout=10))["type"] == "table"
    assert rendered == ["en"]
    await english.disconnect()
