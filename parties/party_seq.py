"""The party's sequence number: what every page compares to know it is up to date.

Every write that changes what a page shows moves it on once, with the party's row locked
(services.lock_party), so two writes never announce the same number. A page that hears a
number above its own refetches (static/parties/live.js); one that missed a message catches up
at the next number it hears, or when its socket reopens.
"""

from django.db.models import F

from parties import announce
from parties.models import Party


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
