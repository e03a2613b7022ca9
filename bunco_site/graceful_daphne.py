"""daphne's server with a graceful stop, which the server's launcher (`python -m
bunco_site.serve`, daphne's own arguments) runs. On SIGTERM (a deploy, `docker compose stop`, a
rolling restart) it

1. stops listening, so the proxy's health check fails and new connections go elsewhere;
2. closes every websocket with code 1012 ("service restart"): the phones reconnect at once,
   through the proxy, to another process, and resync;
3. keeps serving the requests already under way (a tap half-saved finishes and is answered)
   and any that arrive on connections already open, until none has been in flight for
   BUNCO_DRAIN_LINGER seconds (default 3: longer than the proxy takes to mark the process
   down), and at most BUNCO_DRAIN_TIMEOUT seconds (default 15);
4. then stops as daphne does.

It also listens with a deeper queue than Twisted's default (bunco_site/fast/listen_backlog.py).

Plain daphne stops at once on SIGTERM: the requests under way are cancelled (the phones resend
their taps, so nothing is lost either way, but a tap waits a retry longer) and the sockets drop
without a close frame. SIGINT (Ctrl-C) still stops at once.
"""

import logging
import os
import signal
import sys
import time

from daphne.http_protocol import WebRequest
from daphne.server import Server
from daphne.ws_protocol import WebSocketProtocol

from bunco_site.fast import listen_backlog

logger = logging.getLogger("bunco.graceful_stop")

SERVICE_RESTART = 1012  # RFC 6455 7.4 (IANA registry): the server is restarting


def seconds_from_env(name, default):
    value = os.environ.get(name, "").strip()
    try:
        return float(value) if value else default
    except ValueError:
        sys.exit(f"{name}={value!r}: give a number of seconds.")


class GracefulServer(Server):
    def run(self):
        from twisted.internet import reactor

        self.ports = []
        self.draining = False
        self.linger = seconds_from_env("BUNCO_DRAIN_LINGER", 3.0)
        self.drain_timeout = seconds_from_env("BUNCO_DRAIN_TIMEOUT", 15.0)
        # After the reactor has put in its own signal handlers (it does so as it starts).
        reactor.callWhenRunning(self.handle_sigterm)
        self.endpoints = listen_backlog.deeper(self.endpoints)  # not Twisted's 50
        super().run()

    def listen_success(self, port):
        self.ports.append(port)
        super().listen_success(port)

    def handle_sigterm(self):
        from twisted.internet import reactor

        signal.signal(signal.SIGTERM, lambda *_: reactor.callFromThread(self.drain_or_stop))

    def drain_or_stop(self):
        # daphne sends Twisted's log nowhere: a failure here would be silent, and the process
        # would neither drain nor stop.
        try:
            self.drain()
        except Exception:
            logger.exception("the graceful stop failed; stopping now")
            self.stop()

    def drain(self):
        if self.draining:
            return
        self.draining = True
        for port in self.ports:
            port.stopListening()
        sockets = [
            p for p in list(self.connections)
            if isinstance(p, WebSocketProtocol) and p.state == WebSocketProtocol.STATE_OPEN
        ]
        for socket in sockets:
            # The frame itself, as daphne sends 1011: autobahn's sendClose takes only 1000 and
            # 3000-4999 from an application.
            socket.sendCloseFrame(code=SERVICE_RESTART, reasonUtf8=b"server restarting")
        logger.warning(
            "SIGTERM: stopped listening, closed %d websockets (1012), finishing %d requests",
            len(sockets), len(self.requests_in_flight()),
        )
        now = time.monotonic()
        self.wait_for_requests(deadline=now + self.drain_timeout, idle_since=now)

    def requests_in_flight(self):
        return [
            protocol for protocol, details in list(self.connections.items())
            if isinstance(protocol, WebRequest) and "disconnected" not in details
            and details.get("application_instance") is not None
            and not details["application_instance"].done()
        ]

    def wait_for_requests(self, deadline, idle_since):
        from twisted.internet import reactor

        now = time.monotonic()
        if self.requests_in_flight():
            idle_since = now
        if now >= deadline or now - idle_since >= self.linger:
            left = len(self.requests_in_flight())
            if left:
                logger.warning("drain timeout: stopping with %d requests unanswered", left)
            self.stop()
            return
        reactor.callLater(0.05, self.wait_for_requests, deadline, idle_since)

