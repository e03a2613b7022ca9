"""Nothing a person reads is left in English: every page, fragment and message rendered in a
pseudo-locale whose every translation is its English wrapped in ⟦ ⟧ (tests/catalogs.py), made
from the code as it is now. Any word outside the brackets that is not a name (a player's, the
party's, a language's, the game's) was never marked for translation."""

import json
import re
import uuid
from html.parser import HTMLParser

import pytest
from django.conf.locale import LANG_INFO
from django.urls import reverse

from parties.models import Party
from parties.party_codes import party_code_shown
from scoring.pot import CURRENCIES
from tests.catalogs import CLOSE, OPEN, PSEUDO, pseudo_catalog
from tests.parties.conftest import TWELVE, Browser, create_form, create_party

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.needs_gettext]
JSON = {"HTTP_ACCEPT": "application/json"}

# Names, not words: the game's and the site's, each language's own, the party's players.
# Names, and the currencies' codes (ISO 4217: the same in every language).
NAMES = {"Bunco", "Night", "English", "Español", "Français", "Pseudo", *TWELVE, *CURRENCIES}
BRACKETED = re.compile(f"{OPEN}[^{OPEN}{CLOSE}]*{CLOSE}")
WORD = re.compile(r"[^\W\d_]{2,}")
ADDRESS = re.compile(r"\bhttps?://\S+")
SHOWN_ATTRIBUTES = {"title", "aria-label", "alt", "placeholder", "aria-description"}


class VisibleText(HTMLParser):
    """The text a person sees or hears: text nodes outside script and style, the attributes a
    screen reader says or a pointer shows, the labels of buttons drawn from inputs."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.texts, self.attributes, self._hidden = [], [], 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._hidden += 1
        attrs = dict(attrs)
        self.attributes += [attrs[name] for name in SHOWN_ATTRIBUTES if attrs.get(name)]
        if tag == "input" and attrs.get("type") in ("submit", "button") and attrs.get("value"):
            self.attributes.append(attrs["value"])

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self._hidden -= 1

    def handle_data(self, data):
        if not self._hidden:
            self.texts.append(data)


def english_left(text, names=()):
    """The words of `text` outside the pseudo-locale's brackets that are not names (nor an
    address: a link printed on a card is the same in every language)."""
    text = ADDRESS.sub(" ", text)
    while BRACKETED.search(text):  # a translation can hold another (a placeholder's value)
        text = BRACKETED.sub(" ", text)
    return [word for word in WORD.findall(text) if word not in NAMES and word not in names]


def words_left_on(html, names=()):
    """A translation may hold tags (a link in a sentence), so the page's text is read whole:
    its text nodes joined, then each attribute on its own."""
    parser = VisibleText()
    parser.feed(html)
    texts = [" ".join(parser.texts), *parser.attributes]
    return sorted({word for text in texts for word in english_left(text, names)})


@pytest.fixture(scope="module")
def pseudo_locale(tmp_path_factory):
    return pseudo_catalog(tmp_path_factory.mktemp("pseudo"))


@pytest.fixture
def pseudo(settings, pseudo_locale, monkeypatch):
    settings.LOCALE_PATHS = [str(pseudo_locale)]
    settings.LANGUAGES = [*settings.LANGUAGES, (PSEUDO, "Pseudo")]
    monkeypatch.setitem(LANG_INFO, PSEUDO, {
        "bidi": False, "code": PSEUDO, "name": "Pseudo", "name_local": "Pseudo"})


def browser_in_pseudo():
    browser = Browser()
    browser.cookies["django_language"] = PSEUDO
    return browser


def tap(browser, party, table, seen=0, **fields):
    data = {"tap_id": str(uuid.uuid4()), "seen": str(seen), **fields}
    return browser.post(reverse("parties:roll", args=[party.id, table]), data, **JSON)


@pytest.fixture
def night(pseudo):
    """A party in the pseudo-locale's host browser, its first round started and a few rolls in."""
    host = browser_in_pseudo()
    party = create_party(host)
    assert host.post(reverse("parties:start", args=[party.id]), **JSON).status_code == 200
    seen = 0
    for outcome in ("two", "one", "bunco"):
        answer = tap(host, party, 1, seen, outcome=outcome)
        assert answer.status_code == 200, answer.content
        seen = json.loads(answer.content)["version"]
    return host, Party.objects.get(pk=party.pk)


def party_names(party):
    """The party's own words: its name, and its code as typed and in the groups a card or the
    TV shows it in (letters between its digits read as words)."""
    code = party.code
    fragments = {code[i:j] for i in range(len(code)) for j in range(i + 2, len(code) + 1)}
    return {*WORD.findall(party.name), *party_code_shown(code).split(), *fragments}


def page_urls(party):
    ann = party.players.get(name="Ann")
    urls = [reverse(name) for name in ("parties:landing", "parties:create", "parties:join",
                                       "parties:import", "parties:waiting")]
    urls += [reverse(f"parties:{name}", args=[party.id]) for name in (
        "host", "party", "results", "tv", "table_cards", "player_cards", "rules_sheet",
        "score_sheets", "tally_sheets")]
    urls += [reverse("parties:table", args=[party.id, n]) for n in (1, 2, 3)]
    urls += [reverse("parties:player", args=[party.id, ann.id])]
    return urls


def test_every_page_of_a_night_in_play_reads_in_the_pseudo_locale(night):
    host, party = night
    left = {}
    for url in page_urls(party):
        response = host.get(url)
        assert response.status_code == 200, url
        assert f'lang="{PSEUDO}"' in response.content.decode()[:300], url
        words = words_left_on(response.content.decode(), party_names(party))
        if words:
            left[url] = words
    assert left == {}, f"English not marked for translation: {left}"


def test_the_error_pages_read_in_the_pseudo_locale(pseudo):
    browser = browser_in_pseudo()
    left = {}
    for url, status in (("/no/such/page/", 404), (reverse("parties:host", args=[99999]), 404)):
        response = browser.get(url)
        assert response.status_code == status, url
        if words := words_left_on(response.content.decode()):
            left[url] = words
    assert left == {}, left


def test_a_refused_tap_and_a_refused_form_speak_the_pseudo_locale(night):
    host, party = night
    version = party.rounds.get().version
    refused = tap(host, party, 1, version, outcome="no-such-button")
    assert refused.status_code == 400
    assert english_left(json.loads(refused.content)["message"]) == []
    # Our own refusal: Django's ("This field is required.") come in Django's catalogs.
    form = host.post(reverse("parties:create"), create_form(names=["Ann", "Bea"]))
    assert form.status_code in (200, 400)
    assert "error" in form.content.decode()
    assert words_left_on(form.content.decode(), {"Ann", "Bea"}) == [], "the create form's errors"


def test_guests_who_add_themselves_and_the_host_who_plays_read_in_the_pseudo_locale(pseudo):
    """The join form's refusal, the guest's waiting page (waiting, then turned away), and the
    host page with a guest waiting and the host playing as Ann, with her sheet and table."""
    host = browser_in_pseudo()
    party = create_party(host, self_join="on")
    ann = party.players.get(name="Ann")
    assert host.post(reverse("parties:host_plays", args=[party.id]), {"player": ann.id}
                     ).status_code == 302
    guest = browser_in_pseudo()
    refused = guest.post(reverse("parties:join"), {"code": party.code, "name": "ann"})
    assert refused.status_code == 400
    assert words_left_on(refused.content.decode(), {"ann"}) == [], "the join's refusal"
    assert guest.post(reverse("parties:join"), {"code": party.code, "name": "Mo"}
                      ).status_code == 302
    names = {*party_names(party), "Mo"}
    pages = {"waiting": guest.get(reverse("parties:waiting")),
             "host": host.get(reverse("parties:host", args=[party.id])),
             "player": host.get(reverse("parties:player", args=[party.id, ann.id])),
             "table": host.get(reverse("parties:table", args=[party.id, 1]))}
    guest_id = party.waiting_guests.get().id
    told = host.post(reverse("parties:guest_turn_away", args=[party.id, guest_id]), follow=True)
    pages["host after"] = told
    pages["turned away"] = guest.get(reverse("parties:waiting"))
    left = {}
    for what, response in pages.items():
        assert response.status_code == 200, what
        if words := words_left_on(response.content.decode(), names):
            left[what] = words
    assert left == {}, f"English not marked for translation: {left}"
