"""A night from the club: the organizer picks who is coming, the subs, the host and the date;
the night is a party with the club's rules and pot, whose host link the organizer hands over."""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from clubs import access, selectors
from clubs.forms import NightCreateForm
from clubs.services import night as night_service
from parties import access as party_access
from parties.services.errors import PartyError
from parties.translation import hosts_language, rule_error_text


@never_cache
@require_http_methods(["GET", "POST"])
def night_create(request, club_id):
    club, grant = access.require_organizer(request, club_id)
    season = selectors.season_in_play(club)
    members = selectors.current_members(selectors.members(club))
    context = {"club": club, "grant": grant, "season": season}
    if request.method == "GET":
        today = timezone.localdate()
        host = selectors.host_for(season, today) if season else None
        form = NightCreateForm(members=members, initial={
            "date": today, "host": host.id if host else None,
            "coming": [m.id for m in members],
        })
        return render(request, "clubs/night_create.html", {**context, "form": form})
    form = NightCreateForm(request.POST, members=members)
    if not form.is_valid():
        return render(request, "clubs/night_create.html", {**context, "form": form}, status=400)
    # A night is a party: it counts against the network's hourly allowance as one does.
    if not party_access.party_creation_allowed(request):
        form.add_error(None, _("Too many parties were created from this network in the last "
                               "hour. Wait a while and try again; nothing was created."))
        return render(request, "clubs/night_create.html", {**context, "form": form}, status=429)
    data = form.cleaned_data
    try:
        night = night_service.night_create(
            club=club, date=data["date"], host=data["host_member"],
            coming=data["coming_members"], subs=data["subs"], language=hosts_language(),
            self_join=data["self_join"],
        )
    except PartyError as error:
        form.add_error(None, rule_error_text(error))
        return render(request, "clubs/night_create.html", {**context, "form": form}, status=400)
    messages.success(request, _("The night is ready. Hand its host link to %(host)s: it runs "
                                "that night only.") % {"host": night.host.name})
    address = reverse("clubs:home", args=[club.id]) + f"?night={night.id}#night-{night.id}"
    return redirect(address)
