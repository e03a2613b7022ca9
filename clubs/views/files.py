"""The club as one file: downloaded by its organizer, imported by anyone (as a party's file
is), which makes it again with new links and a new code."""

import json

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods

from clubs import access
from clubs.exchange import club_document
from clubs.forms import ClubImportForm
from clubs.models import ClubLink
from clubs.services import club_import as import_service
from parties import access as party_access
from parties.exchange.exports import content_disposition
from parties.translation import rule_error_text


@never_cache  # the whole club, every night's every roll: no cache may keep it
@require_GET
def export_json(request, club_id):
    club, _grant = access.require_organizer(request, club_id)
    text = json.dumps(club_document(club), ensure_ascii=False, separators=(",", ":"))
    response = HttpResponse(text.encode("utf-8"), content_type="application/json")
    response["Content-Disposition"] = content_disposition(club.name, "club", "json")
    return response


@require_http_methods(["GET", "POST"])
def import_page(request):
    """Anyone may import a club, as anyone may start one; the browser that imports it holds
    the new club's organizer link. It counts as one import against the network's allowance."""
    if request.method == "GET":
        return render(request, "clubs/import.html", {"form": ClubImportForm()})
    form = ClubImportForm(request.POST, request.FILES)
    if not form.is_valid():
        return render(request, "clubs/import.html", {"form": form}, status=400)
    refused = party_access.party_import_refused(request)
    if refused:
        wait = _("%(refusal)s Wait a while and try again; nothing was imported.")
        form.add_error(None, wait % {"refusal": refused})
        return render(request, "clubs/import.html", {"form": form}, status=429)
    try:
        club = import_service.club_import(data=form.cleaned_data["file"].read())
    except import_service.ClubImportRefused as error:
        party_access.party_import_ended(request, created=False)
        form.add_error("file", _("%(refusal)s Nothing was imported.") % {
            "refusal": rule_error_text(error)})
        return render(request, "clubs/import.html", {"form": form}, status=400)
    party_access.party_import_ended(request, created=True)
    access.redeem(request, ClubLink.objects.get(club=club, revoked_at__isnull=True))
    messages.success(request, _("The club is imported. Its link, its code and its nights' links "
                                "are new: hand out these."))
    return redirect("clubs:home", club_id=club.id)
