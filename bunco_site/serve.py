"""The server's launcher: daphne, with the measured server patches (bunco_site/fast/server_tuning/),
the graceful stop on SIGTERM (bunco_site/graceful_daphne.py), the timed rounds' clock
(parties/round_clock.py), and the stall log if asked for (bunco_site/fast/stall_log.py).

    python -m bunco_site.serve -b 0.0.0.0 -p 8000 bunco_site.asgi:application

takes daphne's own arguments and runs daphne's command line, which, once it has set up its
logging and loaded the app, calls `load_asgi_app` here: that is where the link tokens are taken
out of daphne's access log (bunco_site/log_redaction.py, always), and where the patches go in,
each checked against the Twisted, daphne and CPython it finds (docs/server-tuning.md). Importing
`bunco_site.asgi` (tests, management commands, a plain `daphne` command) installs nothing.
Every place that starts the server starts it this way: the party server, docker-compose.yml,
the browser and fault tests, and bench/.
"""

import logging
import sys

# Importing daphne's command line imports its server, which installs Twisted's asyncio reactor:
# first, as `python -m daphne` does, before anything could install another.
from daphne.cli import CommandLineInterface

from bunco_site import log_redaction
from bunco_site.fast import server_tuning, stall_log
from bunco_site.graceful_daphne import GracefulServer


class Launcher(CommandLineInterface):
    """Daphne's command line, with the server patches installed once the app is loaded (the
    collector's policy freezes what is alive then, so it must come after the app's imports),
    and daphne's server class swapped, through daphne's own hook, for one that stops
    gracefully."""

    server_class = GracefulServer

    def load_asgi_app(self, asgi_app_path):
        application = super().load_asgi_app(asgi_app_path)
        log_redaction.install()  # link tokens out of daphne's access log: always on, not tuning
        _log_fast_pieces()
        server_tuning.install()
        from twisted.internet import reactor

        reactor.callLater(0, _start_stall_log)  # on the loop, once it runs
        reactor.callLater(0, _start_round_clock)
        return application


def _log_fast_pieces():
    """One line: which of the speed machinery's pieces this server runs (BUNCO_FAST)."""
    from django.conf import settings

    on = [name for name in settings.FAST_PIECES if name in settings.FAST]
    off = [name for name in settings.FAST_PIECES if name not in settings.FAST]
    logging.getLogger("bunco.fast").info(
        "speed pieces on: %s; off: %s", ", ".join(on) or "none", ", ".join(off) or "none"
    )


def _start_stall_log():
    import asyncio

    from django.conf import settings

    stall_log.start(asyncio.get_running_loop(), settings.STALL_LOG)


_clock = None


def _start_round_clock():
    """The timed rounds' clock (parties/round_clock.py): every server process keeps it."""
    import asyncio

    from parties import round_clock

    global _clock
    _clock = round_clock.start(asyncio.get_running_loop())


def main(argv=None):
    Launcher().run(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    main()
