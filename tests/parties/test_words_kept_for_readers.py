"""What rows keep for people to read is worded when it is read, in the reader's language: a
correction's effects, a late roll's description, a ghost's name. Two phones reading one party in
two languages each read them in their own. Rows kept before, as English text, show as stored.

The messages these words are made of reach the catalogs when the translators next bring them up
to date, so a test gives the Spanish catalog the words it needs (`spanish`), as the translation
will; the messages translated already (a round's name, a roll as entered) come from the catalog
as it is."""

import io
import uuid

import pytest
from django.urls import reverse
from django.utils import translation
from django.utils.html import escape
from django.utils.translation import trans_real

from parties import selectors
from parties.exchange import exports
from parties.live import close_push, languages
from parties.models import Correction, LateTap, Round, Seat
from parties.pages.corrections import audit_lines, pending_late_taps
from parties.services import party_import
from parties.services.late_tap import late_tap_apply
from parties.services.roll import roll_record
from parties.services.roll_correction import roll_correct
from parties.services.round import round_start
from parties.translation import (
    correction_effects,
    deferred,
    late_tap_description,
    player_name,
    readable,
    worded,
)
from parties.views.files import document_json
from tests.parties.conftest import create_party
from tests.parties.test_corrections import play_round_one, roll_at
from tests.parties.test_play import new_party, scorer
from tests.parties.test_pseudo_locale import (  # noqa: F401 - pseudo and pseudo_locale: fixtures
    browser_in_pseudo,
    english_left,
    pseudo,
    pseudo_locale,
)

pytestmark = pytest.mark.django_db

# What the translators will write for the messages these tests read (a plural's forms by the
# catalog's Plural-Forms: Spanish has three, the second for a million and its multiples).
SPANISH = {
    "%(round)s, table %(table)s: %(changes)s": "%(round)s, mesa %(table)s: %(changes)s",
    ("%(names)s now wins", 0): "%(names)s gana ahora",
    ("%(names)s now wins", 1): "%(names)s ganan ahora",
    ("%(names)s now wins", 2): "%(names)s ganan ahora",
    ("%(names)s now loses", 0): "%(names)s pierde ahora",
    ("%(names)s now loses", 1): "%(names)s pierden ahora",
    ("%(names)s now loses", 2): "%(names)s pierden ahora",
    "%(roll)s for %(name)s": "%(roll)s para %(name)s",
    "made before the bell": "hecha antes de la campana",
    "another phone had entered rolls at that table since": (
        "otro teléfono había anotado tiradas en esa mesa desde entonces"
    ),
    "Ghost %(number)s": "Fantasma %(number)s",
}


@pytest.fixture
def spanish(monkeypatch):
    """The app's Spanish catalog with SPANISH's words in it, for this test only (Django keeps
    the catalogs of one language apart by their plural forms: the app's is the one that holds
    a message of the app's)."""
    catalogs = trans_real.translation("es")._catalog._catalogs
    ours = next(catalog for catalog in catalogs if "Set %(set)s, round %(round)s" in catalog)
    for msgid, text in SPANISH.items():
        monkeypatch.setitem(ours, msgid, text)


def in_spanish(function, *args):
    with translation.override("es"):
        return function(*args)


def in_english(function, *args):
    with translation.override("en"):
        return function(*args)


def spanish_host(host):
    host.cookies["django_language"] = "es"
    return host


# -- a correction's effects ---------------------------------------------------------------------


def test_a_corrections_effects_are_kept_as_messages_and_read_in_each_language(party, spanish):
    closed = play_round_one(party)
    correction = roll_correct(
        party=party, roll_id=roll_at(closed, 2, (1, 5, 6)).id, by="host", dice=(1, 1, 1)
    )
    correction.refresh_from_db()
    assert correction.effects == ""  # no text in any one language
    changed, first = correction.effect_messages[:2]  # what the roll became, what that changed
    assert changed[0] == "Table %(table)s: %(was)s → %(now)s"
    assert first[0] == "%(round)s, table %(table)s: %(changes)s" and first[1]["table"] == 2
    assert in_spanish(correction_effects, correction)[0] == "Mesa 2: 1 5 6 → 1 1 1"

    english, spanish_ = in_english(correction_effects, correction)[1:], in_spanish(
        correction_effects, correction)[1:]
    assert english[0].startswith("Set 1, round 1, table 2: ") and " now win" in english[0]
    # The round's name from the catalog as it is, the rest from the words the test gave it.
    assert spanish_[0].startswith("Serie 1, ronda 1, mesa 2: ") and " ganan ahora" in spanish_[0]
    assert " now win" not in spanish_[0]
    # The players' names are as typed, in both.
    names = [name for name in party.players.values_list("name", flat=True) if name in english[0]]
    assert names and all(name in spanish_[0] for name in names)
    assert len(spanish_) == len(english)


def test_the_host_reads_the_corrections_in_their_own_language(host, party, spanish):
    closed = play_round_one(party)
    roll_correct(party=party, roll_id=roll_at(closed, 2, (1, 5, 6)).id, by="host", dice=(1, 1, 1))
    english = host.get(reverse("parties:host", args=[party.id])).content.decode()
    assert "Set 1, round 1, table 2: " in english
    page = spanish_host(host).get(reverse("parties:host", args=[party.id])).content.decode()
    assert "Serie 1, ronda 1, mesa 2: " in page and "ganan ahora" in page
    assert "now win" not in page
    results = host.get(reverse("parties:results", args=[party.id])).content.decode()
    assert "ganan ahora" in results


def test_what_a_void_would_change_is_shown_in_the_hosts_language(host, party, spanish):
    closed = play_round_one(party)
    roll = roll_at(closed, 2, (1, 5, 6))
    page = spanish_host(host).get(reverse("parties:void", args=[party.id, roll.id]))
    assert page.status_code == 200
    assert "Serie 1, ronda 1, mesa 2: " in page.content.decode()
    assert not Correction.objects.exists()


def test_a_message_the_catalog_has_reads_as_its_translation_with_its_values_worded():
    kept = deferred.gettext(
        "%(round)s, table %(table)s: %(changes)s",
        round=deferred.gettext("Set %(set)s, round %(round)s", set=2, round=3),
        table=4,
        changes="12 – 9 → 10 – 9; Gail 2 → 0",
    )
    with translation.override("es"):
        expected = translation.gettext("%(round)s, table %(table)s: %(changes)s") % {
            "round": translation.gettext("Set %(set)s, round %(round)s") % {"set": 2, "round": 3},
            "table": 4,
            "changes": "12 – 9 → 10 – 9; Gail 2 → 0",
        }
        assert worded(kept) == expected
        assert worded(kept).startswith("Serie 2, ronda 3")  # the catalog's own words


def test_a_correction_kept_before_as_english_text_shows_as_stored(party):
    closed = play_round_one(party)
    old = Correction.objects.create(
        party=party, round=closed, kind="void", made_by="host",
        effects="Round 1, table 2: Ann & Bo now win\nRound 2 (not started yet) is seated again",
    )
    assert in_spanish(correction_effects, old) == [
        "Round 1, table 2: Ann & Bo now win", "Round 2 (not started yet) is seated again"]
    line = next(line for line in in_spanish(audit_lines, party) if line.made_at == old.made_at)
    assert line.effects == in_spanish(correction_effects, old)


# -- a late roll's description ------------------------------------------------------------------


def held_late_roll(party, closed):
    """A roll table 2's phone made before the bell of `closed`, arriving once it has closed."""
    return roll_record(
        party_id=party.id, table_number=2, tap_id=uuid.uuid4(), outcome="two", called=None,
        seen=0, link_ids=scorer(party, 2), round_id=closed.id, bell_seen=False,
    )


def test_a_late_rolls_description_is_kept_as_messages_and_read_in_each_language(party, spanish):
    closed = play_round_one(party)
    round_start(party=party)
    with translation.override("es"):
        held = held_late_roll(party, closed)  # the phone that sent it reads Spanish
    late = LateTap.objects.get()
    assert late.description == "" and late.description_messages
    english = in_english(late_tap_description, late)
    assert english.startswith("2 points for ")
    assert english.endswith(
        "; made before the bell; another phone had entered rolls at that table since")
    who = english.removeprefix("2 points for ").split(";")[0]  # a player's name, as typed
    assert in_spanish(late_tap_description, late) == (
        f"2 puntos para {who}; hecha antes de la campana; "
        "otro teléfono había anotado tiradas en esa mesa desde entonces"
    )
    assert in_spanish(late_tap_description, late) in held.message  # the phone's own language
    assert [t.description for t in in_spanish(pending_late_taps, party)] == [
        in_spanish(late_tap_description, late)]


def test_the_host_reads_a_late_roll_in_their_own_language(host, party, spanish):
    closed = play_round_one(party)
    round_start(party=party)
    held_late_roll(party, closed)
    late = LateTap.objects.get()
    page = spanish_host(host).get(reverse("parties:host", args=[party.id])).content.decode()
    assert in_spanish(late_tap_description, late) in page and "made before the bell" not in page
    # Applied, its correction's first effect says what it was, in each reader's language; its
    # note is the host's alone.
    correction = late_tap_apply(party=party, late_tap_id=late.id, by="host")
    assert correction.note == ""
    assert in_spanish(correction_effects, correction)[0] == (
        "Tirada tardía en la mesa 2: " + in_spanish(late_tap_description, late)
    )


def test_a_late_roll_kept_before_as_english_text_shows_as_stored(party):
    closed = play_round_one(party)
    late = LateTap.objects.create(
        party=party, round=closed, table=party.tables.get(number=3), tap_id=uuid.uuid4(),
        fields={"dice": [], "outcome": "two", "face": None, "called": None, "seen": 0,
                "bell_seen": False},
        description="2 points for Ann, made before the bell", entered_by="table 3",
    )
    assert in_spanish(late_tap_description, late) == "2 points for Ann, made before the bell"
    assert in_spanish(pending_late_taps, party)[0].description == late.description


# -- a ghost's name -----------------------------------------------------------------------------


@pytest.fixture
def ghosts():
    """Ten players: two ghosts fill the empty seats."""
    party = new_party(names=["Ann", "Bea", "Cleo", "Dot", "Edie", "Fran", "Gail", "Hope", "Iris",
                             "June"])
    assert list(party.players.filter(is_ghost=True).values_list("name", flat=True)) == [
        "Ghost 1", "Ghost 2"]  # stored in English, whatever the language
    return party


def test_a_ghosts_name_reads_in_the_readers_language(spanish):
    assert in_spanish(player_name, "Ghost 1", True) == "Fantasma 1"
    assert in_english(player_name, "Ghost 1", True) == "Ghost 1"
    assert in_spanish(player_name, "Ghost 1", False) == "Ghost 1"  # a name as typed, never read
    with translation.override("fr"):  # not translated yet: its English, as every message
        assert player_name("Ghost 12", True) == translation.gettext("Ghost %(number)s") % {
            "number": "12"}


def test_the_seating_names_the_ghosts_and_their_partners_in_the_readers_language(
    ghosts, spanish
):
    round_ = selectors.current_round(ghosts)
    seats = [seat for table in in_spanish(selectors.seating, round_) for seat in table.seats]
    names = {seat.name for seat in seats if seat.is_ghost}
    assert names == {"Fantasma 1", "Fantasma 2"}
    partners = {seat.partner for seat in seats if seat.partner.startswith("Fantasma")}
    assert partners == names  # each ghost is a real player's partner
    english = [seat for table in in_english(selectors.seating, round_) for seat in table.seats]
    assert {seat.name for seat in english if seat.is_ghost} == {"Ghost 1", "Ghost 2"}


def test_every_screen_that_names_a_ghost_names_it_in_the_readers_language(ghosts, spanish):
    from tests.parties.conftest import Browser, redeem

    host = Browser()
    redeem(host, ghosts.links.get(role="host"))
    host.cookies["django_language"] = "es"
    round_start(party=ghosts)
    table = next(
        n for n in (1, 2, 3)
        if Seat.objects.filter(round__party=ghosts, table__number=n, player__is_ghost=True)
        .exists()
    )
    for url in (
        reverse("parties:host", args=[ghosts.id]),
        reverse("parties:tv", args=[ghosts.id]),
        reverse("parties:table", args=[ghosts.id, table]),
    ):
        page = host.get(url).content.decode()
        assert "Fantasma" in page and "Ghost 1" not in page and "Ghost 2" not in page, url


def test_the_close_pushes_a_ghosts_name_in_each_language_its_phones_read(
    ghosts, spanish, monkeypatch
):
    monkeypatch.setattr(languages, "read_at", lambda party_id: ("en", "es"))
    round_ = Round.objects.select_related("bunco_set").get(party=ghosts)
    seats = list(Seat.objects.filter(round=round_).select_related("table", "player")
                 .order_by("table__number", "position"))
    seating = [[str(s.player_id) for s in seats if s.table.number == n] for n in (1, 2, 3)]
    views = close_push.next_seat_views(
        party_id=ghosts.id, status=ghosts.status, rules=ghosts.rules, closed_seating=seating,
        next_round=round_, seats=seats,
    )
    for language, ghost in (("en", "Ghost"), ("es", "Fantasma")):
        pages = [view for table in views[language].values() for view in table.values()]
        tables = " ".join(view["html"] for view in pages if "html" in view)
        assert f"{ghost} 1" in tables and f"{ghost} 2" in tables, language
        partners = {view["where"]["partner"] for view in pages if "where" in view}
        assert {f"{ghost} 1", f"{ghost} 2"} <= partners, language


# -- party files ---------------------------------------------------------------------------------


def imported(document):
    return party_import.party_import(file=io.BytesIO(document_json(document).encode()))


def without(document, label, name):
    """The document as a file from before `name` was a column of `label`'s rows."""
    table = document["models"][label]
    place = table["columns"].index(name)
    del table["columns"][place]
    for row in table["rows"]:
        del row[place]


def test_a_party_file_from_before_the_words_were_kept_as_messages_shows_them_as_stored(party):
    closed = play_round_one(party)
    roll_correct(party=party, roll_id=roll_at(closed, 2, (1, 5, 6)).id, by="host", dice=(1, 1, 1))
    LateTap.objects.create(
        party=party, round=closed, table=party.tables.get(number=3), tap_id=uuid.uuid4(),
        fields={"dice": [], "outcome": "two", "face": None, "called": None, "seen": 0,
                "bell_seen": False},
        description="placeholder", entered_by="table 3",
    )
    document = exports.party_document(party)
    corrections = document["models"]["parties.correction"]
    effects = corrections["columns"].index("effects")
    corrections["rows"][0][effects] = "Round 1, table 2: Ann & Bo now win"
    without(document, "parties.correction", "effect_messages")
    lates = document["models"]["parties.latetap"]
    lates["rows"][0][lates["columns"].index("description")] = "2 points for Ann"
    without(document, "parties.latetap", "description_messages")

    copy = imported(document)
    assert [line.effects for line in in_spanish(audit_lines, copy)] == [
        ["Round 1, table 2: Ann & Bo now win"]]
    assert [t.description for t in in_spanish(pending_late_taps, copy)] == ["2 points for Ann"]


@pytest.mark.parametrize("kept", [
    [["%(round)s is in play again (table %(table)s)", {"round": "Set 1, round 1"}]],  # a value
    [["one %(x)s", "many %(y)s", {"x": 1, "count": 2}]],  # a plural form's value
    [["%(names)s now win", "%(names)s now win", {"names": "Ann", "count": "2"}]],
    [{"roll": "2 2 6"}],
    [{"list": ["a"], "sep": 5}],
    [["a", "b", "c", {}]],
    "Round 1, table 2: Ann now wins",
])
def test_a_party_file_whose_kept_words_cannot_be_worded_is_refused(party, kept):
    play_round_one(party)
    roll_correct(
        party=party, roll_id=roll_at(Round.objects.get(party=party, number=1), 2, (1, 5, 6)).id,
        by="host", dice=(1, 1, 1),
    )
    assert not readable(kept)
    document = exports.party_document(party)
    corrections = document["models"]["parties.correction"]
    corrections["rows"][0][corrections["columns"].index("effect_messages")] = kept
    with pytest.raises(party_import.ImportRefused, match="its words"):
        imported(document)


def test_every_correction_a_night_keeps_can_be_worded(party):
    closed = play_round_one(party)
    roll_correct(party=party, roll_id=roll_at(closed, 2, (1, 5, 6)).id, by="host", dice=(1, 1, 1))
    for correction in Correction.objects.filter(party=party):
        assert readable(correction.effect_messages)


# -- nothing left in English ---------------------------------------------------------------------


@pytest.mark.needs_gettext
@pytest.mark.django_db(transaction=True)
def test_what_corrections_changed_and_what_late_rolls_were_read_in_the_pseudo_locale(
    pseudo  # noqa: F811
):
    """Every message these words are made of is marked for translation: in the pseudo-locale
    (each translation its English in brackets, from the code as it is now) no English word is
    left outside the brackets but the players' names."""
    host = browser_in_pseudo()
    party = create_party(host)
    closed = play_round_one(party)
    roll_correct(party=party, roll_id=roll_at(closed, 2, (1, 5, 6)).id, by="host", dice=(1, 1, 1))
    round_start(party=party)
    held_late_roll(party, closed)
    with translation.override("xx"):
        effects = [line for c in audit_lines(party) for line in c.effects]
        described = [late.description for late in pending_late_taps(party)]
    assert effects and described
    names = set(party.players.values_list("name", flat=True))
    assert [english_left(text, names) for text in effects + described] == [
        [] for _text in effects + described]
    page = host.get(reverse("parties:host", args=[party.id])).content.decode()
    assert all(escape(text) in page for text in effects + described)
