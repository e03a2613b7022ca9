"""The scorekeeper's table page."""

import uuid

from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from parties import access, selectors
from parties.pages import corrections as correction_context
from parties.pages import tap_hints
from parties.views import respond
from scoring.quick import QUICK_LABELS, mini_face_matters, quick_outcomes


@never_cache
@require_GET
def table(request, party_id, number):
    party, grant = access.require(request, party_id, lambda a: a.can_score(number))
    round_ = selectors.current_round(party)
    tables = {t.number: t for t in selectors.seating(round_, [number])}
    if number not in tables:
        return render(request, "parties/link_invalid.html", status=404)
    rules = party.rules
    live_html = respond.live_html(party, round_, [number])
    return respond.page(
        request,
        "parties/table.html",
        {
            "party": party,
            "round": round_,
            "table": tables[number],
            "number": number,
            "rules": rules,
            "live_html": live_html[0] if live_html else "",
            # scoring's English labels, marked there for makemessages
            "quick": [(key, _(QUICK_LABELS[key])) for key in quick_outcomes(rules)],
            "mini_faces": [f for f in range(1, 7) if f != round_.target],
            "mini_face_matters": mini_face_matters(rules),
            "roll_points": tap_hints.pending_points(rules, round_.target),
            "faces": range(1, 7),
            "tap_id": uuid.uuid4(),
            "can_start": round_.status == round_.Status.WAITING and grant.can_score(1),
            "closed_undo": correction_context.closed_undo(party, number)
            if round_.status != round_.Status.PLAYING
            else None,
            "fuzzy_die": selectors.fuzzy_die(party),
            "offer_keep_score": "table",
            "is_host": grant.host,  # a way back to the host page (the host who plays)
        },
    )
