"""A list of players from a CSV file (a sign-up sheet saved from a spreadsheet), as the create
form reads it: the rows' names, or one clear message for each thing wrong with the file.

Which column holds the names: the one headed "Name" (or "Player", "Guest", ...), the "First
name" and "Last name" columns put together, or, with no header row, the first column. Blank
rows are skipped (spreadsheets leave them at the end); every other row must give a name.
"""

import csv
import io

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

MAX_BYTES = 256 * 1024  # 400 names with a few other columns each fit in a tenth of this
# The headers read are English words, matched as they are (a file's header, not text shown).
NAME_HEADERS = {"name", "names", "player", "players", "player name", "full name", "guest",
                "guests", "guest name", "participant", "participants"}
FIRST_HEADERS = {"first name", "first", "given name", "firstname"}
LAST_HEADERS = {"last name", "last", "surname", "family name", "lastname"}
NOT_UTF8 = gettext_noop(
    "The file is not UTF-8 text. In the spreadsheet, save it as “CSV UTF-8” (or paste the "
    "names into the list instead)."
)


class CsvRefused(ValueError):
    """A file that holds no list of names; the message says why, for the host (in the host's
    language)."""


def rows_of_names(data: bytes) -> list[tuple[int, str]]:
    """(row number in the file, the name as written) for each row that gives a name, or
    CsvRefused. The names are not checked here: the form checks them as it checks a pasted
    list, row by row."""
    if len(data) > MAX_BYTES:
        raise CsvRefused(
            _("The file is larger than %(kb)s KB: is it a list of names?")
            % {"kb": MAX_BYTES // 1024}
        )
    try:
        text = data.decode("utf-8-sig")  # Excel's "CSV UTF-8" starts with a byte-order mark
    except UnicodeDecodeError:
        raise CsvRefused(_(NOT_UTF8)) from None
    if "\x00" in text:
        raise CsvRefused(_("The file is not a CSV text file (it holds binary data)."))
    try:
        rows = [[cell.strip() for cell in row] for row in csv.reader(io.StringIO(text),
                                                                     _dialect(text))]
    except csv.Error as error:
        raise CsvRefused(
            _("The file cannot be read as CSV (%(error)s).") % {"error": error}
        ) from None
    numbered = [(number, row) for number, row in enumerate(rows, start=1) if any(row)]
    if not numbered:
        raise CsvRefused(_("The file holds no names."))
    pick, has_header = _name_picker(numbered[0][1])
    if has_header:
        numbered = numbered[1:]
    names = [(number, pick(row)) for number, row in numbered]
    if not names:
        raise CsvRefused(_("The file holds a header row and no names under it."))
    return names


def _dialect(text):
    """Commas, or the semicolons a spreadsheet in a comma-decimal locale writes, or tabs."""
    sample = text[:4096]
    try:
        return csv.Sniffer().sniff(sample, delimiters=",;\t")
    except csv.Error:  # one column: no delimiter to find
        return csv.excel


def _name_picker(first_row):
    """(the function taking a row to its name, whether `first_row` is a header row)."""
    headings = [cell.casefold().replace("_", " ") for cell in first_row]
    named = next((i for i, h in enumerate(headings) if h in NAME_HEADERS), None)
    if named is not None:
        return (lambda row: _cell(row, named)), True
    first = next((i for i, h in enumerate(headings) if h in FIRST_HEADERS), None)
    last = next((i for i, h in enumerate(headings) if h in LAST_HEADERS), None)
    if first is not None and last is not None:
        return (lambda row: f"{_cell(row, first)} {_cell(row, last)}".strip()), True
    return (lambda row: _cell(row, 0)), False


def _cell(row, index):
    return row[index] if index < len(row) else ""
