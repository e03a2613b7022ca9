"""What importing a party file may cost, and what it answers to a file made to hurt: memory stays
small whatever the file holds, every bad file is a 400 that writes nothing (never a 500), and a
file that is refused does not use up one of the hour's party creations."""

import io
import json
import tracemalloc
import uuid

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parties.exchange import exports
from parties.models import LateTap, Party
from parties.services import party_file, party_import
from parties.services.errors import PartyError
from parties.services.late_tap import late_tap_apply
from parties.views.files import document_json
from tests.parties.conftest import Browser
from tests.parties.test_import import counts, imported, played_night, upload

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def night_file(django_db_setup, django_db_blocker):
    """The played night's document, made once (each test's own database is rolled back)."""
    with django_db_blocker.unblock():
        from django.db import transaction

        with transaction.atomic():
            document = exports.party_document(played_night())
            transaction.set_rollback(True)
    return document


def copy_of(document):
    return json.loads(json.dumps(document))


def rows_of(document, label):
    return document["models"][label]["rows"]


def place(document, label, name):
    return document["models"][label]["columns"].index(name)


def peak_bytes_of_import(content):
    """The most memory Python held at once while importing `content` (it is refused or not)."""
    stream = io.BytesIO(content)
    tracemalloc.start()
    try:
        party_import.party_import(file=stream)
    except party_import.ImportRefused:
        pass
    finally:
        _now, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return peak


HOSTILE = {
    # The review's files: one-column rows (2.9 GB at 36 MB) and empty lists (1.1 GB at 39 MB).
    "one-column rows": b'{"format":"bunco-night-party","version":1,"models":{"parties.party":'
    b'{"columns":["id"],"rows":[' + b",".join([b"[1]"] * 1_000_000) + b"]}}}",
    "empty lists": b"[" + b",".join([b"[]"] * 1_300_000) + b"]",
    "a long string": b'{"format":"' + b"x" * 4_000_000 + b'"}',
    "deep nesting": b"[" * 4_000_000,
}


@pytest.mark.parametrize("shape", HOSTILE)
def test_a_hostile_file_of_4_mb_is_refused_holding_a_few_mb(shape):
    content = HOSTILE[shape]
    assert len(content) >= 3_500_000
    peak = peak_bytes_of_import(content)
    # json.loads of the whole file held 60-300 MB here; the reader holds one window.
    assert peak < 8 * 1024 * 1024, f"{peak / 2**20:.1f} MB"


@pytest.mark.slow
def test_a_big_night_imports_holding_memory_by_the_batch_not_by_the_file(night_file):
    """The played night with 8,000 more rows: every one checked and written, while the memory
    held is that of a batch of rows."""
    document = copy_of(night_file)
    label = "parties.latetap"
    late_taps = rows_of(document, label)
    dismissed = next(r for r in late_taps if r[place(document, label, "status")] == "dismissed")
    tap_id = place(document, label, "tap_id")
    for _ in range(8_000):
        row = list(dismissed)
        row[0] = late_taps[-1][0] + 1
        row[tap_id] = str(uuid.uuid4())
        late_taps.append(row)
    content = document_json(document).encode()
    assert len(content) > 1_500_000
    peak = peak_bytes_of_import(content)
    copy = Party.objects.exclude(pk__in=[]).latest("pk")
    assert LateTap.objects.filter(party=copy).count() == len(late_taps)  # it imported
    assert peak < 12 * 1024 * 1024, f"{peak / 2**20:.1f} MB"


def test_a_file_with_more_players_than_a_party_seats_is_refused(night_file):
    document = copy_of(night_file)
    players = rows_of(document, "parties.player")
    name = place(document, "parties.player", "name")
    for n in range(800):
        row = [players[-1][0] + 1, *players[0][1:]]
        row[name] = f"Guest {n}"
        players.append(row)
    with pytest.raises(party_import.ImportRefused, match="more players than a party has"):
        imported(document)


def test_a_number_too_large_for_a_float_is_a_400_that_writes_nothing(night_file):
    text = document_json(night_file)
    # The player's position as the JSON number 1e400 (Python reads it as infinity).
    document = copy_of(night_file)
    rows_of(document, "parties.player")[0][place(document, "parties.player", "position")] = 7777
    content = document_json(document).replace("7777", "1e400", 1).encode()
    assert b"1e400" in content and len(text) > 1000
    before = counts()
    response = upload(Browser(), content)
    assert response.status_code == 400, response.status_code
    assert "too large" in response.content.decode() and counts() == before


@pytest.mark.parametrize("fields", ["zzz", [1, 2], {"dice": "abc"}, {"dice": [1, 2, 9]},
                                    {"outcome": 5}, {"called": "yes"}, {"seen": True}])
def test_a_pending_late_roll_that_is_no_roll_is_refused_at_import(night_file, fields):
    document = copy_of(night_file)
    label = "parties.latetap"
    status = place(document, label, "status")
    pending = next(row for row in rows_of(document, label) if row[status] == "pending")
    pending[place(document, label, "fields")] = fields
    before = counts()
    response = upload(Browser(), document_json(document).encode())
    assert response.status_code == 400
    assert "Late tap" in response.content.decode() and counts() == before


def test_the_host_applying_a_late_roll_kept_wrong_is_told_so_and_nothing_changes():
    party = played_night()
    late = LateTap.objects.get(party=party, status="pending")
    LateTap.objects.filter(pk=late.pk).update(fields=[1, 2])  # as an older import could keep
    before = counts()
    with pytest.raises(PartyError, match="cannot be added"):
        late_tap_apply(party=party, late_tap_id=late.id, by="host")
    assert counts() == before


LAYOUTS = [
    # (what is wrong, how the text changes, words of the message)
    ("rows out of id order", lambda d: rows_of(d, "parties.roll").reverse(), "order of their ids"),
    ("a child table before its parent", lambda d: d.update(models=dict(
        reversed(list(d["models"].items())))), "before the|does not hold"),
    ("a table twice", None, "twice"),
]


@pytest.mark.parametrize(("what", "change", "words"), LAYOUTS, ids=[x[0] for x in LAYOUTS])
def test_a_file_laid_out_otherwise_than_the_export_writes_is_refused(
    night_file, what, change, words
):
    document = copy_of(night_file)
    if change is not None:
        change(document)
        content = document_json(document).encode()
    else:
        content = document_json(document).replace(
            '"parties.seat":', '"parties.seat": {"columns": ["id"], "rows": []},\n "parties.seat":',
            1,
        ).encode()
    before = counts()
    with pytest.raises(party_import.ImportRefused, match=words):
        party_import.party_import(file=io.BytesIO(content))
    assert counts() == before


def test_rows_before_their_column_names_are_refused():
    content = (
        b'{"format":"bunco-night-party","version":1,"models":'
        b'{"parties.party":{"rows":[[1]],"columns":["id"]}}}'
    )
    with pytest.raises(party_import.ImportRefused, match="before column names"):
        party_import.party_import(file=io.BytesIO(content))


@override_settings(IMPORT_MAX_BYTES=1000)
def test_a_body_declared_over_the_cap_is_refused_before_its_form_is_read(monkeypatch):
    from django.http.multipartparser import MultiPartParser

    parsed = []
    real_parse = MultiPartParser.parse
    monkeypatch.setattr(
        MultiPartParser, "parse", lambda self: parsed.append(1) or real_parse(self)
    )
    response = upload(Browser(), b"x" * (1000 + 70 * 1024))
    assert response.status_code == 413 and "larger than" in response.content.decode()
    assert parsed == [] and Party.objects.count() == 0


def test_a_body_larger_than_a_form_takes_is_refused_before_it_is_read(monkeypatch):
    """Anywhere but the import page a body may be DATA_UPLOAD_MAX_MEMORY_SIZE (1 MB): a
    "list of names" of 2 MB is refused unread, not parsed and then refused."""
    from django.http.multipartparser import MultiPartParser

    parsed = []
    monkeypatch.setattr(MultiPartParser, "parse", lambda self: parsed.append(1))
    names = SimpleUploadedFile("names.csv", b"Ann\n" * 500_000, "text/csv")
    response = Browser().post("/parties/new/", {"players_csv": names, "name": "Big"})
    assert response.status_code == 413 and "larger than this address takes" in (
        response.content.decode()
    )
    assert parsed == [] and Party.objects.count() == 0


@override_settings(PARTY_CREATE_MAX_PER_ADDRESS=2)
def test_a_refused_file_does_not_use_up_a_party_creation(night_file):
    good = document_json(night_file).encode()
    parties = Party.objects.count()
    assert upload(Browser(), b"{not json").status_code == 400
    # The hour's two creations are both still there.
    assert upload(Browser(), good).status_code == 302
    assert upload(Browser(), good).status_code == 302
    assert Party.objects.count() == parties + 2
    assert upload(Browser(), good).status_code == 429


@override_settings(PARTY_CREATE_MAX_PER_ADDRESS=2)
def test_refused_files_have_an_allowance_of_their_own():
    assert upload(Browser(), b"{not json").status_code == 400
    assert upload(Browser(), b"{not json").status_code == 400
    response = upload(Browser(), b"{not json")
    assert response.status_code == 429
    assert "Too many party files were refused" in response.content.decode()


# -- fuzzing the party file's shape ---------------------------------------------------------------

ODD_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=60),
    st.lists(st.integers(-10, 10), max_size=5),
    st.dictionaries(st.text(max_size=8), st.integers(-5, 5), max_size=3),
    st.sampled_from(["1e400", "-1e400", "NaN", "Infinity"]).map(lambda raw: ("raw", raw)),
)


@st.composite
def damaged(draw, document):
    """The document with one thing changed: a cell, a column list, a row's length, a table's
    nesting, a head entry."""
    document = copy_of(document)
    labels = sorted(document["models"])
    label = draw(st.sampled_from(labels))
    table = document["models"][label]
    kind = draw(st.sampled_from(["cell", "cell", "cell", "row", "columns", "table", "head"]))
    raw = None
    if kind == "cell" and table["rows"]:
        row = draw(st.sampled_from(table["rows"]))
        column = draw(st.integers(0, len(table["columns"]) - 1))
        value = draw(ODD_VALUES)
        if isinstance(value, tuple):
            raw, value = value[1], 424242424242
        row[column] = value
    elif kind == "row" and table["rows"]:
        row = draw(st.sampled_from(table["rows"]))
        draw(st.sampled_from([row.pop, lambda: row.append(draw(ODD_VALUES))]))()
    elif kind == "columns":
        table["columns"] = draw(st.sampled_from(
            [[], ["id", "id"], table["columns"][::-1], [1, 2], "id"]))
    elif kind == "table":
        document["models"][label] = draw(st.sampled_from(
            [[], {}, {"columns": table["columns"]}, {"rows": table["rows"]}, "rows", None]))
    else:
        key = draw(st.sampled_from(["format", "version", "models"]))
        document[key] = draw(ODD_VALUES.filter(lambda v: not isinstance(v, tuple)))
    try:
        text = document_json(document)
    except (TypeError, AttributeError, KeyError):
        text = json.dumps(document)  # nesting document_json cannot lay out: plain JSON
    if raw is not None:
        text = text.replace("424242424242", raw, 1)
    return text.encode()


@override_settings(PARTY_CREATE_MAX_PER_ADDRESS=10_000)
@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_a_damaged_party_file_is_imported_or_refused_with_a_400_never_a_500(night_file, data):
    content = data.draw(damaged(night_file))
    before = counts()
    response = upload(Browser(), content)
    assert response.status_code in (302, 400), (response.status_code, content[:200])
    if response.status_code == 400:
        assert "Nothing was imported" in response.content.decode()
        assert counts() == before


def test_the_reader_gives_rows_in_batches():
    content = json.dumps({"format": "f", "models": {"m": {
        "columns": ["id"], "rows": [[n] for n in range(1, 1201)]}}}).encode()
    pieces = list(party_file.pieces(io.BytesIO(content)))
    assert isinstance(pieces[0], party_file.Head) and pieces[0].entries == {"format": "f"}
    assert pieces[1] == party_file.Table("m", ["id"])
    assert [len(p.rows) for p in pieces[2:]] == [500, 500, 200]
