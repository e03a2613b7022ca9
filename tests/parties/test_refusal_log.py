"""A refused request (403, or a 400 such as a Host not allowed) is one line in the log, with no
traceback, and its link token redacted; a server error (500) keeps its traceback.

Django logs a PermissionDenied (and a SuspiciousOperation) with the exception attached, which
the console printed as ~45 lines of traceback per denied request: what a probe of a party's
pages filled the log with. Checked twice: in this process, through the console handler that
settings.LOGGING sets up (what a server prints), and in a real daphne in production mode."""

import io
import logging
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from unittest import mock

import pytest
from django.core.exceptions import PermissionDenied
from django.urls import reverse

from bench.servers import ROOT, Daphne, prepare, production_env
from tests.parties.conftest import Browser

TOKEN = "Zm9vYmFyLXNlY3JldC10b2tlbi1vZi00My1jaGFyYWN0ZXJz"  # shaped like a link's token


@contextmanager
def console_output():
    """What settings.LOGGING's console handler (every log record a server prints) writes."""
    handler = next(h for h in logging.getLogger().handlers if h.get_name() == "console")
    stream = io.StringIO()
    before = handler.setStream(stream)
    try:
        yield stream
    finally:
        if before is not None:
            handler.setStream(before)


@pytest.mark.django_db
def test_a_denied_page_is_one_line_in_the_log_without_a_traceback(party, stranger):
    with console_output() as log:
        assert stranger.get(reverse("parties:host", args=[party.id])).status_code == 403
    assert log.getvalue() == f"Forbidden (Permission denied): /parties/{party.id}/host/\n"


@pytest.mark.django_db
def test_a_denied_link_address_is_one_line_with_its_token_redacted():
    denied = PermissionDenied("This link does not give you that at this party.")
    with console_output() as log, mock.patch("parties.access.link_for_token", side_effect=denied):
        assert Browser().get(f"/l/{TOKEN}/").status_code == 403
    assert log.getvalue() == "Forbidden (Permission denied): /l/[redacted]/\n"


@pytest.mark.django_db
def test_a_host_not_allowed_is_one_line_in_the_log_without_a_traceback():
    with console_output() as log:
        assert Browser().get("/", HTTP_HOST="evil.example").status_code == 400
    assert log.getvalue().count("\n") == 1, log.getvalue()
    assert log.getvalue().startswith("Invalid HTTP_HOST header: 'evil.example'.")


@pytest.mark.django_db
def test_a_server_error_still_logs_its_traceback(party):
    # A guard, not a finding: it passed before the change too, and must go on passing.
    browser = Browser()
    browser.raise_request_exception = False
    broken = RuntimeError("the database went away")
    with console_output() as log, mock.patch("parties.access.require", side_effect=broken):
        assert browser.get(reverse("parties:host", args=[party.id])).status_code == 500
    text = log.getvalue()
    assert text.startswith(f"Internal Server Error: /parties/{party.id}/host/\nTraceback")
    assert text.rstrip().endswith("RuntimeError: the database went away")


def _answer(url, method="GET", **headers):
    request = urllib.request.Request(url, method=method, headers=headers,  # noqa: S310
                                     data=b"" if method == "POST" else None)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


@pytest.fixture(scope="module")
def production_log(tmp_path_factory):
    """A real daphne in production mode (DJANGO_DEBUG=0) with a party, after a stranger asked
    for its host page, a Host not allowed, and a POST to a link's address without a CSRF
    token: (the server's log, the party's id)."""
    folder = tmp_path_factory.mktemp("refusals")
    env = production_env({"SQLITE_PATH": str(folder / "db.sqlite3")})
    prepare(env)  # the error pages name hashed static files
    subprocess.run([sys.executable, "manage.py", "demo_party"], cwd=ROOT, env=env, check=True,
                   capture_output=True, timeout=120)
    log = folder / "daphne.log"
    server = Daphne(env, log_path=log).start()
    try:
        assert _answer(f"{server.url}/parties/1/host/") == 403
        assert _answer(f"{server.url}/", Host="evil.example") == 400
        assert _answer(f"{server.url}/l/{TOKEN}/", "POST") == 403  # no CSRF token
        # The access log's line is written as the response completes, the last one's maybe
        # after the client has it: wait for it, at most 10 s on a loaded machine.
        deadline = time.monotonic() + 10
        while '"POST /l/[redacted]/"' not in log.read_text() and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        server.stop()
    return log.read_text()


def _logged_for(log, request_line):
    """The lines the server logged while answering `request_line` ("GET /path"): between the
    access log's line for it and the access log's line before it."""
    lines = log.splitlines()
    end = next(i for i, line in enumerate(lines) if f'"{request_line}"' in line)
    start = max(i for i, line in enumerate(lines[:end]) if line.startswith("127.0.0.1:"))
    return lines[start + 1:end]


def test_a_denied_page_in_production_is_one_line_in_the_log(production_log):
    assert "Traceback" not in production_log, production_log
    assert _logged_for(production_log, "GET /parties/1/host/") == [
        "Forbidden (Permission denied): /parties/1/host/"
    ]


def test_a_host_not_allowed_in_production_is_one_line_in_the_log(production_log):
    (line,) = _logged_for(production_log, "GET /")
    assert line.startswith("Invalid HTTP_HOST header: 'evil.example'.")


def test_a_refused_post_to_a_link_in_production_is_one_line_without_its_token(production_log):
    assert _logged_for(production_log, "POST /l/[redacted]/") == [
        "Forbidden (CSRF cookie not set.): /l/[redacted]/"
    ]
    assert TOKEN not in production_log
