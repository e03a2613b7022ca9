"""Writes to a party's links: a host gives a lost or leaked link a replacement."""

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from parties import access
from parties.live import announce
from parties.models import AccessLink, Party
from parties.services.errors import PartyError


@transaction.atomic
def link_reissue(*, party: Party, link_id: int) -> AccessLink:
    """Revoke a link and make its replacement, for the same role and target. Nothing is
    announced to the party's phones but the revoke (no page but the host's shows links, and
    the host's answer carries the new one)."""
    # Locked so two quick taps on "New link" cannot both replace the same link.
    old = (
        access.live_links(party.id)
        .select_for_update(of=("self",))
        .filter(pk=link_id)
        .order_by()
        .first()
    )
    if old is None:
        raise PartyError(_("That link is not one of this party's live links."))
    old.revoked_at = timezone.now()
    old.save(update_fields=["revoked_at"])
    new = access.new_salted(
        AccessLink(party=party, role=old.role, table=old.table, player=old.player)
    )
    new.save()
    announce.on_commit_links_revoked(party.id, [old.id])  # its open sockets close
    return new
