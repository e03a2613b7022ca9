"""Capability links and the access guards every view and consumer opens with.

A link's token is HMAC-SHA256(SECRET_KEY, salt) with a fresh 128-bit salt from `secrets`: 256
bits nobody can guess. The database keeps only the salt and a SHA-256 of the token, so a leaked
database alone opens nothing, while the host page can still show each link again (it recomputes
the token with the secret key). Reissuing a link gives it a new salt; the old token stops working.

Visiting a link redeems it into the visitor's session (HttpOnly cookie); the session remembers
link ids, so a revoked link stops every session that redeemed it.
"""

import base64
import hashlib
import hmac
import ipaddress
import secrets
from dataclasses import dataclass, field

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _

from parties.models import AccessLink, Party

SESSION_LINKS = "bunco_links"  # ids of the links this browser redeemed
SESSION_CODE_PARTIES = "bunco_code_parties"  # parties whose code this browser typed
# The secret of the guest this phone asked to join as (models.WaitingGuest): the phone is that
# guest because its own session holds it; the row keeps only its hash.
SESSION_WAITING = "bunco_waiting"

# Which links are live, written once: a link opens its party until it is revoked (reissued, or
# its player gone). Every read of live links starts from it, the tap's hand-written statement
# too (parties.services.tap_sql compiles `scoring_links` from it once a process).
LIVE = Q(revoked_at__isnull=True)


def token_for(link):
    digest = hmac.new(
        settings.SECRET_KEY.encode(), f"bunco-link:{link.salt}".encode(), hashlib.sha256
    ).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def hash_token(token):
    return hashlib.sha256(token.encode()).hexdigest()


def new_salted(link):
    """Give `link` a fresh salt and the matching token hash (unsaved)."""
    link.salt = secrets.token_hex(16)
    link.token_hash = hash_token(token_for(link))
    return link


def link_for_token(token):
    """The live link a token opens, or None."""
    if not token or len(token) > 100:
        return None
    return (
        AccessLink.objects.filter(LIVE, token_hash=hash_token(token))
        .select_related("party", "table", "player")
        .first()
    )


def redeem(request, link):
    _grant(request, SESSION_LINKS, link.id)


def grant_code(request, party):
    _grant(request, SESSION_CODE_PARTIES, party.id)


def _grant(request, name, item):
    # A new session key whenever the session gains access: a session cookie planted in the
    # victim's browser beforehand (session fixation) must not share what the victim redeems.
    # cycle_key keeps the session's data, so its other links and code grants stay.
    request.session.cycle_key()
    ids = set(request.session.get(name, []))
    ids.add(item)
    request.session[name] = sorted(ids)


def hold_waiting(request, secret):
    """The phone waits as the guest whose secret this is (the one it asked last, if several).
    A new session key, as for any access gained: a planted session learns no secret."""
    request.session.cycle_key()
    request.session[SESSION_WAITING] = secret


def waiting_secret(session):
    return session.get(SESSION_WAITING)


def drop_waiting(request):
    """The phone waits no more: its guest became a player and it holds the player's link, or
    it was never let in. Dropped once redeemed, so a link the host reissues later (a phone
    lost) never reaches the phone through its old place in the list."""
    request.session.pop(SESSION_WAITING, None)


def player_link(party_id, player_id):
    """The live link of a (real) player of the party, or None."""
    return (
        live_links(party_id)
        .filter(role=AccessLink.Role.PLAYER, player_id=player_id, player__is_ghost=False)
        .order_by("id")
        .first()
    )


def play_as(request, party_id, link):
    """The host plays as the player of `link`: this phone holds that link, and no other
    player's link at this party (one name a phone plays under; its host and table links stay)."""
    others = live_links(party_id).filter(role=AccessLink.Role.PLAYER).exclude(pk=link.id)
    others = set(others.filter(id__in=request.session.get(SESSION_LINKS, [])).values_list(
        "id", flat=True))
    request.session[SESSION_LINKS] = [i for i in request.session.get(SESSION_LINKS, [])
                                      if i not in others]
    redeem(request, link)


@dataclass(frozen=True)
class Grant:
    """What one browser may do at one party."""

    party: Party
    host: bool = False
    table_numbers: frozenset = field(default_factory=frozenset)
    player_ids: frozenset = field(default_factory=frozenset)
    by_code: bool = False

    @property
    def any(self):
        return self.host or bool(self.table_numbers or self.player_ids) or self.by_code

    def can_score(self, table_number):
        return self.host or table_number in self.table_numbers

    def can_view_sheet(self, player_id):
        # The party code and every role may read any sheet: sheets are what players compare.
        return self.any

    @property
    def role_label(self):
        """Who did it, as rolls and corrections store it (`entered_by`, `made_by`): English, not
        translated, since it is saved."""
        if self.host:
            return "host"
        if self.table_numbers:
            return "table " + ",".join(str(n) for n in sorted(self.table_numbers))
        return "player"


def grant_for(session, party):
    """The access a session holds at `party`, from its live (unrevoked) links."""
    return _grant_of_links(session, party, _live_links(session, party.id))


def live_links(party_id):
    """The party's live links (LIVE)."""
    return AccessLink.objects.filter(LIVE, party_id=party_id)


def scoring_links(party_id, table_number):
    """The party's live links that could score at the table, the host's and the table's own,
    as (id, role, table number) rows: the tap reads them together with the session (one round
    trip), before it knows which links the session holds, and keeps those it holds."""
    could_score = Q(role=AccessLink.Role.HOST) | Q(
        role=AccessLink.Role.TABLE, table__number=table_number
    )
    rows = live_links(party_id).filter(could_score).order_by()
    return rows.values_list("id", "role", "table__number")


def _live_links(session, party_id):
    """The live links at the party among those the session redeemed."""
    ids = session.get(SESSION_LINKS, [])
    if not ids:
        return []
    links = live_links(party_id).filter(id__in=ids)
    return list(links.select_related("table", "party").order_by())


def _grant_of_links(session, party, links):
    rows = (
        (
            link.role,
            link.table.number if link.role == AccessLink.Role.TABLE else None,
            link.player_id,
        )
        for link in links
    )
    return grant_of(party, rows, by_code=party.id in session.get(SESSION_CODE_PARTIES, []))


def grant_of(party, rows, *, by_code=False):
    """The access given by a session's live links at `party`, as (role, table number, player
    id) rows."""
    host, tables, players = False, set(), set()
    for role, table_number, player_id in rows:
        if role == AccessLink.Role.HOST:
            host = True
        elif role == AccessLink.Role.TABLE:
            tables.add(table_number)
        else:
            players.add(player_id)
    return Grant(party, host, frozenset(tables), frozenset(players), by_code)


def require(request, party_id, check):
    """Load the party and the request's access to it, or refuse with 403 (nothing changes)."""
    links = _live_links(request.session, party_id)
    # A link brings its party along (one query on the hot path); the code or nothing needs a look.
    party = links[0].party if links else get_object_or_404(Party, pk=party_id)
    grant = _grant_of_links(request.session, party, links)
    if not check(grant):
        raise PermissionDenied("This link does not give you that at this party.")
    return party, grant


def require_host(request, party_id):
    return require(request, party_id, lambda grant: grant.host)


def require_any(request, party_id):
    return require(request, party_id, lambda grant: grant.any)


# Limits on what anyone may try without a link: counters in the cache (Redis in production, so
# every server process shares them), each started by `cache.add` and counted by `cache.incr`.
# Both are atomic, so requests arriving together each get a different count, and the decision
# is made on the count a request got, never on a value read before it.


def attempt_count(key, window):
    """Count one more attempt under `key`, in a window of `window` seconds from the first;
    the count including this one."""
    for _attempt in range(3):
        cache.add(key, 0, window)  # opens the window, unless one is open
        try:
            return cache.incr(key)
        except ValueError:  # the window closed between add and incr: open a new one
            continue
    raise RuntimeError(f"the cache does not keep {key!r}")


def attempt_uncount(key):
    """Take back an attempt counted under `key` (it was refused unjudged, or it succeeded)."""
    try:
        cache.decr(key)
    except ValueError:  # its window closed meanwhile: nothing left to take back
        pass


def party_creation_allowed(request):
    """Count one more party created from the request's network (an IPv4 address or an IPv6
    /64) this hour, and say whether it is within PARTY_CREATE_MAX_PER_ADDRESS: anyone may
    host, so this is what stops a script filling the database. Counted before creating, so
    concurrent posts cannot all pass. Creating and importing a party both count."""
    created = attempt_count(
        f"party-create:{client_network(request)}", settings.PARTY_CREATE_WINDOW
    )
    return created <= settings.PARTY_CREATE_MAX_PER_ADDRESS


def party_import_refused(request):
    """Why the request's network may not import a party now, or "". An import counts as both
    a party created and a file refused until it ends (party_import_ended keeps the one that
    happened), so concurrent imports cannot all pass. A refused file takes its party creation
    back, so a host who picked the wrong file loses nothing; refused files have an allowance of
    their own, the same number an hour, because reading one costs the server as much as an
    import does."""
    network = client_network(request)
    refused_key = f"party-import-refused:{network}"
    allowance = settings.PARTY_CREATE_MAX_PER_ADDRESS
    if attempt_count(refused_key, settings.PARTY_CREATE_WINDOW) > allowance:
        attempt_uncount(refused_key)
        return _("Too many party files were refused from this network in the last hour.")
    if not party_creation_allowed(request):
        attempt_uncount(refused_key)
        return _("Too many parties were created from this network in the last hour.")
    return ""


def party_import_ended(request, *, created):
    """Keep the count of what the import allowed by party_import_refused turned out to be."""
    network = client_network(request)
    attempt_uncount(f"party-import-refused:{network}" if created else f"party-create:{network}")


def client_network(request):
    """The client's address as a limit counts it: an IPv4 address, or an IPv6 /64 (one home
    or phone gets a whole /64, so its single addresses cost an attacker nothing)."""
    raw = request.META.get("REMOTE_ADDR", "")
    try:
        address = ipaddress.ip_address(raw)
    except ValueError:
        return raw[:64] or "unknown"
    if address.version == 6 and address.ipv4_mapped:
        return str(address.ipv4_mapped)
    if address.version == 6:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def session_link_ids(session_data):
    """The ids of the links in a database session's stored text, decoded as SessionMiddleware
    would (None, an expired or deleted session: none; a tampered one decodes to nothing)."""
    if session_data is None:
        return ()
    links = _decoded.get(session_data)
    if links is None:  # the same stored text decodes the same way: its signature is in it
        from django.contrib.sessions.backends.db import SessionStore

        links = tuple(SessionStore().decode(session_data).get(SESSION_LINKS, []))
        if len(_decoded) >= 20_000:
            _decoded.clear()
        _decoded[session_data] = links
    return links


_decoded: dict = {}  # a session's stored text -> the link ids in it
