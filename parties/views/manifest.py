"""The web app manifest of a party's page: added to a phone's home screen, the page opens
full-screen from an icon, as this phone's own role at the party.

Its start_url is the capability link (/l/<token>/) that this session redeemed for the page, not
the page's path: iOS gives a home-screen app a cookie jar of its own, where a path that relies
on the session cookie would open refused, while the link redeems itself into the new jar (and
a link the host replaced stops there as it does everywhere). So the manifest carries a secret:
only a session holding that very link gets it, never another role's link, and nothing keeps it.

The page names itself with `?for=host`, `?for=table-<number>` or `?for=player-<id>` (the
templates' `manifest` block): one phone can hold several links at a party (the host's laptop
often opens a table too), and each page's icon must open that page.
"""

import json

from django.contrib.staticfiles.storage import staticfiles_storage
from django.http import Http404, HttpResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from parties import access
from parties.models import AccessLink

# The top bar's colour (site.css --topbar), which is dark in both themes: the splash screen a
# phone shows while the page loads is that dark, so neither theme opens with a white flash.
APP_COLOUR = "#1d1a24"

ICONS = [
    ("parties/icons/icon-192.png", "192x192", "any"),
    ("parties/icons/icon-512.png", "512x512", "any"),
    ("parties/icons/icon-maskable-512.png", "512x512", "maskable"),
]


def wanted_page(value):
    """(role, table number, player id) of the page a `for` value names, or None."""
    kind, _, number = value.partition("-")
    if kind == "host" and not number:
        return (AccessLink.Role.HOST, None, None)
    if not (number.isascii() and number.isdigit() and len(number) <= 19):
        return None
    if kind == "table":
        return (AccessLink.Role.TABLE, int(number), None)
    if kind == "player":
        return (AccessLink.Role.PLAYER, None, int(number))
    return None


def _opens(link, page):
    role, table_number, player_id = page
    if link.role != role:
        return False
    if role == AccessLink.Role.TABLE:
        return link.table.number == table_number
    if role == AccessLink.Role.PLAYER:
        return link.player_id == player_id
    return True


def _page_of(link):
    """The page the link opens and the name under its icon."""
    party_id = link.party_id
    if link.role == AccessLink.Role.HOST:
        return reverse("parties:host", args=[party_id]), _("Bunco host")
    if link.role == AccessLink.Role.TABLE:
        number = link.table.number
        name = _("Bunco table %(number)s") % {"number": number}
        return reverse("parties:table", args=[party_id, number]), name
    return reverse("parties:player", args=[party_id, link.player_id]), _("Bunco sheet")


def manifest_of(link):
    party = link.party
    page, short_name = _page_of(link)
    return {
        # The page, not the link, is the app: a replaced link updates the installed app's
        # start_url instead of making a second app.
        "id": page,
        "name": f"{party.name} · Bunco Night",
        "short_name": short_name,
        "start_url": reverse("parties:redeem", args=[access.token_for(link)]),
        "scope": "/",
        "display": "standalone",
        "background_color": APP_COLOUR,
        "theme_color": APP_COLOUR,
        "icons": [
            {"src": staticfiles_storage.url(path), "sizes": sizes, "type": "image/png",
             "purpose": purpose}
            for path, sizes, purpose in ICONS
        ],
    }


# never_cache: Cache-Control private and no-store (with max-age=0), as on the party's pages,
# since the manifest carries the link's token.
@never_cache
@require_GET
def manifest(request, party_id):
    page = wanted_page(request.GET.get("for", ""))
    # The same live links every guard reads (a revoked link gives nothing). A session without
    # the page's link gets 404 whether or not the party exists: there is nothing for it here.
    links = access._live_links(request.session, party_id) if page else []
    link = next((link for link in links if _opens(link, page)), None)
    if link is None:
        raise Http404("No link of this browser opens that page.")
    return HttpResponse(
        json.dumps(manifest_of(link), indent=1), content_type="application/manifest+json"
    )
