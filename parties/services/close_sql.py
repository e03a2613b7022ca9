"""The round close's rows written as plain values, in one statement a table of rows (a
400-player party's 400 score-sheet lines, and the next round's 400 seats): `bulk_create` built
a model instance per row and prepared each field of each row, a quarter of the closing tap's
CPU once its pieces were formatted (bench/close_cpu.py). These functions decide nothing: they
write rows.

On PostgreSQL the close's two big inserts go out `written_meanwhile`: the server writes and
checks the rows while the closing tap renders every phone's new seat, instead of one after the
other (bench/close_cpu.py, docs/performance.md).
"""

import contextlib

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
            columns = [_array(column) for column in zip(*rows, strict=True)]
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


@contextlib.contextmanager
def written_meanwhile():
    """Statements made inside the block are sent to PostgreSQL at once and answered together
    at its end (psycopg's pipeline), so the server works on them while this thread goes on with
    what comes next in the block; an error in any of them is raised as the block ends, and the
    transaction around it rolls back. The transaction's foreign keys are checked as each row
    goes in (`SET CONSTRAINTS ALL IMMEDIATE`, until the transaction ends), not at the commit,
    so that their checks, most of the close's time in PostgreSQL, are done meanwhile too.
    Elsewhere (SQLite) each statement is answered as it is made, as outside the block.
    Must be used inside a transaction (`atomic`)."""
    if connection.vendor != "postgresql":
        yield
        return
    connection.ensure_connection()
    # The block's errors come from psycopg as it ends, outside Django's cursor: raised as
    # Django's (IntegrityError ...), as a statement's would be.
    with connection.wrap_database_errors, connection.connection.pipeline():
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        yield


def _array(values):
    """A column's values as PostgreSQL's text form of an array ("{3,7,t}"), which the
    statement casts: psycopg's own dumping of 400-item lists was 2-5 ms of a close. Ints and
    bools only (the close's columns); anything else is left to psycopg, as a list."""
    if all(type(v) is int for v in values):
        return "{" + ",".join(map(str, values)) + "}"
    if all(type(v) is bool for v in values):
        return "{" + ",".join("t" if v else "f" for v in values) + "}"
    return list(values)
