"""The party's lock and its sequence number: how every write starts and how it ends.

Every live write starts by locking the party's row (`lock_party`), so the writes of one party
are serialised. Every write that changes what a page shows moves the party's sequence number
on once, under that lock, so two writes never announce the same number. A page that hears a
number above its own refetches (static/parties/live.js); one that missed a message catches up
at the next number it hears, or when its socket reopens.
"""

from django.db.models import F

from parties.live import announce
from parties.models import Party


def lock_party(party):
    """Every live write starts here: lock the party's row and read it fresh under the lock, so
    the sequence number, status and pause it decides on cannot change under it, and two writes
    never announce the same sequence number."""
    fresh = Party.objects.select_for_update().get(pk=party.pk)
    party.seq, party.status, party.paused_at = fresh.seq, fresh.status, fresh.paused_at
    return party


def seq_bump(party) -> None:
    """Move the party's number on, in the database and on `party`. For writes that announce
    with a message of their own (a tap, the bell, a round's close)."""
    Party.objects.filter(pk=party.id).update(seq=F("seq") + 1)
    party.seq += 1


def party_changed(party, what: str) -> None:
    """Move the number on and, after commit, tell every page of the party to refetch: `what`
    changed ("seating", ...), for the page's own words where it has any."""
    seq_bump(party)
    announce.on_commit_round(party, what)


def host_changed(party, what: str) -> None:
    """Move the number on and, after commit, tell only the party's host pages to refetch: what
    changed shows on no other page (a guest waiting), and a guest arriving in the middle of a
    round must not make hundreds of phones fetch their pages. The other pages never hear this
    number; the next they hear is above theirs, as it would have been (a page whose socket
    opens meanwhile refetches once, on its hello)."""
    seq_bump(party)
    announce.on_commit_host(party, what)
