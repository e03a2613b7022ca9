"""Path converters shared by the pages' URLs and the websocket's route, registered once on
import (importing this module is what makes `<id:...>` work in both)."""

from django.urls import register_converter


class IdConverter:
    """A row id: 1 to 2**63 - 1, the range of the database's bigint.

    Anything else is a 404 here, so no view hands the database a number it cannot hold (SQLite
    raises OverflowError on ids from 2**63, which answered 500).
    """

    regex = "[0-9]{1,19}"
    MAX = 2**63 - 1

    def to_python(self, value):
        number = int(value)
        if not 1 <= number <= self.MAX:
            raise ValueError("not a row id")  # the resolver tries the next pattern, then 404s
        return number

    def to_url(self, value):
        return str(int(value))


register_converter(IdConverter, "id")
