"""Downloads of a party (standings and rolls as CSV, the whole party as JSON) and the page that
imports a party file. Each view opens with its access guard, as every view does."""

import json

from django import forms
from django.conf import settings
from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods

from parties import access
from parties.exchange import exports
from parties.models import AccessLink
from parties.services import party_import
from parties.translation import rule_error_text

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
    party, _grant = access.require_any(request, party_id)  # whoever may see the results page
    return _csv_file(party, "results", exports.standings_table(party))


@never_cache
@require_GET
def rolls_csv(request, party_id):
    party, _grant = access.require_host(request, party_id)  # the host's roll list, as a file
    return _csv_file(party, "rolls", exports.rolls_table(party))


def _csv_file(party, what, table):
    header, rows = table
    return _download(
        exports.csv_bytes(header, rows), CSV, exports.content_disposition(party.name, what, "csv")
    )


@never_cache
@require_GET
def export_json(request, party_id):
    party, _grant = access.require_host(request, party_id)
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


class ImportForm(forms.Form):
    file = forms.FileField(
        label=gettext_lazy("The party file"),
        help_text=gettext_lazy("The .json file a host page's “Download the whole party” gave you."),
        error_messages={
            "required": gettext_lazy("Choose the party file to import."),
            "empty": gettext_lazy(
                "That file is empty: choose the party file a host page gave you."
            ),
        },
    )


@require_http_methods(["GET", "POST"])
def import_page(request):
    """Anyone may import a party, as anyone may host one; the browser that imports it becomes
    the new party's host."""
    if request.method == "GET":
        return render(request, "parties/import.html", {"form": ImportForm()})
    # A body declared larger is refused before it is read (parties.middleware); this is for
    # one sent without its size.
    form = ImportForm(request.POST, request.FILES)
    if not form.is_valid():
        return render(request, "parties/import.html", {"form": form}, status=400)
    upload = form.cleaned_data["file"]
    if upload.size > settings.IMPORT_MAX_BYTES:
        mb = settings.IMPORT_MAX_BYTES // (1024 * 1024)
        too_big = _("The file is larger than %(mb)s MB; nothing was imported.") % {"mb": mb}
        form.add_error("file", too_big)
        return render(request, "parties/import.html", {"form": form}, status=413)
    refused = access.party_import_refused(request)  # an import creates a party too
    if refused:
        wait = _("%(refusal)s Wait a while and try again; nothing was imported.")
        form.add_error(None, wait % {"refusal": refused})
        return render(request, "parties/import.html", {"form": form}, status=429)
    try:
        upload.seek(0)
        party = party_import.party_import(file=upload)
    except party_import.ImportRefused as error:
        access.party_import_ended(request, created=False)
        form.add_error(
            "file", _("%(refusal)s Nothing was imported.") % {"refusal": rule_error_text(error)}
        )
        return render(request, "parties/import.html", {"form": form}, status=400)
    access.party_import_ended(request, created=True)
    host_link = AccessLink.objects.get(party=party, role=AccessLink.Role.HOST)
    access.redeem(request, host_link)
    messages.success(
        request,
        _(
            "The party is imported. Its links and code are new: the old cards and links do not "
            "open it, so hand out these."
        ),
    )
    return redirect("parties:host", party_id=party.id)
