"""Guests who add themselves: the guest's waiting page (found by the secret in the phone's own
session, never by an id in the address), and the host's seat, merge and turn away."""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect

from parties import access, selectors
from parties.models import WaitingGuest
from parties.services import guests as guest_service
from parties.services.errors import PartyError
from parties.translation import rule_error_text

POLL_EVERY = 3  # seconds between the waiting page's looks: a guest waits a minute or two


@never_cache
@require_GET
def waiting(request):
    """Where the guest waits. htmx asks again every few seconds (the guest has no link, so no
    socket); once the host has seated or merged them, the phone takes the player's link into
    its session, as a scanned link would be, and goes to the player's page."""
    guest = selectors.waiting_guest(access.waiting_secret(request.session))
    if guest is not None and guest.status in (
        WaitingGuest.Status.SEATED, WaitingGuest.Status.MERGED
    ):
        link = access.player_link(guest.party_id, guest.player_id)
        if link is not None:
            access.redeem(request, link)
            access.drop_waiting(request)
            page = reverse("parties:player", args=[guest.party_id, guest.player_id])
            return HttpResponseClientRedirect(page) if request.htmx else redirect(page)
        guest = None  # no live link to hold: the host reissues one, the guest asks again
    context = {"guest": guest, "poll_every": POLL_EVERY,
               "still_waiting": guest is not None and guest.status == WaitingGuest.Status.WAITING
               and guest.party.status != guest.party.Status.FINISHED}
    template = "parties/waiting.html#waiting" if request.htmx else "parties/waiting.html"
    return render(request, template, context)


def _host_acts(request, party_id, act, done):
    """One host action on a waiting guest: the service, then back to the host page's list with
    what happened (`done(result)`) or why not."""
    party, _grant = access.require_host(request, party_id)
    try:
        result = act(party)
    except PartyError as error:
        messages.error(request, rule_error_text(error))
    else:
        messages.success(request, done(result))
    return redirect("parties:host", party_id=party.id)  # the answer shows at its top


@require_POST
def guest_seat(request, party_id, guest_id):
    def done(seated):
        name = seated.guest.name
        if not seated.redrawn:
            return _("%(name)s is seated; their phone opens their sheet by itself.") % {
                "name": name}
        count = seated.guest.party.players.filter(is_ghost=False).count()
        return ngettext(
            "%(name)s is seated: the tables were drawn again for %(count)s player.",
            "%(name)s is seated: the tables were drawn again for %(count)s players.",
            count,
        ) % {"name": name, "count": count}

    return _host_acts(
        request, party_id, lambda party: guest_service.guest_seat(party=party, guest_id=guest_id),
        done,
    )


@require_POST
def guest_merge(request, party_id, guest_id):
    def merge(party):
        try:
            player_id = int(request.POST.get("player", ""))
        except ValueError:
            raise PartyError(_("Pick the player on the list who is this guest.")) from None
        return guest_service.guest_merge(party=party, guest_id=guest_id, player_id=player_id)

    return _host_acts(
        request, party_id, merge,
        lambda guest: _("%(guest)s is %(player)s: their phone opens that sheet by itself.")
        % {"guest": guest.name, "player": guest.player.name},
    )


@require_POST
def guest_turn_away(request, party_id, guest_id):
    return _host_acts(
        request, party_id,
        lambda party: guest_service.guest_turn_away(party=party, guest_id=guest_id),
        lambda guest: _("%(name)s was turned away; their phone says so.") % {"name": guest.name},
    )
