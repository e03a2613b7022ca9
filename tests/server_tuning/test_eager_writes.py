"""Eager writes on daphne's reactor (bunco_site.fast.server_tuning.eager_writes), in a process of
their own: a Twisted reactor is installed once per process."""

import subprocess
import sys
import textwrap

CHILD = textwrap.dedent(
    """
    import asyncio, socket, sys, threading
    from twisted.internet import asyncioreactor
    asyncioreactor.install(asyncio.new_event_loop())
    from twisted.internet import protocol, reactor
    from bunco_site.fast.server_tuning import eager_writes

    polled = []
    real_add_writer = reactor.addWriter
    reactor.addWriter = lambda writer: (polled.append(writer), real_add_writer(writer))
    eager_writes.apply()  # raises Skip if this Twisted is not what it was measured on
    assert not eager_writes.install(reactor)  # once only

    SMALL = [b"message %d;" % i for i in range(200)]
    BIG = bytes(range(256)) * 40_000  # 10 MB: more than a socket buffer takes at once
    mode = sys.argv[1]

    sent_at_once = []

    class Talker(protocol.Protocol):
        def connectionMade(self):
            self.transport.write(b"hello;")  # on the wire before write() returns
            sent_at_once.append(not self.transport._tempDataBuffer and not self.transport.dataBuffer)
            if mode == "small":
                for i, chunk in enumerate(SMALL):  # several writes in one turn, some later
                    if i % 50 == 0:
                        reactor.callLater(0.01 * i, self.transport.write, chunk)
                    else:
                        self.transport.write(chunk)
                reactor.callLater(2.5, self.transport.loseConnection)
            else:
                self.transport.write(BIG)
                self.transport.loseConnection()  # after everything is sent, as Twisted does

    port = reactor.listenTCP(0, protocol.Factory.forProtocol(Talker), interface="127.0.0.1")
    got = bytearray()

    def read_all():
        with socket.create_connection(("127.0.0.1", port.getHost().port)) as client:
            while chunk := client.recv(65536):
                got.extend(chunk)
        reactor.callFromThread(reactor.stop)

    threading.Thread(target=read_all, daemon=True).start()
    timed_out = []
    reactor.callLater(20, lambda: (timed_out.append(True), reactor.stop()))
    reactor.run()
    assert not timed_out, "the server never closed the connection"
    if mode == "small":  # those written at once, in order, then the four written later
        expected = b"hello;" + b"".join([c for i, c in enumerate(SMALL) if i % 50] + SMALL[::50])
    else:
        expected = b"hello;" + BIG
    print(len(got), len(expected), bytes(got) == expected,
          len(polled), len(reactor._eager), len(reactor.getWriters()), sent_at_once == [True])
    """
)


def run_child(mode):
    result = subprocess.run(
        [sys.executable, "-c", CHILD, mode], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    got, expected, same, polled, eager_left, writers_left, at_once = result.stdout.split()
    return (
        int(got),
        int(expected),
        same == "True",
        int(polled),
        int(eager_left),
        int(writers_left),
        at_once == "True",
    )


def test_small_writes_are_sent_whole_at_once_without_the_poller():
    got, expected, same, polled, eager_left, writers_left, at_once = run_child("small")
    assert (got, same) == (expected, True)
    assert at_once
    assert polled == 0
    assert (eager_left, writers_left) == (0, 0)


def test_a_write_bigger_than_the_socket_takes_waits_for_the_poller_and_arrives_whole():
    got, expected, same, polled, eager_left, writers_left, _ = run_child("big")
    assert (got, same) == (expected, True)
    assert polled >= 1
    assert (eager_left, writers_left) == (0, 0)
