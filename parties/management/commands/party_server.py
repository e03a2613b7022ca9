"""Serve the party from the host's laptop to every phone on its Wi-Fi.

Runs the app as production runs it (daphne, DEBUG off, static files from whitenoise), on
SQLite and the in-memory channel layer, its data in one folder (settings.DATA_DIR), listening
on every IPv4 address. Links and QR codes carry the laptop's Wi-Fi address, whatever address
the host's own browser used. manage.py sets BUNCO_PARTY_SERVER for this command, so the
settings it runs under are already the party server's.
"""

from __future__ import annotations

import errno
import io
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from urllib.parse import urlsplit

import segno
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from bunco_site import home_server
from parties import access, party_codes
from parties.models import AccessLink, Party

STARTUP_SECONDS = 30
EVERY_ADDRESS = "0.0.0.0"  # noqa: S104 - the point: the phones on the laptop's Wi-Fi


class Command(BaseCommand):
    help = (
        "Serve the party to every phone on this laptop's network: production mode on SQLite, "
        "data kept in BUNCO_DATA_DIR, links carrying the laptop's Wi-Fi address."
    )

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument(
            "--base-url",
            default="",
            help="the address in every link and QR code (default: this laptop's Wi-Fi address)",
        )
        parser.add_argument(
            "--demo", action="store_true", help="also create a 12-player demo party"
        )

    def handle(self, *args, port, base_url, demo, verbosity, **options):
        if language := home_server.terminal_language():
            translation.activate(language)  # the host reads the banner in the terminal's language
        if not settings.PARTY_SERVER:
            raise CommandError(
                _("Start it from the command line: python manage.py party_server")
            )
        if not 1 <= port <= 65535:
            raise CommandError(_("--port %(port)s: a port is 1 to 65535.") % {"port": port})
        lan = home_server.lan_address()
        base = _base_url(base_url, lan, port)
        hosts = list(dict.fromkeys([*settings.ALLOWED_HOSTS, _host_entry(base)]))
        _check_port_free(port)

        call_command("migrate", verbosity=0, interactive=False)
        call_command("collectstatic", verbosity=0, interactive=False)
        if demo:
            call_command("demo_party", base_url=base, stdout=self.stdout)

        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": os.environ.get(
                "DJANGO_SETTINGS_MODULE", "bunco_site.settings"
            ),
            "BUNCO_PARTY_SERVER": "1",
            "BUNCO_DATA_DIR": str(settings.DATA_DIR),
            "BUNCO_BASE_URL": base,
            "DJANGO_ALLOWED_HOSTS": ",".join(hosts),
        }
        if base.startswith("https://"):
            # A TLS tunnel or proxy in front: its origin is the phones', not this server's.
            origins = [*settings.CSRF_TRUSTED_ORIGINS, base.rstrip("/")]
            env["DJANGO_CSRF_TRUSTED_ORIGINS"] = ",".join(origins)
        # daphne's access log (-v 1) would scroll the addresses away; -v 2 and up shows it.
        server = subprocess.Popen(  # noqa: S603 - our interpreter, our arguments
            [sys.executable, "-m", "bunco_site.serve", "-b", EVERY_ADDRESS, "-p", str(port),
             "-v", "1" if verbosity >= 2 else "0", "bunco_site.asgi:application"],
            cwd=settings.BASE_DIR,
            env=env,
        )
        # Stopped by a signal (a service manager, a test), stop daphne with us.
        signal.signal(signal.SIGTERM, lambda *_: server.terminate())
        try:
            _wait_until_serving(server, port)
            self._print_welcome(base, lan is None and not base_url, port)
            server.wait()
        except KeyboardInterrupt:
            self.stdout.write("\n" + _("Stopping; the party is kept for the next start."))
        finally:
            _stop(server)
        if server.returncode not in (0, -signal.SIGTERM, -signal.SIGINT, None):
            raise CommandError(
                _("The server stopped (exit code %(code)s).") % {"code": server.returncode}
            )

    def _print_welcome(self, base, no_network, port):
        out = self.stdout
        if no_network:
            out.write(self.style.WARNING(
                _("This laptop seems to have no network the phones could share: its only "
                  "address is 127.0.0.1.") + "\n"
                + _("Join the Wi-Fi your guests use and start again, or pass --base-url with the "
                    "address phones should open.") + "\n"
                + _("Until then only this laptop can open %(url)s")
                % {"url": f"http://127.0.0.1:{port}/"} + "\n"
            ))
        parties = list(
            Party.objects.exclude(status=Party.Status.FINISHED).order_by("-created_at")[:5]
        )
        host_link = _host_link(parties[0], base) if parties else base + "parties/new/"
        out.write(self.style.SUCCESS(_("Bunco Night is serving the party.")))
        if no_network:
            # Translators: the banner lines up this address with the host link's, as the spaces say.
            opens = _("This laptop's browser opens  %(url)s")
        else:
            # Translators: the banner lines up this address with the host link's, as the spaces say.
            opens = _("Phones on this Wi-Fi open   %(url)s")
        out.write("\n  " + opens % {"url": base})
        if parties:
            to_host = _("To host “%(party)s”, open (or scan)  %(url)s") % {
                "party": parties[0].name, "url": host_link
            }
        else:
            to_host = _("To host a new party, open (or scan)  %(url)s") % {"url": host_link}
        out.write("  " + to_host + "\n")
        qr = io.StringIO()
        segno.make(host_link, error="l").terminal(out=qr, compact=True)
        out.write(qr.getvalue())
        for party in parties:
            code = party_codes.party_code_shown(party.code)  # in groups, as the cards show it
            out.write("  " + _("%(party)s (code %(code)s): host link %(url)s") % {
                "party": party.name, "code": code, "url": _host_link(party, base)
            })
        out.write(
            "\n  " + _("Data (database, secret key): %(folder)s") % {"folder": settings.DATA_DIR}
            + "\n  " + _("A restart keeps the party and every link. Stop with Ctrl-C.") + "\n"
        )
        out.flush()


def _base_url(given, lan, port):
    """The address for links: `--base-url` (the server's port added when it names none), else
    the Wi-Fi address. Refused: a path, query or user (the app answers at its root), and an
    IPv6 address (the server listens on IPv4 only)."""
    if not given:
        return f"http://{lan or '127.0.0.1'}:{port}/"
    example = _("give an address like %(first)s or %(second)s") % {
        "first": f"http://192.168.1.23:{port}", "second": f"http://mylaptop.local:{port}"
    }
    parts = urlsplit(given if "://" in given else f"http://{given}")
    try:
        named_port = parts.port
    except ValueError:
        raise CommandError(
            _("--base-url %(given)s: that port is not a number; %(example)s")
            % {"given": given, "example": example}
        ) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise CommandError(f"--base-url {given}: {example}")
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        raise CommandError(
            _("--base-url %(given)s: the app answers at its root, so no path; %(example)s")
            % {"given": given, "example": example}
        )
    if ":" in parts.hostname:
        raise CommandError(
            _("--base-url %(given)s: the party server listens on IPv4; %(example)s")
            % {"given": given, "example": example}
        )
    host = parts.hostname
    if named_port is None and parts.scheme == "http":
        named_port = port  # "mylaptop.home" means this server, not port 80
    netloc = host if named_port is None else f"{host}:{named_port}"
    return f"{parts.scheme}://{netloc}/"


def _host_entry(base):
    """`base`'s host as ALLOWED_HOSTS writes it."""
    return urlsplit(base).hostname


def _host_link(party, base):
    link = access.live_links(party.id).filter(role=AccessLink.Role.HOST).first()
    if link is None:
        return base + "parties/new/"
    return base.rstrip("/") + reverse("parties:redeem", args=[access.token_for(link)])


def _check_port_free(port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        # As daphne binds: connections closed a moment ago (TIME_WAIT) do not hold the port.
        if os.name != "nt":
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((EVERY_ADDRESS, port))
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                raise CommandError(
                    _("Port %(port)s is in use (another party server?). Stop it, or start this "
                      "one with --port %(next)s.") % {"port": port, "next": port + 1}
                ) from None
            raise


def _wait_until_serving(server, port):
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise CommandError(
                _("The server did not start (exit code %(code)s).") % {"code": server.returncode}
            )
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
                return
        except (OSError, urllib.error.URLError):
            time.sleep(0.2)
    raise CommandError(
        _("The server did not answer within %(seconds)s s.") % {"seconds": STARTUP_SECONDS}
    )


def _stop(server):
    if server.poll() is None:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
