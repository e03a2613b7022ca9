"""The party at home: the host's laptop as the server for every phone on its Wi-Fi.

What `manage.py party_server` and the settings need to know about the laptop: where its data
lives, its secret key, the address the phones will use, and the names that are its own. Only
the standard library, so the settings can import it before Django is set up.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
import socket
import sys
from pathlib import Path

APP_FOLDER = "bunco-night"


def default_data_dir() -> Path:
    """Where the party server keeps its database and secret key, per the platform's habit."""
    home = Path.home()
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "Bunco Night"
    if os.name == "nt":
        return Path(os.environ.get("APPDATA") or home) / "Bunco Night"
    return Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share") / APP_FOLDER


def data_dir() -> Path:
    """`BUNCO_DATA_DIR`, else the default, created private to the user (0700) if missing."""
    folder = Path(os.environ.get("BUNCO_DATA_DIR") or default_data_dir()).expanduser()
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return folder


def secret_key(folder: Path) -> str:
    """The key signing sessions and links' cookies, made once and kept: a restart mid-party
    keeps every phone signed in. Written readable by the user only."""
    path = folder / "secret-key"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        key = path.read_text().strip()
        if key:
            return key
        raise RuntimeError(f"{path} is empty: delete it and start again") from None
    with os.fdopen(fd, "w") as out:
        out.write(secrets.token_urlsafe(50))
    return path.read_text().strip()


# Any address on the public internet: connecting a UDP socket sends nothing, but makes the
# system pick the source address of its default route, which is the laptop's Wi-Fi (or cable)
# address on the network the phones share.
_ROUTE_PROBE = ("192.0.2.123", 9)  # TEST-NET-1: never a real host


def lan_address() -> str | None:
    """The laptop's IPv4 address on its default route's network, or None when it has none
    (no network, or only a link-local address that no router gave)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(_ROUTE_PROBE)
            address = probe.getsockname()[0]
    except OSError:
        return None
    ip = ipaddress.ip_address(address)
    if ip.is_loopback or ip.is_link_local or ip.is_unspecified:
        return None
    return address


def _resolved(name: str) -> set[str]:
    try:
        return {info[4][0] for info in socket.getaddrinfo(name, None, proto=socket.IPPROTO_TCP)}
    except OSError:
        return set()


def own_hosts(lan: str | None = None) -> list[str]:
    """Every name a phone or the laptop's own browser may put in the Host header: loopback,
    the default route's address, the hostname and `hostname.local` (mDNS) and the addresses
    the hostname resolves to. Nothing else: a page on a stranger's domain that resolves to the
    laptop (DNS rebinding) is refused."""
    hosts = {"localhost", "127.0.0.1", "[::1]"}
    name = socket.gethostname().strip()
    if name:
        short = name.split(".")[0]
        hosts |= {name, short, f"{short}.local"}
        for address in _resolved(name):
            ip = ipaddress.ip_address(address.split("%")[0])
            hosts.add(f"[{ip}]" if ip.version == 6 else str(ip))
    if lan:
        hosts.add(lan)
    return sorted(hosts)


def terminal_language(environ=os.environ) -> str | None:
    """The language the host's terminal speaks (LC_ALL, LC_MESSAGES or LANG, as "es_ES.UTF-8"),
    as a code the site has ("es"), or None: the party server's banner and errors in it."""
    from django.utils import translation

    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name, "").split(".")[0].split("@")[0]
        if value and value not in ("C", "POSIX"):
            try:
                return translation.get_supported_language_variant(value.replace("_", "-").lower())
            except LookupError:
                return None
    return None
