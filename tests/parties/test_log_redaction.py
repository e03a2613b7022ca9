"""Link tokens never reach a log: daphne's access log as daphne writes it, and Django's records."""

import logging
import os
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from bench.servers import Daphne, prepare
from bunco_site import log_redaction
from tests.parties.conftest import Browser

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "Zm9vYmFyLXNlY3JldC10b2tlbi1vZi00My1jaGFyYWN0ZXJz"  # shaped like a link's token


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as response:  # noqa: S310
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


@pytest.fixture(scope="module")
def daphne_log(tmp_path_factory):
    """What a real daphne process serving the app wrote, after a visit to a link's address."""
    folder = tmp_path_factory.mktemp("daphne")
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    # DEBUG on, as the browser tests run it (no collected static files needed); Django's own
    # console handler then prints request warnings too, and must redact them as well.
    env.update(
        DJANGO_DEBUG="1",
        DJANGO_SETTINGS_MODULE="bunco_site.settings",
        SQLITE_PATH=str(folder / "db.sqlite3"),
    )
    prepare(env, static=False)
    log = folder / "daphne.log"
    # The server's launcher, as production starts it (bunco_site/serve.py redacts).
    server = Daphne(env, log_path=log).start()
    try:
        assert get(f"{server.url}/l/{TOKEN}/") == 404
        assert get(f"{server.url}/l/{TOKEN}/?utm=x") == 404
        # The access log line is written as the response completes: wait for both.
        deadline = time.monotonic() + 10
        while log.read_text().count('"GET /l/') < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        server.stop()
    return log.read_text()


def test_daphnes_access_log_shows_a_links_visit_without_its_token(daphne_log):
    lines = [line for line in daphne_log.splitlines() if '"GET /l/' in line]
    assert len(lines) == 2, daphne_log  # the visits are logged...
    assert '"GET /l/[redacted]/" 404' in lines[0]
    assert '"GET /l/[redacted]/?utm=x" 404' in lines[1]
    assert TOKEN not in daphne_log  # ...and the token is nowhere, in any line


def test_djangos_not_found_warning_shows_the_path_without_its_token(daphne_log):
    assert "Not Found: /l/[redacted]/" in daphne_log


@pytest.mark.django_db
def test_a_wrong_links_warning_in_djangos_log_has_no_token(caplog):
    with caplog.at_level(logging.WARNING, logger="django.request"):
        assert Browser().get(f"/l/{TOKEN}/").status_code == 404
    messages = [record.getMessage() for record in caplog.records]
    assert "Not Found: /l/[redacted]/" in messages
    assert not any(TOKEN in message for message in messages)


def test_the_redaction_leaves_other_paths_alone():
    assert log_redaction.redact("GET /parties/12/host/ 200") == "GET /parties/12/host/ 200"
    assert log_redaction.redact(f'"GET /l/{TOKEN}/" 302') == '"GET /l/[redacted]/" 302'
    assert log_redaction.redact(f"/l/{TOKEN}") == "/l/[redacted]"
