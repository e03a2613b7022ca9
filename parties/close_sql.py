"""The round close's rows written as plain values, in one statement a table of rows (a
400-player party's 400 score-sheet lines, and the next round's 400 seats): `bulk_create` built
a model instance per row and prepared each field of each row, a quarter of the closing tap's
CPU once its pieces were formatted (bench/close_cpu.py). These functions decide nothing: they
write rows.
"""

from django.db import connection


def insert_rows(model, field_names, rows):
    """Insert `rows`, tuples of values for `field_names` (`model`'s concrete fields, a foreign
    key by its `_id`) as the database takes them (ints, bools), in one statement, or as few as
    SQLite's limit on parameters allows."""
    if not rows:
        return
    meta = model._meta
    fields = [meta.get_field(name) for name in field_names]
    quote = connection.ops.quote_name
    # Names from the model's own meta, quoted; every value is a parameter.
    into = (
        f"INSERT INTO {quote(meta.db_table)} "  # noqa: S608
        f"({', '.join(quote(field.column) for field in fields)}) "
    )
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # One array a column: the statement is the same whatever the rows, so it is
            # prepared once per connection; a VALUES list of 2,800 parameters was converted
            # anew by psycopg at every close (queries that long are not cached).
            arrays = ", ".join(f"%s::{field.db_type(connection)}[]" for field in fields)
            columns = [list(column) for column in zip(*rows, strict=True)]
            cursor.execute(f"{into}SELECT * FROM unnest({arrays})", columns)  # noqa: S608
            return
        one_row = "(" + ", ".join(["%s"] * len(fields)) + ")"
        batch = connection.ops.bulk_batch_size(fields, rows)
        for start in range(0, len(rows), batch):
            chunk = rows[start : start + batch]
            cursor.execute(
                into + "VALUES " + ", ".join([one_row] * len(chunk)),
                [value for row in chunk for value in row],
            )
