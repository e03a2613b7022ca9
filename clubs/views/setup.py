"""Making a club, its organizer's link redeemed into the session, and the club code typed where
guests type a party code (/join/)."""

from django.conf import settings
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods

from clubs import access
from clubs.forms import ClubCreateForm
from clubs.models import Club, ClubLink
from clubs.services import club as club_service
from parties import access as party_access
from parties import party_codes
from parties.forms import preset_initial
from parties.services.errors import PartyError
from parties.translation import rule_error_text
from parties.views import setup as party_setup
from scoring import PRESETS


@require_http_methods(["GET", "POST"])
def club_create(request):
    """Anyone may start a club, as anyone may host a party; the browser that makes it holds
    its organizer link."""
    if request.method == "GET":
        preset = request.GET.get("preset", "standard")
        form = ClubCreateForm(initial=preset_initial(preset if preset in PRESETS else "standard"))
        if request.htmx:
            return render(request, "clubs/create.html#rules-options", {"form": form})
        return render(request, "clubs/create.html", {"form": form})
    if "load_preset" in request.POST:  # the no-JavaScript way to switch presets
        preset = request.POST.get("preset")
        kept = {key: request.POST.get(key, "") for key in ("name", "players")}
        form = ClubCreateForm(
            initial={**kept, **preset_initial(preset if preset in PRESETS else "standard")}
        )
        return render(request, "clubs/create.html", {"form": form})
    form = ClubCreateForm(request.POST, request.FILES)
    if not form.is_valid():
        return render(request, "clubs/create.html", {"form": form}, status=400)
    # A club is made as a party is, and counts as one against the network's hourly allowance.
    if not party_access.party_creation_allowed(request):
        form.add_error(None, _("Too many clubs and parties were created from this network in "
                               "the last hour. Wait a while and try again; nothing was created."))
        return render(request, "clubs/create.html", {"form": form}, status=429)
    data = form.cleaned_data
    try:
        club = club_service.club_create(
            name=data["name"], member_names=data["players"], preset=data["preset"],
            rules=data["rules"], pot=data["pot"],
            subs_count_for_member=data["subs_count_for_member"], ranking=data["ranking"],
            today=timezone.localdate(),
        )
    except PartyError as error:
        form.add_error(None, rule_error_text(error))
        return render(request, "clubs/create.html", {"form": form}, status=400)
    access.redeem(request, ClubLink.objects.get(club=club))
    return redirect("clubs:home", club_id=club.id)


@never_cache
@require_GET
def redeem(request, token):
    link = access.link_for_token(token)
    if link is None:
        return render(request, "parties/link_invalid.html", status=404)
    access.redeem(request, link)
    return redirect("clubs:home", club_id=link.club_id)  # the token leaves the address bar


@never_cache
@require_http_methods(["GET", "POST"])
def join(request):
    """/join/: a club's code opens its club page; anything else is the party code's join,
    unchanged (parties.views.setup.join: its page, its failure count, its cookie).

    Only a code of a club code's length is looked at here, and only within the browser's
    allowance of wrong codes: counted before it is judged (a right one taken back), as the
    party code's join counts, on the same count. A code that is no club's is handed on, and the
    party code's join counts it as the wrong code it is."""
    if request.method != "POST":
        return party_setup.join(request)
    code = party_codes.party_code_typed(request.POST.get("code", ""))
    if len(code) != access.CLUB_CODE_LENGTH:
        return party_setup.join(request)
    browser, _new = party_setup._join_browser(request)
    key = f"party-code-failures:browser:{browser}"  # the party code join's count
    counted = party_access.attempt_count(key, settings.PARTY_CODE_FAILURE_WINDOW)
    within = counted <= settings.PARTY_CODE_MAX_FAILURES
    club = Club.objects.filter(code=code).first() if within else None
    party_access.attempt_uncount(key)  # a wrong one is counted by the party's join, handed on
    if club is None:
        return party_setup.join(request)  # a wrong code, or a browser out of tries: refused there
    access.grant_code(request, club)
    return redirect("clubs:home", club_id=club.id)
