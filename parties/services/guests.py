"""Writes to the guests who add themselves (Party.self_join): a guest asks to join with the party
code and their own name, and waits; the host seats them (into round 1's seating before it
starts, later into a ghost's seat as a late arrival), merges them with a name already on the
list, or turns them away.

The guest's phone is known by a secret in its own session, of which the row keeps only the hash
(as a link's token): nothing in an address names a guest. The phone takes the player's link
itself, on its next look at its waiting page (parties.views.guests); a write cannot reach into
another browser's session.
"""

import secrets
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _

from parties import access
from parties.models import Party, Player, WaitingGuest
from parties.services import player as player_service
from parties.services.changes import host_changed, lock_party
from parties.services.errors import PartyError


@dataclass(frozen=True)
class Joined:
    guest: WaitingGuest
    secret: str  # for the phone's session only: never stored, never shown


@transaction.atomic
def guest_join(*, party: Party, name: str, replacing: str | None = None) -> Joined:
    """The guest waits for the host under their name, tidied as a player's and free at the party
    (no player's, no other waiting guest's). `replacing`: the secret the phone already holds,
    if any: a phone waits once at a party, so its earlier place in the list, if still waiting
    there, gives way (a typo put right)."""
    lock_party(party)
    if not party.self_join:
        raise PartyError(
            _(
                "This party does not let guests add themselves: ask the host for your link, or "
                "leave your name out to read the sheets."
            )
        )
    if party.status == Party.Status.FINISHED:
        raise PartyError(_("The party is over."))
    waiting = WaitingGuest.objects.filter(party=party, status=WaitingGuest.Status.WAITING)
    earlier = replacing and waiting.filter(secret_hash=access.hash_token(replacing)).first()
    others = waiting.exclude(pk=earlier.pk) if earlier else waiting
    name = player_service.new_player_name(party, name, also=others.values_list("name", flat=True))
    if others.count() >= settings.GUESTS_WAITING_MAX:
        raise PartyError(_("The host's list of guests waiting is full: ask the host."))
    if earlier:
        earlier.delete()
    secret = secrets.token_urlsafe(32)
    guest = WaitingGuest.objects.create(
        party=party, name=name, secret_hash=access.hash_token(secret)
    )
    host_changed(party, "guests")
    return Joined(guest, secret)


def _waiting(party, guest_id):
    """The guest, locked, while still waiting at this party (the party locked, not over)."""
    if party.status == Party.Status.FINISHED:
        raise PartyError(_("The party is over."))
    guest = (
        WaitingGuest.objects.select_for_update()
        .filter(party=party, pk=guest_id, status=WaitingGuest.Status.WAITING)
        .first()
    )
    if guest is None:
        raise PartyError(_("That guest is no longer waiting."))
    return guest


def _became(guest, status, player=None):
    WaitingGuest.objects.filter(pk=guest.pk).update(status=status, player=player)
    guest.status, guest.player = status, player


@dataclass(frozen=True)
class Seated:
    guest: WaitingGuest
    redrawn: bool  # round 1 was drawn again for one more (services.player.player_add)


@transaction.atomic
def guest_seat(*, party: Party, guest_id: int) -> Seated:
    """The guest becomes a new player: before round 1 in its seating (player_add), later in a
    ghost's seat between rounds (player_arrive, with a late arrival's rules and refusals; a
    guest refused stays waiting). The seating's change tells every page to refetch."""
    lock_party(party)
    guest = _waiting(party, guest_id)
    if party.status == Party.Status.SETUP:
        added = player_service.player_add(party=party, name=guest.name)
    else:
        added = player_service.Added(
            player_service.player_arrive(party=party, name=guest.name), redrawn=False
        )
    _became(guest, WaitingGuest.Status.SEATED, added.player)
    return Seated(guest, added.redrawn)


@transaction.atomic
def guest_merge(*, party: Party, guest_id: int, player_id: int) -> WaitingGuest:
    """The guest is a player already on the list (another spelling, a card left at home): their
    phone will hold that player's link. Nobody's seat changes."""
    lock_party(party)
    guest = _waiting(party, guest_id)
    player = Player.objects.filter(party=party, pk=player_id, is_ghost=False).first()
    if player is None:
        raise PartyError(_("Pick the player on the list who is this guest."))
    _became(guest, WaitingGuest.Status.MERGED, player)
    host_changed(party, "guests")
    return guest


@transaction.atomic
def guest_turn_away(*, party: Party, guest_id: int) -> WaitingGuest:
    """The host does not seat the guest; their phone says so, and their name is free again."""
    lock_party(party)
    guest = _waiting(party, guest_id)
    _became(guest, WaitingGuest.Status.TURNED_AWAY)
    host_changed(party, "guests")
    return guest
