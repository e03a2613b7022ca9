"""The party at home, in Chromium: the party server started as the README starts it, a phone
opening the table link the terminal printed (the laptop's Wi-Fi address, plain HTTP: not a
secure context), a tap, the bell, the sound, and the screen kept awake."""

import pytest
from playwright.sync_api import expect

from bunco_site import home_server
from tests.devices import LAPTOP, PHONE
from tests.e2e.test_live_round import Table
from tests.party_server_process import PartyServer, free_port

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_a_phone_on_the_wifi_plays_from_the_printed_link(chromium, shots, tmp_path):
    lan = home_server.lan_address()
    assert lan, "this machine has no address on a default route: the test needs one"
    port = free_port()
    with PartyServer(port, tmp_path, ["--demo"]) as server:
        links = server.links()
        assert links["Table 1 (head table)"].startswith(f"http://{lan}:{port}/l/")

        phone_context = chromium.new_context(**PHONE)
        phone = phone_context.new_page()
        phone.goto(links["Table 1 (head table)"])
        expect(phone.locator("body")).to_have_attribute("data-socket", "open")
        # Plain HTTP on the Wi-Fi: no Wake Lock API here, which is why NoSleep.js is vendored.
        assert phone.evaluate("() => [window.isSecureContext, 'wakeLock' in navigator]") == [
            False, False
        ]
        # The sound prompt: one tap turns the bell's chime on (and plays it once, softly).
        expect(phone.locator("#sound-bar")).to_be_visible()
        phone.locator("#sound-bar .sound-on").click()
        expect(phone.locator("body")).to_have_attribute("data-sound", "on")
        expect(phone.locator("body")).to_have_attribute("data-chimes", "1")
        expect(phone.locator("body")).to_have_attribute("data-awake", "off")  # no round yet

        host_context = chromium.new_context(**LAPTOP)
        host = host_context.new_page()
        host.goto(links["Host"].replace(f"http://{lan}:", "http://127.0.0.1:"))
        expect(host.locator("body")).to_have_attribute("data-socket", "open")
        host.get_by_role("button", name="Start round 1").click()

        table = Table(phone, 1)
        expect(phone.locator("body")).to_have_attribute("data-chimes", "2")  # "roll!"
        table.tap("2 points")  # a tap: the silent video may play from now on
        expect(phone.locator("body")).to_have_attribute("data-awake", "video")
        expect(table.live.locator(".side-points")).to_contain_text(["2"])

        host.get_by_role("button", name="Ring the bell").click()
        expect(phone.locator("body")).to_have_attribute("data-bells", "1")
        expect(phone.locator("#bell-banner")).to_be_visible()
        expect(phone.locator("body")).to_have_attribute("data-chimes", "3")  # the bell rang
        shots(phone, "party-server-table-bell-phone")
        phone_context.close()
        host_context.close()


def test_a_restart_mid_round_keeps_every_tap_and_every_phone_finds_the_party_again(
    chromium, shots, tmp_path
):
    # The host's laptop restarts the server mid-round (a sleep, an update, Ctrl-C by mistake):
    # each phone reconnects and shows what the database holds, a tap made while it was down
    # goes in once, and the next bell reaches everyone.
    port = free_port()
    server = PartyServer(port, tmp_path, ["--demo"]).start()
    try:
        links = server.links()
        label = {n: next(k for k in links if k.startswith(f"Table {n}")) for n in (1, 2, 3)}
        host = chromium.new_context(**LAPTOP).new_page()
        host.goto(links["Host"])
        expect(host.locator("body")).to_have_attribute("data-socket", "open")
        tables = {}
        for n in (1, 2, 3):
            page = chromium.new_context(**PHONE).new_page()
            page.goto(links[label[n]])
            expect(page.locator("body")).to_have_attribute("data-socket", "open")
            page.get_by_role("button", name="No sound").click()
            tables[n] = Table(page, n)
        host.get_by_role("button", name="Start round 1").click()
        for table in tables.values():
            table.expect("playing", [0, 0])
            table.page.wait_for_timeout(700)  # the scorekeeper reads the change, then taps
            table.tap("1 point")
            table.expect("playing", [1, 0])

        server.stop()
        everyone = [host, *(t.page for t in tables.values())]
        for page in everyone:
            expect(page.locator("body")).not_to_have_attribute("data-socket", "open", timeout=15_000)
        tables[2].page.get_by_role("button", name="2 points", exact=True).click()  # while down
        expect(tables[2].page.locator(".outbox .tap")).not_to_have_text(["2 points: saved"])
        shots(tables[2].page, "tap-while-the-server-is-down")

        server.start()
        for page in everyone:
            expect(page.locator("body")).to_have_attribute("data-socket", "open", timeout=30_000)
        expect(tables[2].page.locator(".outbox .tap")).to_have_text(
            ["2 points: saved"], timeout=30_000)
        tables[2].expect("playing", [3, 0])
        tables[1].expect("playing", [1, 0])
        tables[3].expect("playing", [1, 0])
        shots(tables[2].page, "after-the-restart")

        tables[1].page.wait_for_timeout(700)
        dialog, before = tables[1].bunco(tables[1].live.locator(".turn .roller-name").inner_text())
        dialog.get_by_role("button", name="Yes, they called it").click()
        tables[1].saved(before)
        for page in everyone:
            expect(page.locator("#bell-banner")).to_be_visible()
        tables[2].expect("finishing", [3, 0])
        shots(host, "host-after-the-restart-and-the-bell")
        for page in everyone:
            page.context.close()
    finally:
        server.stop()
