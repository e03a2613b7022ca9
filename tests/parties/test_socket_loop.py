"""The party socket's lean loop (bunco_site.fast.socket_loop) stands in for Channels' internals:
it fits the pinned Channels, and steps aside when switched off or when Channels changed shape."""

import logging

import channels

from bunco_site.fast import socket_loop


def test_the_pinned_channels_has_the_shape_the_loop_replaces():
    assert channels.__version__.startswith("4.")
    assert socket_loop.fits()
    assert socket_loop.in_use()


def test_switched_off_channels_own_loop_serves_the_sockets(settings):
    settings.FAST = settings.FAST - {"socket_loop"}
    assert not socket_loop.in_use()


def test_a_channels_of_another_shape_gets_its_own_loop_and_one_warning(monkeypatch, caplog):
    monkeypatch.setattr(channels, "__version__", "5.0.0")
    monkeypatch.setattr(socket_loop, "_warned", [])
    with caplog.at_level(logging.WARNING, logger=socket_loop.logger.name):
        assert not socket_loop.in_use()
        assert not socket_loop.in_use()
    warnings = [r.getMessage() for r in caplog.records]
    assert warnings == ["socket_loop skipped: Channels 5.0.0 is not the shape it replaces; "
                        "Channels' own loop serves the sockets"]
