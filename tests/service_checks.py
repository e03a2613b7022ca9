"""Tests that need a service this machine may lack skip, one summary line per missing service;
CI (BUNCO_REQUIRE_ALL_SERVICES=1) fails instead, and fails on any skip at all.

A test needs a service by its marker (registered in pyproject.toml):

- `needs_postgres`: a PostgreSQL server (DATABASE_URL's, or 127.0.0.1:5432);
- `needs_redis`: a running Redis (REDIS_URL's, or 127.0.0.1:6379);
- `needs_redis_server`: the `redis-server` and `redis-cli` programs (tests/faults starts a
  Redis of its own on a free port, never the shared one);
- `needs_chromium`: Debian's Chromium (/usr/bin/chromium);
- `needs_haproxy`: Debian's haproxy (on PATH, or /usr/sbin/haproxy);
- `needs_gettext`: GNU gettext's programs, which Django's makemessages runs (the translation
  catalogs' checks: apt-get install gettext).

Most tests get their marker from a fixture they use, so a new test that uses the fixture is
marked without being told (FIXTURE_NEEDS below); a test that reaches a service by itself
carries the marker.

Each service is looked for once per session, and only if a selected test needs it (under
pytest-xdist with BUNCO_REQUIRE_ALL_SERVICES=1, every service, before the workers start): a TCP
connect of half a second for a server, a look on PATH or at the path for a program. These
variables point the look elsewhere (to try the skips on a machine that has everything, point
one at a closed port: BUNCO_TEST_POSTGRES=127.0.0.1:1):

    BUNCO_TEST_POSTGRES=host:port   BUNCO_TEST_REDIS=host:port   BUNCO_CHROMIUM=/path/to/chromium

(BUNCO_CHROMIUM is also the browser the tests launch; redis-server is looked for on PATH.)
"""

import os
import shutil
import socket
from dataclasses import dataclass
from urllib.parse import urlparse

import pytest

from bench.haproxy import haproxy_path

REQUIRE = "BUNCO_REQUIRE_ALL_SERVICES"
CONNECT_TIMEOUT = 0.5  # seconds: a service on this machine or the next answers in far less


def chromium_path():
    return os.environ.get("BUNCO_CHROMIUM") or "/usr/bin/chromium"


def _address(override, url_variable, default_port):
    """(host, port) of a server: the override ("host:port"), else the URL's, else local."""
    if os.environ.get(override):
        host, _, port = os.environ[override].rpartition(":")
        return host or "127.0.0.1", int(port)
    url = urlparse(os.environ.get(url_variable) or "")
    return url.hostname or "127.0.0.1", url.port or default_port


def _answers(host, port):
    try:
        socket.create_connection((host, port), timeout=CONNECT_TIMEOUT).close()
    except OSError:
        return False
    return True


@dataclass(frozen=True)
class Service:
    marker: str
    find: object  # () -> None when present, else the reason it is missing, in a few words


def _server(name, override, url_variable, default_port):
    def find():
        host, port = _address(override, url_variable, default_port)
        return None if _answers(host, port) else f"{name} not reachable at {host}:{port}"

    return find


def _programs(*names):
    def find():
        missing = [name for name in names if not shutil.which(name)]
        return f"{' and '.join(missing)} not found on PATH" if missing else None

    return find


def _haproxy():
    path = haproxy_path()
    if os.path.isfile(path) and os.access(path, os.X_OK):
        return None
    return "haproxy not found (apt-get install haproxy)"


def _chromium():
    path = chromium_path()
    if os.path.isfile(path) and os.access(path, os.X_OK):
        return None
    return f"Chromium not found at {path}"


SERVICES = (
    Service("needs_postgres", _server("PostgreSQL", "BUNCO_TEST_POSTGRES", "DATABASE_URL", 5432)),
    Service("needs_redis", _server("Redis", "BUNCO_TEST_REDIS", "REDIS_URL", 6379)),
    Service("needs_redis_server", _programs("redis-server", "redis-cli")),
    Service("needs_chromium", _chromium),
    Service("needs_haproxy", _haproxy),
    Service("needs_gettext", _programs("msgfmt", "msgmerge", "xgettext", "msgen", "msgfilter")),
)

# What the shared fixtures reach (tests/conftest.py, tests/e2e, tests/faults): a test using
# one, directly or through another fixture, needs what it names.
FIXTURE_NEEDS = {
    "chromium": ("needs_chromium",),
    "production": ("needs_postgres", "needs_redis"),  # tests/e2e: the production topology
    "pg": ("needs_postgres",),  # tests/faults: a database of its own
    "redis": ("needs_redis_server",),  # tests/faults: a redis-server of its own
}


MISSING_SERVICE = "bunco-missing-service"


def required():
    return os.environ.get(REQUIRE, "") == "1"


class ServiceChecks:
    """The plugin: marks, looks once, skips (or fails), and sums up."""

    def __init__(self):
        self.missing = {}  # marker -> reason, for the services looked for and not found
        self.skipped = {}  # reason -> tests skipped for it
        self.other_skips = []  # under REQUIRE: every skip is a failure

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config, items):
        needed = set()
        for item in items:
            for fixture in item.fixturenames:
                for marker in FIXTURE_NEEDS.get(fixture, ()):
                    item.add_marker(marker)
            needed.update(s.marker for s in SERVICES if item.get_closest_marker(s.marker))
        for service in SERVICES:
            if service.marker in needed:
                reason = service.find()
                if reason:
                    self.missing[service.marker] = reason
        if self.missing and required():
            count = sum(1 for item in items if self._missing_for(item))
            raise pytest.UsageError(
                f"{REQUIRE}=1 and {'; '.join(self.missing.values())} "
                f"({count} selected tests need it)"
            )

    def _missing_for(self, item):
        for marker, reason in self.missing.items():
            if item.get_closest_marker(marker):
                return reason
        return None

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item):
        reason = self._missing_for(item)
        if reason:
            # Counted from the report, which pytest-xdist's workers send to the process
            # that prints the summary.
            item.user_properties.append((MISSING_SERVICE, reason))
            pytest.skip(reason)  # before any fixture starts: nothing is half set up

    def pytest_runtest_logreport(self, report):
        reason = dict(report.user_properties).get(MISSING_SERVICE)
        if reason and report.skipped and report.when == "setup":
            self.skipped[reason] = self.skipped.get(reason, 0) + 1
        if report.skipped and required() and not hasattr(report, "wasxfail"):
            self.other_skips.append(report.nodeid)

    def pytest_collectreport(self, report):
        # A module that skips itself as it is imported (pytest.skip(allow_module_level=True))
        # skips every test in it without a test report.
        if report.skipped and required():
            self.other_skips.append(report.nodeid)

    def pytest_sessionfinish(self, session):
        if self.other_skips and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter):
        for reason, count in self.skipped.items():
            terminalreporter.write_line(f"{reason}: {_tests(count)} skipped")
        if self.other_skips:
            terminalreporter.write_line(
                f"{REQUIRE}=1 and {_tests(len(self.other_skips))} skipped; every test must run "
                f"here: {', '.join(self.other_skips[:5])}", red=True,
            )


def _tests(count):
    return f"{count} test" if count == 1 else f"{count} tests"


def pytest_configure(config):
    config.pluginmanager.register(ServiceChecks(), "bunco-service-checks")
    if required() and _xdist_controller(config):
        # Under pytest-xdist the workers collect, and an error there is a crash that names
        # nothing: the process that starts them looks for every service first.
        missing = [reason for service in SERVICES if (reason := service.find())]
        if missing:
            raise pytest.UsageError(f"{REQUIRE}=1 and {'; '.join(missing)} (under -n, "
                                    f"every service is looked for)")


def _xdist_controller(config):
    workers = getattr(config.option, "numprocesses", None)
    return bool(workers) and not hasattr(config, "workerinput")
