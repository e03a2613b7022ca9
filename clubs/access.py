"""A club's capability link and code, and the guards every club view opens with.

The same design as a party's (parties.access, docs/security.md): no accounts. The organizer's
link carries a token HMAC-SHA256(SECRET_KEY, salt) with a fresh 128-bit salt; the database keeps
the salt and a SHA-256 of the token only; visiting the link redeems it into the session (a new
session key, its other grants kept). The club code, typed at /join/ where guests type a party
code, grants reading: the club page, its standings and printables, never a change.

A night's host link is its party's own (parties.access): it manages that night, not the club.
"""

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404

from clubs.models import Club, ClubLink
from parties import access as party_access
from parties.party_codes import CODE_ALPHABET

SESSION_LINKS = "bunco_club_links"  # ids of the organizer links this browser redeemed
SESSION_CODE_CLUBS = "bunco_club_codes"  # clubs whose code this browser typed

# 15 symbols of the party codes' alphabet (31^15, about 2^74): longer than any party code (12,
# or 10 and 6 for older parties), so a code typed at /join/ is a club's or a party's by its
# length alone, and shown in three groups of five (parties.party_codes.party_code_shown).
CLUB_CODE_LENGTH = 15


def new_club_code():
    """A fresh random code; the database's unique constraint says whether it is free."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CLUB_CODE_LENGTH))


def token_for(link):
    """The organizer link's token. Its own prefix, so no club salt ever makes a party's token."""
    digest = hmac.new(
        settings.SECRET_KEY.encode(), f"bunco-club-link:{link.salt}".encode(), hashlib.sha256
    ).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def new_salted(link):
    """Give `link` a fresh salt and the matching token hash (unsaved)."""
    link.salt = secrets.token_hex(16)
    link.token_hash = party_access.hash_token(token_for(link))
    return link


def live_links(club_id):
    """The club's live organizer links: a reissued link is revoked at once (parties.access.LIVE,
    the same expression)."""
    return ClubLink.objects.filter(party_access.LIVE, club_id=club_id)


def link_for_token(token):
    """The live organizer link a token opens, or None."""
    if not token or len(token) > 100:
        return None
    found = ClubLink.objects.filter(party_access.LIVE, token_hash=party_access.hash_token(token))
    return found.select_related("club").first()


def redeem(request, link):
    # parties.access's grant: a new session key, the session's other links and codes kept.
    party_access._grant(request, SESSION_LINKS, link.id)


def grant_code(request, club):
    party_access._grant(request, SESSION_CODE_CLUBS, club.id)


@dataclass(frozen=True)
class ClubGrant:
    """What one browser may do at one club."""

    club: Club
    organizer: bool = False
    by_code: bool = False

    @property
    def reader(self):
        return self.organizer or self.by_code


def grant_for(session, club):
    ids = session.get(SESSION_LINKS, [])
    organizer = bool(ids) and live_links(club.id).filter(id__in=ids).exists()
    return ClubGrant(club, organizer, club.id in session.get(SESSION_CODE_CLUBS, []))


def require(request, club_id, check):
    """Load the club and the request's access to it, or refuse with 403 (nothing changes)."""
    club = get_object_or_404(Club, pk=club_id)
    grant = grant_for(request.session, club)
    if not check(grant):
        raise PermissionDenied("This link does not give you that at this club.")
    return club, grant


def require_organizer(request, club_id):
    return require(request, club_id, lambda grant: grant.organizer)


def require_reader(request, club_id):
    return require(request, club_id, lambda grant: grant.reader)
