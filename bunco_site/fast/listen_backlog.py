"""A listen queue deep enough for a room of phones connecting at once.

daphne listens through Twisted's endpoints, whose listen queue (the connections the kernel
has completed and the server has not yet accepted) holds 50 by default. Past that, the kernel
drops the new connection's first packet, and the phone's TCP sends it again only after 1 s,
then 2, 4, 8 more: a tap sent on a new connection then waits seconds before the server sees
it, with the server not even busy. Phones open connections in bursts: every socket of a
stopped process reconnects at once to the others (docs/deploy.md), a party's phones come back
together after a Wi-Fi drop, and a loaded server's slow answers make browsers open more.
Measured in bench/ S2 at 250 parties (bench/results/2026-12-04.md): 27 connections
dropped at the listen queue in one run (the kernel's ListenOverflows), and that run's worst
deliveries were 12 to 19 s late, a table's taps queued behind one.

Here every TCP or Unix endpoint daphne is given listens with a queue of `BACKLOG`, unless it
names its own (`backlog=`); the kernel caps it at `net.core.somaxconn` (4096 on current
Linux). The queue costs nothing until connections wait in it. With "listen_backlog" left out of
BUNCO_FAST, Twisted's default stays.
"""

from django.conf import settings

BACKLOG = 4096
_LISTENING = ("tcp:", "tcp6:", "unix:")


def deeper(endpoints):
    """daphne's endpoint strings, each TCP or Unix one given `backlog=BACKLOG` unless it has
    a backlog already; others (a file descriptor handed over) are left as they are."""
    if "listen_backlog" not in settings.FAST:
        return list(map(str, endpoints))
    return [
        f"{endpoint}:backlog={BACKLOG}"
        if endpoint.startswith(_LISTENING) and "backlog=" not in endpoint
        else endpoint
        for endpoint in map(str, endpoints)
    ]
