"""Choosing a table's scorekeeper for the waiting round (docs/rules.md section 5): from the
table's phone or the host's seating. A plain post that redirects back with a message."""

from django.contrib import messages
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from parties import access
from parties.services.errors import PartyError
from parties.services.scorekeeper import scorekeeper_choose
from parties.translation import rule_error_text


@require_POST
def scorekeeper_set(request, party_id, number):
    party, grant = access.require(request, party_id, lambda a: a.can_score(number))
    try:
        player_id = int(request.POST.get("player", ""))
    except ValueError:
        messages.error(request, _("Pick who keeps score."))
    else:
        try:
            seat = scorekeeper_choose(
                party=party, table_number=number, player_id=player_id
            )
        except PartyError as error:
            messages.error(request, rule_error_text(error))
        else:
            messages.success(
                request,
                _("%(name)s keeps score at table %(number)s and rolls first.")
                % {"name": seat.player.name, "number": number},
            )
    if request.POST.get("back") == "host" and grant.host:
        return redirect(reverse("parties:host", args=[party.id]) + "#seating")
    return redirect("parties:table", party_id=party.id, number=number)
