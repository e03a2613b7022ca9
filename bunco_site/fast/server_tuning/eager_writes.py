"""Twisted's writes without the poller's round trip, under daphne's asyncio reactor.

Twisted buffers every write and asks the event loop to watch the socket for "writable"
(an `epoll_ctl`), sends when the poller says so, after everything else ready to run, then stops
watching (a second `epoll_ctl`). Measured in bench/: registering and unregistering writers
was a large share of the server's CPU in a profile of S2, and when a bell reached a big party
at once no phone got a byte until the server had handed the bell to every phone (S3), so the
phones' own work could not overlap the server's.

A socket with room in its send buffer, nearly every socket nearly always, does not need the
poller. Here the reactor's `addWriter` (which a transport calls from `write`) sends at once
when nothing can come of it but the send: no producer to wake, no close pending, so Twisted's
own `doWrite` can only send and stop writing. Otherwise, or when the send fails or the socket
is full, the writer takes Twisted's usual path: its `doWrite` at the end of this loop turn
(errors and closes through the reactor's own `_readOrWrite`), then the poller if the socket
still has no room.

Touches: daphne's reactor (the running AsyncioSelectorReactor) only: its `addWriter`,
`removeWriter` and `getWriters`, replaced on that one object. Version check: `check()` (the
reactor's and transports' shape), `MEASURED_WITH` (a fitting other Twisted installs with a
warning). Switch: on unless BUNCO_SERVER_TUNING is "0" or a list without `eager_writes`.
"""

import inspect
import sys

from twisted.internet.abstract import FileDescriptor
from twisted.internet.asyncioreactor import AsyncioSelectorReactor
from twisted.internet.tcp import Connection
from twisted.python.log import callWithLogger

from bunco_site.fast.server_tuning import Skip, running, versions_of

MEASURED_WITH = {"Twisted": "26.10.0"}  # the same shape since at least 24.3.0
_PENDING, _RUNNING = "pending", "running"
# What a transport's doWrite reads and calls, which `_only_sends` judges it by: the buffers,
# the producer, the close flags, and stopWriting (removeWriter, how this learns it is done).
_DO_WRITE_USES = {
    "_tempDataLen", "dataBuffer", "offset", "producer", "streamingProducer", "producerPaused",
    "disconnecting", "_writeDisconnecting", "stopWriting",
}
_TRANSPORT_HAS = {
    "dataBuffer", "offset", "producer", "streamingProducer", "producerPaused", "connected",
    "disconnecting", "_writeDisconnecting",
}


def apply():
    """Under daphne, whose reactor is installed before it loads the app. Elsewhere (tests,
    management commands) no reactor is imported here: importing one would install Twisted's
    default, and daphne could not install its own after."""
    reactor = sys.modules.get("twisted.internet.reactor")
    if reactor is None:
        raise Skip("no Twisted reactor is running (not under daphne)")
    check(reactor)
    install(reactor)
    return versions_of(MEASURED_WITH)


def check(reactor):
    """Raise Skip unless the reactor and its TCP transports are what this was measured on."""
    twisted = running("Twisted")
    if not isinstance(reactor, AsyncioSelectorReactor):
        raise Skip(f"the reactor is {type(reactor).__name__}, not Twisted's asyncio reactor")
    for name, attribute in [
        ("_writers", "__contains__"),
        ("_continuousPolling", "isWriting"),
        ("_asyncioEventloop", "call_soon"),
    ]:
        if not callable(getattr(getattr(reactor, name, None), attribute, None)):
            raise Skip(f"{twisted}'s asyncio reactor has no {name}.{attribute}")
    for name in ("addWriter", "removeWriter", "getWriters"):
        if not callable(getattr(reactor, name, None)):
            raise Skip(f"{twisted}'s asyncio reactor has no {name}")
    read_or_write = getattr(reactor, "_readOrWrite", None)
    if not callable(read_or_write) or list(inspect.signature(read_or_write).parameters) != [
        "selectable",
        "read",
    ]:
        raise Skip(f"{twisted}'s asyncio reactor has no _readOrWrite(selectable, read)")
    if Connection.doWrite is not FileDescriptor.doWrite:
        raise Skip(f"{twisted}'s TCP connections write with a doWrite of their own")
    missing = sorted(_DO_WRITE_USES - set(FileDescriptor.doWrite.__code__.co_names))
    missing += sorted(n for n in _TRANSPORT_HAS if not hasattr(FileDescriptor, n))
    if missing:
        raise Skip(f"{twisted}'s FileDescriptor.doWrite no longer uses {', '.join(missing)}")


def _only_sends(writer):
    """Whether the writer's doWrite, once all is sent, does nothing but stop writing. A writer
    with nothing buffered is being asked for something else (`loseConnection` starts writing
    before it marks the connection as closing, so that doWrite closes it)."""
    has_data = getattr(writer, "_tempDataLen", 0) > 0 or len(
        getattr(writer, "dataBuffer", b"")
    ) > getattr(writer, "offset", 0)
    producer_idle = getattr(writer, "producer", None) is None or (
        writer.streamingProducer and not writer.producerPaused
    )
    return (
        has_data
        and producer_idle
        and getattr(writer, "connected", False)
        and not getattr(writer, "disconnecting", True)
        and not getattr(writer, "_writeDisconnecting", True)
    )


def install(reactor):
    """Make `reactor` (daphne's, installed before the app is imported) write eagerly; any other
    kind of reactor is left as it is. Answers whether it was installed."""
    if not isinstance(reactor, AsyncioSelectorReactor) or hasattr(reactor, "_eager"):
        return False
    reactor._eager = {}  # writer -> _PENDING (a call is scheduled) or _RUNNING (in doWrite)
    poll_writer = reactor.addWriter
    unpoll_writer = reactor.removeWriter
    writers_of = reactor.getWriters
    loop = reactor._asyncioEventloop

    def add_writer(writer):
        if writer in reactor._eager:
            return  # already on its way out
        if writer in reactor._writers or reactor._continuousPolling.isWriting(writer):
            return  # already waiting for the poller
        if _only_sends(writer) and send_now(writer):
            return
        reactor._eager[writer] = _PENDING
        loop.call_soon(write_later, writer)

    def send_now(writer):
        """Send it all now; False (nothing lost: it is still buffered) if that did not work."""
        reactor._eager[writer] = _RUNNING
        try:
            failed = writer.doWrite()
        except Exception:
            failed = True
        finally:
            still_writing = reactor._eager.pop(writer, None) is not None
        return not failed and not still_writing

    def write_later(writer):
        if reactor._eager.get(writer) != _PENDING:
            return  # stopped writing meanwhile (it was closed, say)
        reactor._eager[writer] = _RUNNING
        try:
            callWithLogger(writer, reactor._readOrWrite, writer, False)
        finally:
            still_writing = reactor._eager.pop(writer, None) is not None
        if still_writing and writer.fileno() != -1:
            poll_writer(writer)  # the socket was full: wait for room, as Twisted always does

    def remove_writer(writer):
        if reactor._eager.pop(writer, None) is not None:
            return  # it was never given to the poller
        unpoll_writer(writer)

    def get_writers():
        return list(reactor._eager) + writers_of()

    reactor.addWriter = add_writer
    reactor.removeWriter = remove_writer
    reactor.getWriters = get_writers
    return True
