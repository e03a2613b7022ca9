"""The party server (`manage.py party_server`) as a host runs it: every address of the laptop,
links with its Wi-Fi address, only its own names, and a restart that loses nothing."""

import http.cookiejar
import os
import re
import stat
import subprocess
import urllib.error
import urllib.request

import pytest

from bunco_site import home_server
from tests.party_server_process import PartyServer, clean_env, free_port

LAN = home_server.lan_address()


def lan():
    # This machine (and CI's) has a default route; a laptop with none is tested by its message.
    assert LAN, "this machine has no address on a default route: the tests need one"
    return LAN


def get(url, host=None, opener=None):
    """(status, body) of a GET, with another Host header if given (as a phone would send)."""
    request = urllib.request.Request(url, headers={"Host": host} if host else {})
    try:
        with (opener or urllib.request.build_opener()).open(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def browser():
    return urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
    )


def listening_addresses(port):
    """The local addresses with a socket listening on `port` (Linux's /proc/net/tcp)."""
    found = set()
    for line in open("/proc/net/tcp").read().splitlines()[1:]:
        local, _remote, state = line.split()[1:4]
        address, hex_port = local.split(":")
        if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
            found.add(".".join(str(int(address[i:i + 2], 16)) for i in (6, 4, 2, 0)))
    return found


def test_it_serves_every_address_of_the_laptop_and_only_its_own_names(tmp_path):
    port = free_port()
    with PartyServer(port, tmp_path / "data", ["--demo"]) as server:
        assert listening_addresses(port) == {"0.0.0.0"}  # noqa: S104 - every IPv4 address
        here = f"http://127.0.0.1:{port}/"
        assert get(f"http://{lan()}:{port}/")[0] == 200  # a phone on the Wi-Fi
        assert get(here, host=f"{lan()}:{port}")[0] == 200
        assert get(here, host=f"{os.uname().nodename.split('.')[0]}.local:{port}")[0] == 200
        for stranger in ("evil.example", f"evil.example:{port}", "192.0.2.250"):
            assert get(here, host=stranger)[0] == 400, stranger  # DNS rebinding is refused
        # Production mode: no debug page for a wrong address.
        status, page = get(here + "no-such-page/")
        assert status == 404 and "URLconf" not in page and "DEBUG" not in page
        # Every printed link carries the Wi-Fi address the phones use.
        links = server.links()
        assert {"Host", "Table 1 (head table)", "Ann"} <= links.keys()
        assert all(url.startswith(f"http://{lan()}:{port}/l/") for url in links.values())
        assert f"Phones on this Wi-Fi open   http://{lan()}:{port}/" in server.output
    assert server.process.returncode == 0  # stopped with SIGTERM, daphne with it
    assert listening_addresses(port) == set()
    data = tmp_path / "data"
    assert (data / "db.sqlite3").exists()
    assert stat.S_IMODE((data / "secret-key").stat().st_mode) == 0o600
    assert stat.S_IMODE(data.stat().st_mode) == 0o700


@pytest.mark.slow
def test_a_restart_mid_party_keeps_the_party_every_link_and_every_phone(tmp_path):
    port = free_port()
    phone = browser()
    with PartyServer(port, tmp_path, ["--demo"]) as server:
        links = server.links()
        with phone.open(links["Table 2"], timeout=10) as response:  # the phone scans its card
            table_page = response.geturl()
            assert "Scorekeeper · table 2" in response.read().decode()
    assert re.fullmatch(rf"http://{lan()}:{port}/parties/\d+/table/2/", table_page)
    with PartyServer(port, tmp_path) as again:
        # The terminal names the party in progress, with the host link it had.
        assert "Demo Bunco Night (code " in again.output
        assert links["Host"] in again.output
        # The phone is still signed in (the same secret key signs its session) ...
        status, page = get(table_page, opener=phone)
        assert status == 200 and "Scorekeeper · table 2" in page
        # ... and the card's link still opens the table on another phone.
        status, page = get(links["Table 2"], opener=browser())
        assert status == 200 and "Scorekeeper · table 2" in page


@pytest.mark.slow
def test_links_carry_the_wifi_address_whichever_address_the_hosts_browser_used(tmp_path):
    port = free_port()
    with PartyServer(port, tmp_path, ["--demo"]) as server:
        host_link = server.links()["Host"].replace(f"http://{lan()}:", "http://127.0.0.1:")
        laptop = browser()
        status, page = get(host_link, opener=laptop)  # the host's browser on 127.0.0.1
        assert status == 200 and "Links" in page
        printed = re.findall(r'value="(http://[^"]+/l/[^"]+/)"', page)
        assert len(printed) == 1 + 3 + 12
        assert all(url.startswith(f"http://{lan()}:{port}/l/") for url in printed)
        assert f"http://{lan()}:{port}/join/" in page  # where players type the party code
        party = re.search(r"/parties/(\d+)/", page).group(1)
        status, cards = get(f"http://127.0.0.1:{port}/parties/{party}/host/cards/", opener=laptop)
        assert status == 200 and f"http://{lan()}:{port}/join/" in cards


@pytest.mark.slow
def test_base_url_names_the_address_and_the_default_data_folder_is_the_users(tmp_path):
    port = free_port()
    env = clean_env(HOME=str(tmp_path), XDG_DATA_HOME="")
    args = ["--demo", "--base-url", "bunco-night.lan"]  # no port: this server's is meant
    with PartyServer(port, args=args, env=env) as server:
        assert all(url.startswith(f"http://bunco-night.lan:{port}/l/")
                   for url in server.links().values())
        here = f"http://127.0.0.1:{port}/"
        assert get(here, host=f"bunco-night.lan:{port}")[0] == 200
        assert get(here, host=f"{lan()}:{port}")[0] == 200  # its own address still works
    assert (tmp_path / ".local" / "share" / "bunco-night" / "db.sqlite3").exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--base-url", "ftp://x"], "give an address like http://"),
        (["--base-url", "http://mylaptop.local:8000/party/"], "the app answers at its root"),
        (["--base-url", "http://[fe80::1]:8000"], "listens on IPv4"),
        (["--port", "0"], "a port is 1 to 65535"),
    ],
)
def test_bad_options_say_what_is_wrong_and_start_nothing(tmp_path, args, message):
    server = PartyServer(free_port(), tmp_path, args)
    with pytest.raises(RuntimeError, match=message):
        server.start(timeout=30)
    assert server.process.returncode != 0
    assert not (tmp_path / "db.sqlite3").exists()


def test_a_host_whose_terminal_speaks_spanish_reads_the_server_in_spanish(tmp_path):
    from django.utils import translation

    env = clean_env(BUNCO_DATA_DIR=str(tmp_path), LANG="es_ES.UTF-8", LC_ALL="")
    server = PartyServer(free_port(), tmp_path, ["--port", "0"], env=env)
    with translation.override("es"):
        said = translation.gettext("--port %(port)s: a port is 1 to 65535.") % {"port": 0}
    assert "65535" in said and said != "--port 0: a port is 1 to 65535."
    with pytest.raises(RuntimeError, match=re.escape(said)):
        server.start(timeout=30)


@pytest.mark.slow
def test_a_port_in_use_is_named_with_the_way_out(tmp_path):
    port = free_port()
    with PartyServer(port, tmp_path / "one"):
        second = PartyServer(port, tmp_path / "two")
        with pytest.raises(RuntimeError, match=f"Port {port} is in use.*--port {port + 1}"):
            second.start(timeout=30)


@pytest.mark.slow
def test_a_laptop_with_no_network_is_told_so_plainly(tmp_path):
    # A network namespace with only loopback: a laptop whose Wi-Fi is off.
    namespace = f"bunco-nonet-{os.getpid()}"
    subprocess.run(["ip", "netns", "add", namespace], check=True)
    try:
        subprocess.run(["ip", "netns", "exec", namespace, "ip", "link", "set", "lo", "up"],
                       check=True)
        port = free_port()
        server = PartyServer(port, tmp_path, wrap=["ip", "netns", "exec", namespace])
        with server:
            assert "seems to have no network the phones could share" in server.output
            assert "Join the Wi-Fi your guests use and start again" in server.output
            assert f"only this laptop can open http://127.0.0.1:{port}/" in server.output
    finally:
        subprocess.run(["ip", "netns", "del", namespace], check=True)
