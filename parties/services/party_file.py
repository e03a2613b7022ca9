"""Reading a party file (parties.exchange.exports' JSON) in pieces, so an import's memory stays
small whatever the file holds.

`json.loads` of a whole file turns each byte into tens of bytes of Python objects (a 36 MB file
of one-column rows took 2.9 GB), and holds the interpreter for the whole parse. This reader
walks the document's outline itself and hands each small value (a head entry, a table's column
names, a row) to `json`'s own decoder, one at a time: what it keeps is one window of text and
one batch of rows. The outline it reads is the one the export writes:

    {"format": ..., "version": ..., ..., "models": {"<label>": {"columns": [...],
     "rows": [[...], ...]}, ...}, ...}

with the head's entries before "models" and each table's columns before its rows. Anything else
is refused with a `FileRefused` that says what is wrong.
"""

import codecs
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, pgettext

CHUNK = 64 * 1024  # bytes read from the file at a time
LONGEST_VALUE = 256 * 1024  # characters: a row (a party's options, a name) is far shorter
ROWS_A_BATCH = 500
WHITESPACE = " \t\n\r"


class FileRefused(ValueError):
    """The file is not a party file this reader can read; the message says why, in the reader's
    language."""


@dataclass(frozen=True)
class Head:
    """The document's entries before "models" (format, version, ...)."""

    entries: dict


@dataclass(frozen=True)
class Table:
    label: str
    columns: list


@dataclass(frozen=True)
class Rows:
    """The next rows of the table last announced, in file order."""

    label: str
    rows: list


def _finite(text):
    number = float(text)
    if not math.isfinite(number):  # 1e400 reads as infinity, which no column holds
        raise FileRefused(_("The number %(number)s is too large.") % {"number": text[:20]})
    return number


def _no_constant(name):
    # Translators: "name" is NaN, Infinity or -Infinity.
    raise FileRefused(_("%(name)s is not a number JSON holds.") % {"name": name})


_DECODER = json.JSONDecoder(parse_float=_finite, parse_constant=_no_constant)


def pieces(stream) -> Iterator[Head | Table | Rows]:
    """The file's head, then each table and its rows in batches of ROWS_A_BATCH, as they come.
    `stream` is a binary file object; the document must end where the file does."""
    return _Reader(stream).document()


class _Reader:
    def __init__(self, stream):
        self.stream = stream
        self.decoder = codecs.getincrementaldecoder("utf-8-sig")()  # an editor's BOM is fine
        self.text = ""
        self.at = 0
        self.ended = False

    # -- the text, a window at a time --------------------------------------------------------

    def _fill(self, wanted):
        """Make at least `wanted` characters from `at` available, unless the file ends first."""
        while len(self.text) - self.at < wanted and not self.ended:
            chunk = self.stream.read(CHUNK)
            try:
                more = self.decoder.decode(chunk, final=not chunk)
            except UnicodeDecodeError:
                raise FileRefused(_("This is not a party file: it is not UTF-8 text.")) from None
            self.ended = not chunk
            self.text = self.text[self.at :] + more
            self.at = 0

    def _next_char(self):
        """The next character that is not whitespace ("" at the end), not consumed."""
        while True:
            self._fill(1)
            while self.at < len(self.text) and self.text[self.at] in WHITESPACE:
                self.at += 1
            if self.at < len(self.text):
                return self.text[self.at]
            if self.ended:
                return ""

    def _expect(self, char, what, **params):
        """Consume `char`, or refuse the file: `what` is wrong (a message id marked with
        gettext_noop, translated only then, with `params`)."""
        found = self._next_char()
        if found != char:
            at = repr(found or pgettext("of the file", "the end"))
            raise FileRefused(
                # Translators: "what" says what is wrong ("an object not closed"); "found" is
                # the character found there, quoted, or "the end", quoted.
                _("This is not a party file: %(what)s (at %(found)s).")
                % {"what": _(what) % params, "found": at}
            )
        self.at += 1

    def _value(self):
        """The next JSON value, decoded by `json` from a window of at most LONGEST_VALUE."""
        self._next_char()
        self._fill(LONGEST_VALUE)
        try:
            value, end = _DECODER.raw_decode(self.text, self.at)
        except RecursionError:
            raise FileRefused(
                _("This is not a party file: its values nest too deep.")
            ) from None
        except json.JSONDecodeError:
            if len(self.text) - self.at >= LONGEST_VALUE:
                raise FileRefused(
                    _("The party file holds a value that is far too long.")
                ) from None
            raise FileRefused(_("This is not a party file: it is not JSON text.")) from None
        if end - self.at > LONGEST_VALUE:
            raise FileRefused(_("The party file holds a value that is far too long."))
        self.at = end
        return value

    def _key(self):
        key = self._value()
        if not isinstance(key, str):
            raise FileRefused(_("This is not a party file: it is not JSON text."))
        self._expect(":", gettext_noop("a name without a value"))
        return key

    def _members(self, what):
        """The keys of the object that starts here, each left for the caller to read its value
        (`what`: what is wrong if none starts here, as for _expect)."""
        self._expect("{", what)
        if self._next_char() == "}":
            self.at += 1
            return
        while True:
            yield self._key()
            if self._next_char() == ",":
                self.at += 1
                continue
            self._expect("}", gettext_noop("an object not closed"))
            return

    # -- the document's outline ----------------------------------------------------------------

    def document(self):
        head = {}
        models_read = False
        for key in self._members(gettext_noop("it is not a JSON object")):
            if key == "models":
                if models_read:
                    raise FileRefused(_("The party file holds its rows twice."))
                models_read = True
                yield Head(dict(head))
                yield from self._models()
            else:
                head[key] = self._value()
        if self._next_char() != "":
            raise FileRefused(_("This is not a party file: there is more after its end."))
        if not models_read:
            yield Head(dict(head))

    def _models(self):
        if self._next_char() != "{":
            raise FileRefused(_("The party file holds no rows."))
        seen = set()
        for label in self._members(gettext_noop("no rows")):
            if label in seen:
                # Translators: "label" names a table of the file, e.g. parties.roll.
                raise FileRefused(_("The party file holds %(label)s twice.") % {"label": label})
            seen.add(label)
            yield from self._table(label)

    def _table(self, label):
        no_columns = _("The party file's %(label)s have no column names.")
        if self._next_char() != "{":
            raise FileRefused(no_columns % {"label": label})
        columns = None
        for key in self._members(gettext_noop("no column names")):
            if key == "columns":
                if columns is not None:
                    raise FileRefused(
                        _("The party file names the %(label)s' columns twice.") % {"label": label}
                    )
                columns = self._value()
                if not isinstance(columns, list) or not all(isinstance(c, str) for c in columns):
                    raise FileRefused(no_columns % {"label": label})
                yield Table(label, columns)
            elif key == "rows":
                if columns is None:
                    raise FileRefused(
                        _("The party file's %(label)s have rows before column names.")
                        % {"label": label}
                    )
                yield from self._rows(label)
            else:
                self._value()  # a note a person added: read past it
        if columns is None:
            raise FileRefused(no_columns % {"label": label})

    def _rows(self, label):
        not_a_list = gettext_noop("the %(label)s' rows are not a list")
        self._expect("[", not_a_list, label=label)
        batch = []
        if self._next_char() == "]":
            self.at += 1
            return
        while True:
            batch.append(self._value())
            if len(batch) == ROWS_A_BATCH:
                yield Rows(label, batch)
                batch = []
            if self._next_char() == ",":
                self.at += 1
                continue
            self._expect("]", not_a_list, label=label)
            break
        if batch:
            yield Rows(label, batch)
