"""server_tuning.install(): each patch checked against the internals it replaces, one log line
each, one switch. The app is served by a real daphne process started by the server's launcher
(bunco_site.serve), as in production, through a small wrapper that can first reshape Twisted's
internals the way an unmeasured release would (and print, at exit, what the process really ran
with)."""

import os
import socket
import subprocess
import sys
import textwrap
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from bench.servers import free_port, stop_process
from bunco_site.fast import server_tuning

ROOT = Path(__file__).resolve().parents[2]

DAPHNE = textwrap.dedent(
    """
    import atexit, gc, sys
    reshape = sys.argv[1]

    if "twisted-24.3-request" in reshape:
        # Twisted 24.3.0's Request: no parsePOSTFormSubmission (it came in 25.5.0), so a
        # request class that passes it raises a TypeError for every request.
        from twisted.web import http
        real_init = http.Request.__init__
        def __init__(self, channel, queued=http._QUEUED_SENTINEL):
            real_init(self, channel, queued)
        http.Request.__init__ = __init__
    if "reshaped-internals" in reshape:
        # A Twisted whose transports write through a helper, not the doWrite measured...
        from twisted.internet.abstract import FileDescriptor
        real_do_write = FileDescriptor.doWrite
        def doWrite(self):
            return real_do_write(self)
        FileDescriptor.doWrite = doWrite
        # ...a collector with two thresholds...
        gc.get_threshold = lambda: (700, 10)
        # ...and a patch that fails while installing.
        from bunco_site.fast.server_tuning import request_bodies
        def broken(http_protocol):
            raise RuntimeError("boom")
        request_bodies.install = broken

    def state():
        reactor = sys.modules["twisted.internet.reactor"]
        http_protocol = sys.modules["daphne.http_protocol"]
        print("eager_writes", hasattr(reactor, "_eager"), flush=True)
        print("request_bodies", getattr(http_protocol.WebRequest, "parses_forms", True) is False, flush=True)
        print("gc_policy", gc.get_freeze_count() > 0, flush=True)

    atexit.register(state)
    from bunco_site.serve import main  # the server's launcher, as production starts it
    main(sys.argv[2:])
    """
)
PATCHES = server_tuning.PATCHES


def get(url, data=None):
    """The status and body a phone would see (urllib raises on 4xx; a phone does not)."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=data), timeout=5) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as answer:
        return answer.code, answer.read().decode()


def serve(tmp_path, reshape="none", python=sys.executable, **env):
    """Start the app under daphne, ask it what a phone asks, stop it; answer the two answers,
    the server's output, and what it ran with ({patch: installed?})."""
    port = free_port()
    # /healthz needs no database or Redis; the switch is each test's own.
    environ = {
        k: v for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "REDIS_URL", "BUNCO_SERVER_TUNING")
    }
    environ.update(
        DJANGO_SETTINGS_MODULE="bunco_site.settings", DJANGO_DEBUG="1",
        SQLITE_PATH=str(tmp_path / "db.sqlite3"), PYTHONPATH=str(ROOT), **env,
    )
    output = open(tmp_path / f"daphne-{port}.log", "w+b")  # noqa: SIM115
    process = subprocess.Popen(
        [python, "-c", DAPHNE, reshape, "-b", "127.0.0.1", "-p", str(port),
         "bunco_site.asgi:application"],
        cwd=ROOT, env=environ, stdout=output, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}/healthz"
    try:
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, (tmp_path / f"daphne-{port}.log").read_text()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "daphne did not listen within 30 s"
                time.sleep(0.1)
        answers = [get(url), get(url, data=b"tap_id=a1&seen=3&outcome=miss")]  # a form, as a tap
    finally:
        # daphne stops its reactor and exits: the atexit state prints
        stop_process(process, timeout=15)
        output.seek(0)
        log = output.read().decode()
        output.close()
    ran_with = {}
    for line in log.splitlines():
        name, _, value = line.partition(" ")
        if name in PATCHES and value in ("True", "False"):
            ran_with[name] = value == "True"
    return answers, log, ran_with


def tuning_lines(log):
    return [line for line in log.splitlines() if line.startswith("server tuning:")]


def assert_served(answers):
    """The page's GET answered, and a form POST reached Django (refused for want of a CSRF
    token, as any stranger's post is), not an empty reply."""
    (get_status, get_body), (post_status, post_body) = answers
    assert (get_status, get_body) == (200, "ok")
    assert post_status == 403 and "CSRF" in post_body


def test_on_the_measured_versions_every_patch_is_installed_and_says_so(tmp_path):
    answers, log, ran_with = serve(tmp_path)
    assert_served(answers)
    lines = tuning_lines(log)
    assert [line.split()[2:4] for line in lines] == [[name, "installed"] for name in PATCHES], log
    assert "(Twisted " in lines[0] and "daphne " in lines[1] and "(CPython " in lines[2]
    assert ran_with == {name: True for name in PATCHES}


@pytest.mark.slow
def test_on_twisted_24_3s_request_the_form_patch_is_skipped_and_daphne_still_answers(tmp_path):
    answers, log, ran_with = serve(tmp_path, reshape="twisted-24.3-request")
    assert_served(answers)  # without the check: "Empty reply", every request a TypeError
    assert (
        "server tuning: request_bodies skipped: Twisted 26.10.0's Request takes no "
        "parsePOSTFormSubmission" in tuning_lines(log)
    ), log
    assert ran_with == {"eager_writes": True, "request_bodies": False, "gc_policy": True}


@pytest.mark.slow
def test_internals_of_another_shape_or_a_failing_patch_are_skipped_and_daphne_answers(tmp_path):
    answers, log, ran_with = serve(tmp_path, reshape="reshaped-internals")
    assert_served(answers)
    lines = tuning_lines(log)
    assert [line.split()[2:4] for line in lines] == [[name, "skipped:"] for name in PATCHES], log
    eager, bodies, collector = lines
    assert "FileDescriptor.doWrite no longer uses" in eager
    assert bodies.endswith("request_bodies skipped: RuntimeError: boom")
    assert "collector has 2 thresholds, not 3" in collector
    assert ran_with == {"eager_writes": False, "request_bodies": False, "gc_policy": False}


@pytest.mark.slow
def test_the_switch_at_0_installs_nothing_and_daphne_answers(tmp_path):
    answers, log, ran_with = serve(tmp_path, BUNCO_SERVER_TUNING="0")
    assert_served(answers)
    assert tuning_lines(log) == [
        f"server tuning: {name} off (BUNCO_SERVER_TUNING=0)" for name in PATCHES
    ], log
    assert ran_with == {name: False for name in PATCHES}


@pytest.mark.slow
@pytest.mark.skipif(
    not os.environ.get("BUNCO_OLD_TWISTED_PYTHON"),
    reason="BUNCO_OLD_TWISTED_PYTHON names no interpreter with Twisted 24.3.0 (see docs/server-tuning.md)",
)
def test_on_a_real_twisted_24_3_the_form_patch_is_skipped_and_daphne_still_answers(tmp_path):
    answers, log, ran_with = serve(tmp_path, python=os.environ["BUNCO_OLD_TWISTED_PYTHON"])
    assert_served(answers)
    lines = tuning_lines(log)
    assert "server tuning: request_bodies skipped: Twisted 24.3.0's Request takes no " \
        "parsePOSTFormSubmission" in lines, log
    assert ran_with["request_bodies"] is False


# The switch and the log, in this process, with the patches' own work stubbed out (the real
# ones change the interpreter for good).


@pytest.fixture
def tuning_log(caplog):
    """What the server-tuning logger says (it does not propagate to caplog's root handler)."""
    server_tuning.log.addHandler(caplog.handler)
    with caplog.at_level("INFO", logger="bunco.server_tuning"):
        yield caplog
    server_tuning.log.removeHandler(caplog.handler)


@pytest.fixture
def stub_patches(monkeypatch):
    applied = []
    for name in PATCHES:
        module = __import__(f"bunco_site.fast.server_tuning.{name}", fromlist=["apply"])

        def apply(name=name, module=module):
            applied.append(name)
            return server_tuning.versions_of(module.MEASURED_WITH)

        monkeypatch.setattr(module, "apply", apply)
    return applied


@pytest.mark.parametrize(
    ("setting", "installed"),
    [
        (None, list(PATCHES)),
        ("1", list(PATCHES)),
        ("all", list(PATCHES)),
        ("0", []),
        ("off", []),
        ("gc_policy,eager_writes", ["eager_writes", "gc_policy"]),
        (" request_bodies ", ["request_bodies"]),
    ],
)
def test_the_switch_picks_the_patches(stub_patches, tuning_log, setting, installed):
    environ = {} if setting is None else {"BUNCO_SERVER_TUNING": setting}
    outcomes = server_tuning.install(environ)
    assert stub_patches == installed
    assert outcomes == {n: "installed" if n in installed else "off" for n in PATCHES}
    said = [record.getMessage().split()[2:4] for record in tuning_log.records]
    assert said == [[n, "installed" if n in installed else "off"] for n in PATCHES]


def test_a_name_that_is_no_patch_is_said_and_the_others_still_install(stub_patches, tuning_log):
    server_tuning.install({"BUNCO_SERVER_TUNING": "gc_polcy,eager_writes"})
    assert stub_patches == ["eager_writes"]
    first = tuning_log.records[0]
    assert first.levelname == "WARNING"
    assert "names no patch: gc_polcy" in first.getMessage()


def test_an_unmeasured_version_that_fits_is_installed_with_a_warning(monkeypatch, tuning_log):
    from bunco_site.fast.server_tuning import gc_policy

    monkeypatch.setattr(gc_policy, "MEASURED_WITH", {"CPython": "3.10"})
    monkeypatch.setattr(gc_policy, "install", lambda: None)
    outcomes = server_tuning.install({"BUNCO_SERVER_TUNING": "gc_policy"})
    assert outcomes["gc_policy"] == "installed"
    last = tuning_log.records[-1]
    assert last.levelname == "WARNING"
    assert last.getMessage().endswith("; measured with CPython 3.10)")


def test_outside_daphne_the_server_patches_are_skipped_not_failed(monkeypatch, tuning_log):
    monkeypatch.delitem(sys.modules, "twisted.internet.reactor", raising=False)
    monkeypatch.delitem(sys.modules, "daphne.http_protocol", raising=False)
    outcomes = server_tuning.install({"BUNCO_SERVER_TUNING": "eager_writes,request_bodies"})
    assert outcomes == {"eager_writes": "skipped", "request_bodies": "skipped", "gc_policy": "off"}
    assert [record.getMessage() for record in tuning_log.records][:2] == [
        "server tuning: eager_writes skipped: no Twisted reactor is running (not under daphne)",
        "server tuning: request_bodies skipped: daphne's server is not running",
    ]


def test_importing_the_asgi_module_installs_no_patch(tmp_path):
    """Tests and management commands import the app; only the launcher patches the server."""
    code = (
        "import gc, threading, bunco_site.asgi; "
        "print(gc.get_freeze_count(), gc.get_threshold()[2] < 1000, "
        "any(t.name == 'bunco-gc' for t in threading.enumerate()))"
    )
    environ = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    environ.update(DJANGO_SETTINGS_MODULE="bunco_site.settings", DJANGO_DEBUG="1",
                   SQLITE_PATH=str(tmp_path / "db.sqlite3"))
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=environ,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    # nothing frozen, full collections on, no collector thread; and nothing said
    assert result.stdout.split() == ["0", "True", "False"], result.stderr
    assert "server tuning:" not in result.stdout + result.stderr
