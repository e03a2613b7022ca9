"""Importing a party file: another server recreates the party exactly (new ids, new code, new
links, everything else equal); the browser that imports it becomes its host; a file that does
not hold together is refused with what is wrong, and nothing is created."""

import io
import json
import uuid

import pytest
from django.test import override_settings
from django.urls import reverse

from parties import access, selectors
from parties.exchange import exports
from parties.models import AccessLink, LateTap, Party, Roll, Round, Seat
from parties.services import party_import
from parties.services.late_tap import late_tap_apply, late_tap_dismiss
from parties.services.player import player_leave
from parties.services.prize import prize_rolloff_record
from parties.services.roll import roll_record
from parties.services.roll_correction import roll_correct, roll_void
from parties.services.round import bell_ring, round_start
from parties.views.files import document_json
from tests.parties.conftest import Browser
from tests.parties.test_corrections import finish_turn, play_round_one, roll_at
from tests.parties.test_corrections import tap as called_tap
from tests.parties.test_play import live, new_party, scorer

pytestmark = pytest.mark.django_db


def late_roll(party, round_, table, outcome):
    """A roll the table's phone made before the bell of `round_`, arriving after it closed."""
    held = roll_record(
        party_id=party.id, table_number=table, tap_id=uuid.uuid4(), dice=None, outcome=outcome,
        called=None, seen=0, round_id=round_.id, bell_seen=False, link_ids=scorer(party, table),
    )
    assert held.status == "held"
    return LateTap.objects.filter(party=party).latest("id")


def played_night():
    """A standard 12-player night in its third round, with something in every kind of row:
    round 1 played and closed; three late rolls for it (applied, dismissed, left waiting);
    the tie for most wins rolled off; round 2 with a quick-button roll voided, a correction of
    round 1 while it plays, the host's bell and a roll-off at a table; a player gone home (a
    ghost in their seat) and round 3 begun with the head table's scorekeeper chosen."""
    party = new_party()
    first = play_round_one(party)
    late_tap_apply(
        party=party, late_tap_id=late_roll(party, first, 3, "two").id, by="host"
    )
    late_tap_dismiss(
        party=party, late_tap_id=late_roll(party, first, 2, "one").id, by="host"
    )
    late_roll(party, first, 1, "miss")
    _rows, prize_rows = selectors.party_results(party)
    tied = next(prize for prize in prize_rows if prize.circuit)
    totals = {pid: 3 + n for n, (pid, _name) in enumerate(tied.winners)}
    prize_rolloff_record(party=party, category=tied.key, totals=totals)

    round_start(party=party)
    quick = roll_record(
        party_id=party.id, table_number=2, tap_id=uuid.uuid4(), dice=None, outcome="two",
        called=None, seen=0, link_ids=scorer(party, 2),
    )
    assert quick.status == "saved"
    called_tap(party, 1, (1, 3, 4))  # a miss at the head table: the dice pass
    second = Round.objects.get(party=party, status=Round.Status.PLAYING)
    roll_void(
        party=party, roll_id=Roll.objects.get(round=second, outcome="two").id, by="host"
    )
    roll_correct(
        party=party, roll_id=roll_at(first, 2, (1, 5, 6)).id, by="host", dice=(1, 1, 1)
    )
    bell_ring(party=party, by="host")
    for table in (1, 2, 3):
        finish_turn(party, table, 2)
    second.refresh_from_db()
    assert second.status == Round.Status.CLOSED

    third = Round.objects.get(party=party, status=Round.Status.WAITING)
    leaver = Seat.objects.filter(round=third, table__number=3).first().player
    player_leave(party=party, player_id=leaver.id)
    round_start(party=party)
    called_tap(party, 1, (3, 3, 5))
    party.refresh_from_db()
    return party


def imported(document):
    """The party made from `document` as the export writes it to a file."""
    return party_import.party_import(file=io.BytesIO(document_json(document).encode()))


def normalised(document):
    """The document's rows with every id (a row's own, a foreign key, a ROW_ID_FIELDS column)
    replaced by that row's place among its model's rows, and the time of the export left out:
    what two servers' files of one party have in common."""
    by_label = {model._meta.label_lower: model for model, _path in exports.party_models()}
    places = {
        label: {row[0]: place for place, row in enumerate(table["rows"])}
        for label, table in document["models"].items()
    }
    result = {}
    for label, table in document["models"].items():
        fields = {exports.column_name(f): f for f in exports.exported_fields(by_label[label])}
        rows = []
        for row in table["rows"]:
            values = []
            for name, value in zip(table["columns"], row, strict=True):
                field = fields[name]
                if name == "id":
                    value = places[label][value]
                elif field.is_relation and value is not None:
                    value = places[field.related_model._meta.label_lower][value]
                elif (label, field.name) in exports.ROW_ID_FIELDS and value:
                    target = places[exports.ROW_ID_FIELDS[(label, field.name)]]
                    value = target[max(i for i in target if i <= value)]
                values.append(value)
            rows.append(values)
        result[label] = {"columns": table["columns"], "rows": rows}
    return {key: value for key, value in document.items() if key != "exported_at"} | {
        "models": result
    }


def counts():
    return {model: model._base_manager.count() for model, _path in exports.party_models()} | {
        AccessLink: AccessLink.objects.count()
    }


@pytest.fixture
def night():
    return played_night()


def standings(party):
    rows, prize_rows = selectors.party_results(party)
    return (
        [(row.name, row.sheet) for row in rows],
        # A tie's players are listed in the order of their ids as text, which a new server's
        # ids change: the same players, maybe in another order.
        [(p.key, sorted(name for _id, name in p.winners), p.circuit) for p in prize_rows],
    )


def in_play(party):
    """The round in play as its tables stand, replayed from the rows."""
    _round, now = live(party)
    return now.version, [(t.points, t.turn_seat, t.phase) for t in now.state.tables]


def test_another_server_recreates_the_party_as_it_was_with_new_ids_code_and_links(night):
    exported = exports.party_document(night)
    for model, _path in exports.party_models():  # the test party fills every kind of row
        assert exported["models"][model._meta.label_lower]["rows"], model._meta.label
    # Another server has none of this one's rows: move the tap ids out of the way, as if so.
    for model in (Roll, LateTap):
        for row in model.objects.filter(pk__in=model.objects.values("pk")):
            model.objects.filter(pk=row.pk).update(tap_id=uuid.uuid4())

    copy = imported(exported)

    again = exports.party_document(copy)
    assert normalised(again) == normalised(exported)
    assert copy.id != night.id and copy.code != night.code
    old_ids = set(Roll.objects.filter(round__party=night).values_list("id", flat=True))
    assert not old_ids & set(Roll.objects.filter(round__party=copy).values_list("id", flat=True))
    assert standings(copy) == standings(night)
    assert in_play(copy) == in_play(night)
    links = AccessLink.objects.filter(party=copy)
    assert links.filter(role="host").count() == 1
    assert links.filter(role="table").count() == copy.tables.count()
    assert links.filter(role="player").count() == copy.players.filter(is_ghost=False).count()
    assert not {link.token_hash for link in links} & set(
        AccessLink.objects.filter(party=night).values_list("token_hash", flat=True)
    )


def test_an_import_on_the_server_that_holds_the_party_gives_its_taps_new_ids(night):
    copy = imported(exports.party_document(night))

    old = set(Roll.objects.filter(round__party=night).values_list("tap_id", flat=True))
    new = set(Roll.objects.filter(round__party=copy).values_list("tap_id", flat=True))
    assert len(new) == len(old) and not old & new
    late = LateTap.objects.get(party=copy, status="applied")  # shares its roll's tap id
    assert Roll.objects.filter(round__party=copy, tap_id=late.tap_id).exists()
    assert standings(copy) == standings(night)


def test_a_file_from_before_a_field_was_added_takes_its_default(night):
    document = exports.party_document(night)
    table = document["models"]["parties.party"]
    place = table["columns"].index("paused_at")  # a column with a default
    del table["columns"][place]
    del table["rows"][0][place]
    copy = imported(document)
    assert copy.paused_at is None and copy.name == night.name


def test_a_file_from_before_a_field_was_removed_imports_without_it(night):
    """Files exported before rolls lost `made_by_correction` (it linked a roll to the
    correction that entered it, and nothing read it) still import, the same party."""
    document = exports.party_document(night)
    table = document["models"]["parties.roll"]
    correction = document["models"]["parties.correction"]["rows"][0][0]
    table["columns"].append("made_by_correction")
    for n, row in enumerate(table["rows"]):
        row.append(correction if n == 0 else None)
    copy = imported(document)
    assert standings(copy) == standings(night)
    assert Roll.objects.filter(round__party=copy).count() == len(table["rows"])


def upload(browser, content, name="party.json"):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return browser.post(
        reverse("parties:import"), {"file": SimpleUploadedFile(name, content, "application/json")}
    )


def test_the_browser_that_imports_a_party_becomes_its_host(night):
    text = document_json(exports.party_document(night)).encode()
    browser = Browser()
    assert browser.get(reverse("parties:import")).status_code == 200
    response = upload(browser, text)
    assert response.status_code == 302
    copy = Party.objects.exclude(pk=night.pk).get()
    assert response["Location"] == reverse("parties:host", args=[copy.id])
    page = browser.get(response["Location"])
    assert page.status_code == 200 and night.name in page.content.decode()
    assert "old cards and links do not open it" in page.content.decode()
    host_link = AccessLink.objects.get(party=copy, role="host")
    assert access.token_for(host_link) in page.content.decode()  # the new host link is shown
    assert browser.get(reverse("parties:host", args=[night.id])).status_code == 403


def bad(document, change):
    document = json.loads(json.dumps(document))
    change(document)
    return json.dumps(document).encode()


def rows(document, label):
    return document["models"][label]["rows"]


def column(document, label, name):
    return document["models"][label]["columns"].index(name)


def set_value(label, name, value, row=0):
    def change(document):
        rows(document, label)[row][column(document, label, name)] = value

    return change


BAD_FILES = [
    # (what is wrong, the change, words of the message)
    ("not JSON", None, "not JSON"),
    ("another format", lambda d: d.update(format="something-else"), "not a Bunco Night"),
    ("a newer version", lambda d: d.update(version=exports.VERSION + 1), "newer Bunco Night"),
    ("no version", lambda d: d.pop("version"), "no version"),
    ("a model this server lacks", lambda d: d["models"].update({"parties.pot": {}}), "parties.pot"),
    ("a column this server lacks", lambda d: d["models"]["parties.roll"]["columns"].append("x"),
     "columns"),
    ("two parties", lambda d: rows(d, "parties.party").append(
        [rows(d, "parties.party")[0][0] + 1, *rows(d, "parties.party")[0][1:]]), "one party"),
    ("a roll of a round the file lacks", set_value("parties.roll", "round", 0), "round 0"),
    ("a seat of a player the file lacks", set_value("parties.seat", "player", -5), "player -5"),
    ("dice out of range", set_value("parties.roll", "die1", 9), "contradict"),
    ("a name too long", set_value("parties.player", "name", "x" * 41), "at most 40"),
    ("a status nobody knows", set_value("parties.round", "status", "lost"), "not a valid choice"),
    ("a date that is none", set_value("parties.roll", "created_at", "yesterday"), "created_at"),
    ("rules that cannot be played", set_value("parties.party", "options", {"dice": 7}), "rules"),
    ("a pot that cannot be split", set_value("parties.party", "pot", {"buy_in_cents": -5}),
     "results cannot be worked out"),
    ("two rolls with one tap id", lambda d: set_value(
        "parties.roll", "tap_id", rows(d, "parties.roll")[0][column(d, "parties.roll", "tap_id")],
        row=1)(d), "contradict"),
    ("a roll at no table", set_value("parties.roll", "table", None), "has no table"),
]


@pytest.mark.parametrize(("what", "change", "words"), BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_a_file_that_does_not_hold_together_is_refused_and_changes_nothing(
    night, what, change, words
):
    document = exports.party_document(night)
    content = b"{not json" if change is None else bad(document, change)
    before = counts()
    browser = Browser()
    response = upload(browser, content)
    assert response.status_code == 400
    text = response.content.decode()
    assert words in text and "Nothing was imported" in text
    assert counts() == before


def test_a_roll_the_rules_cannot_replay_is_refused(night):
    document = exports.party_document(night)
    label = "parties.roll"
    first_live = next(
        row for row in rows(document, label) if row[column(document, label, "voided_by")] is None
    )
    first_live[column(document, label, "die4")] = 2  # a fourth die in a three-dice game
    before = counts()
    with pytest.raises(party_import.ImportRefused, match="does not replay"):
        imported(document)
    assert counts() == before


@override_settings(IMPORT_MAX_BYTES=1000)
def test_a_file_over_the_cap_is_refused_unread(night):
    response = upload(Browser(), b" " * 1001)
    assert response.status_code == 413 and "larger than" in response.content.decode()
    assert Party.objects.count() == 1


@override_settings(PARTY_CREATE_MAX_PER_ADDRESS=1)
def test_imports_count_against_the_limit_on_creating_parties(night):
    text = document_json(exports.party_document(night)).encode()
    assert upload(Browser(), text).status_code == 302
    response = upload(Browser(), text)
    assert response.status_code == 429 and "nothing was imported" in response.content.decode()
    assert Party.objects.count() == 2
