"""Downloads of a party: standings and rolls as CSV, the whole party as JSON. Each view opens
with its access guard, as every view does."""

import json

from django.http import HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from parties import access, exports

CSV = "text/csv; charset=utf-8"


def _download(body, content_type, disposition):
    response = HttpResponse(body, content_type=content_type)
    response["Content-Disposition"] = disposition
    return response


# never_cache as on every page of a party: the files name the players, and the JSON is the
# whole night, which no proxy or shared cache may keep.
@never_cache
@require_GET
def results_csv(request, party_id):
    party, _access = access.require_any(request, party_id)  # whoever may see the results page
    header, rows = exports.standings_table(party)
    return _download(
        exports.csv_bytes(header, rows),
        CSV,
        exports.content_disposition(party.name, "results", "csv"),
    )


@never_cache
@require_GET
def rolls_csv(request, party_id):
    party, _access = access.require_host(request, party_id)  # the host's roll list, as a file
    header, rows = exports.rolls_table(party)
    return _download(
        exports.csv_bytes(header, rows),
        CSV,
        exports.content_disposition(party.name, "rolls", "csv"),
    )


@never_cache
@require_GET
def export_json(request, party_id):
    party, _access = access.require_host(request, party_id)
    text = document_json(exports.party_document(party))
    return _download(
        text.encode("utf-8"),
        "application/json",
        exports.content_disposition(party.name, "party", "json"),
    )


def document_json(document):
    """The document as JSON text with one row a line: a person can read it, and it is a third
    the size of an indented dump (a night holds thousands of rolls)."""

    def dump(value):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))

    tables = []
    for label, table in document["models"].items():
        rows = ",\n".join(f"    {dump(row)}" for row in table["rows"])
        tables.append(
            f'  {dump(label)}: {{\n   "columns": {dump(table["columns"])},\n'
            f'   "rows": [\n{rows}\n   ]}}'
            if rows
            else f'  {dump(label)}: {{"columns": {dump(table["columns"])}, "rows": []}}'
        )
    head = [f" {dump(key)}: {dump(value)}" for key, value in document.items() if key != "models"]
    models = ' "models": {\n' + ",\n".join(tables) + "\n }"
    return "{\n" + ",\n".join([*head, models]) + "\n}\n"
