"""The players' list from a CSV file: which column, the header row, and every way a file can be
wrong, each refused with what is wrong and nothing created or lost."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from parties.exchange.player_csv import CsvRefused, rows_of_names
from parties.models import Party, Player
from tests.parties.conftest import TWELVE, create_form

db = pytest.mark.django_db


def names(data):
    return [name for _row, name in rows_of_names(data)]


def test_a_one_column_file_without_a_header_is_a_name_a_row():
    assert names(b"Ann\nBea\nCleo\n") == ["Ann", "Bea", "Cleo"]


def test_a_header_row_names_the_column_and_is_not_a_player():
    data = b"Email,Name,Table\nann@x.org,Ann Lee,3\nbea@x.org,Bea Hart,\n"
    assert rows_of_names(data) == [(2, "Ann Lee"), (3, "Bea Hart")]


def test_first_and_last_name_columns_are_put_together():
    data = "First name;Last name\nAnn;Lee\nZoë;Ødegård\n".encode()
    assert names(data) == ["Ann Lee", "Zoë Ødegård"]


def test_excels_byte_order_mark_tabs_quotes_and_crlf_are_read():
    data = "\ufeffPlayer\tPaid\r\n\"Lee, Ann\"\tyes\r\nBea\tno\r\n".encode()
    assert names(data) == ["Lee, Ann", "Bea"]


def test_blank_rows_are_skipped_and_rows_keep_their_numbers_in_the_file():
    assert rows_of_names(b"Name\n\nAnn\n,\nBea\n\n\n") == [(3, "Ann"), (5, "Bea")]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("Ann\nBéa\n".encode("latin-1"), "not UTF-8 text"),
        (b"", "holds no names"),
        (b"\n ,\n\n", "holds no names"),
        (b"Name\n", "a header row and no names"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "not"),  # an image chosen by mistake
        (b"Ann\x00\nBea\n", "binary data"),
        (b"x" * (257 * 1024), "larger than 256 KB"),
    ],
)
def test_a_file_that_holds_no_list_of_names_is_refused_saying_why(data, message):
    with pytest.raises(CsvRefused, match=message):
        rows_of_names(data)


def csv_upload(text, name="players.csv"):
    return SimpleUploadedFile(name, text.encode() if isinstance(text, str) else text,
                              content_type="text/csv")


def post_with_file(host, upload, **overrides):
    data = {**create_form(**overrides), "players": overrides.get("players", ""),
            "players_file": upload}
    return host.post(reverse("parties:create"), data)


@db
def test_the_host_creates_a_party_from_a_csv_file(host):
    response = post_with_file(host, csv_upload("Name\n" + "\n".join(TWELVE) + "\n"))
    assert response.status_code == 302
    party = Party.objects.get()
    assert list(party.players.filter(is_ghost=False).values_list("name", flat=True)) == TWELVE


@db
def test_four_hundred_names_from_a_file_make_a_hundred_tables_and_no_ghost(host):
    rows = "\n".join(f"Guest {n},guest{n}@example.org" for n in range(1, 401))
    response = post_with_file(host, csv_upload("Name,Email\n" + rows))
    assert response.status_code == 302
    party = Party.objects.get()
    assert party.tables.count() == 100
    assert Player.objects.filter(party=party, is_ghost=False).count() == 400
    assert not Player.objects.filter(party=party, is_ghost=True).exists()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("Ann\nBéa\nCleo\nDot\n".encode("latin-1"), "In players.csv: The file is not UTF-8"),
        ("Name\nAnn\nBea\nCleo\nann\n", "Row 5: “ann” is already on row 2."),
        ("Name\nAnn\nBea\nCleo\nGhost 3\n", "Row 5: “Ghost 3” is kept for the ghosts"),
        ("Email,Name\na@x,Ann\nb@x,\nc@x,Cleo\nd@x,Dot\n", "Row 3: A player&#x27;s name cannot be blank"),
        ("Name\nAnn\n", "A party needs 2 to 400 players; this file has 1."),
        ("Name\nAnn\nBea\n", "Teams with ghosts need at least 4 players, not 2"),
        ("\n".join(f"P{n}" for n in range(401)), "this file has 401"),
        ("Name\n", "a header row and no names under it"),
    ],
)
@db
def test_a_bad_file_is_refused_with_a_clear_message_and_nothing_is_created(host, data, message):
    response = post_with_file(host, csv_upload(data), name="Gran's Bunco")
    page = response.content.decode()
    assert response.status_code == 400
    assert message in page
    assert "Gran&#x27;s Bunco" in page  # what the host typed comes back
    assert Party.objects.count() == 0


@db
def test_a_bad_file_leaves_the_typed_list_as_it_was(host):
    response = post_with_file(host, csv_upload(b"\xff\xfeA\x00n\x00n\x00"), players="Ann\nBea")
    page = response.content.decode()
    assert response.status_code == 400 and "not UTF-8" in page
    assert "Ann\nBea</textarea>" in page


@db
def test_a_list_and_a_different_file_together_are_refused_rather_than_one_thrown_away(host):
    response = post_with_file(host, csv_upload("\n".join(TWELVE)), players="Ann\nBea\nCleo\nDot")
    assert response.status_code == 400
    assert "empty the list to use the file" in response.content.decode()
    assert Party.objects.count() == 0


@db
def test_when_another_field_is_refused_the_files_names_come_back_in_the_list(host):
    response = post_with_file(host, csv_upload("\n".join(TWELVE)), team_size="1")
    page = response.content.decode()
    assert response.status_code == 400 and "rotation must be" in page
    assert "\n".join(TWELVE) + "</textarea>" in page
    # Sent again as it came back (the file input empty, or the same file chosen again): it works.
    again = {**create_form(), "players": "\n".join(TWELVE)}
    assert host.post(reverse("parties:create"), again).status_code == 302
    fixed = post_with_file(host, csv_upload("\n".join(TWELVE)), players="\n".join(TWELVE))
    assert fixed.status_code == 302


@db
def test_switching_presets_without_javascript_keeps_the_files_names(host):
    data = {**create_form(), "players": "", "players_file": csv_upload("\n".join(TWELVE)),
            "load_preset": "1", "preset": "quick"}
    page = host.post(reverse("parties:create"), data).content.decode()
    assert "\n".join(TWELVE) + "</textarea>" in page
    assert Party.objects.count() == 0
