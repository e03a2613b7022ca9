"""The tests that need PostgreSQL, Redis or Chromium skip with one line per missing service, and
fail instead under BUNCO_REQUIRE_ALL_SERVICES=1 (tests/service_checks.py): pytest run on a few
real test files, with every service pointed somewhere it is not."""

import os
import re
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# A few of each kind: browser tests, fault tests (PostgreSQL and a redis-server of their own),
# a test on the shared Redis and its twin that needs none.
SELECTION = [
    "tests/e2e/test_tv.py",
    "tests/faults/test_redis_restart.py",
    "tests/parties/test_security.py::test_the_attempt_counter_gives_every_concurrent_attempt_its_own_count",
]
SUMMARY = re.compile(r"^(?P<reason>.+): (?P<count>\d+) tests? skipped$", re.MULTILINE)


@pytest.fixture
def no_programs(tmp_path):
    """A PATH with none of redis-server, redis-cli (nor anything else but `env`)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "env").symlink_to("/usr/bin/env")
    return str(Path(sys.executable).parent) + os.pathsep + str(folder)


@pytest.fixture
def closed_port():
    """A port nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def listening_port():
    """A port that accepts connections, as a service's would (and answers nothing)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


def pytest_run(*args, **env):
    # The inner run's Django test database is the embedded default's: on PostgreSQL it would
    # be the outer run's own test_<name>, in use (DATABASE_URL is CI's second pass).
    environ = {k: v for k, v in os.environ.items()
               if not k.startswith(("BUNCO_", "PYTEST_XDIST_")) and k != "DATABASE_URL"}
    # A Redis prefix of its own: the inner run's workers are named gw0, gw1 too, and each
    # clears its own prefix's keys before every test (tests/parties/conftest.py).
    environ["BUNCO_TEST_PREFIX"] = f"inner{uuid.uuid4().hex[:10]}"
    environ.update(env)
    return subprocess.run(  # every tier: the selection holds tests of the slow one
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-m", "slow or not slow", *args],
        cwd=ROOT, env=environ, capture_output=True, text=True, timeout=300,
    )


def summaries(output):
    return {m["reason"]: int(m["count"]) for m in SUMMARY.finditer(output)}


def outcome_counts(output):
    last = output.strip().splitlines()[-1]
    return {word: int(n) for n, word in re.findall(r"(\d+) (passed|skipped|failed|error)", last)}


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["one-process", "xdist"])
def test_with_no_service_every_test_needing_one_skips_with_one_line_per_service(
    no_programs, closed_port, workers
):
    run = pytest_run(
        *workers, *SELECTION, BUNCO_TEST_POSTGRES=f"127.0.0.1:{closed_port}",
        BUNCO_TEST_REDIS=f"127.0.0.1:{closed_port}", BUNCO_CHROMIUM="/nowhere/chromium",
        PATH=no_programs,
    )
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    said = summaries(run.stdout)
    assert set(said) == {
        "Chromium not found at /nowhere/chromium",
        f"PostgreSQL not reachable at 127.0.0.1:{closed_port}",  # faults: the first one missing
        f"Redis not reachable at 127.0.0.1:{closed_port}",
    }, output
    assert said[f"Redis not reachable at 127.0.0.1:{closed_port}"] == 1
    counts = outcome_counts(run.stdout)
    assert counts == {"passed": 1, "skipped": sum(said.values())}, output  # locmem's twin ran
    for reason in said:  # one line each in the summary, not one per test
        assert run.stdout.count(f"{reason}: ") == 1, output


def test_the_fault_tests_skip_without_the_redis_server_program(no_programs, listening_port):
    run = pytest_run(
        "tests/faults/test_redis_restart.py", BUNCO_TEST_POSTGRES=f"127.0.0.1:{listening_port}",
        PATH=no_programs,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    said = summaries(run.stdout)
    assert list(said) == ["redis-server and redis-cli not found on PATH"], run.stdout
    assert outcome_counts(run.stdout) == {"skipped": next(iter(said.values()))}


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["one-process", "xdist"])
def test_under_the_require_flag_a_missing_service_fails_the_run_before_any_test(
    closed_port, workers
):
    run = pytest_run(
        *workers, *SELECTION, BUNCO_TEST_POSTGRES=f"127.0.0.1:{closed_port}",
        BUNCO_REQUIRE_ALL_SERVICES="1",
    )
    assert run.returncode == pytest.ExitCode.USAGE_ERROR, run.stdout + run.stderr
    error = next(line for line in run.stderr.splitlines() if line.startswith("ERROR: "))
    # (with -n, any other service this machine lacks is named too)
    assert error.startswith("ERROR: BUNCO_REQUIRE_ALL_SERVICES=1 and "), run.stderr
    assert f"PostgreSQL not reachable at 127.0.0.1:{closed_port}" in error, run.stderr
    assert "passed" not in run.stdout


def test_under_the_require_flag_any_skip_fails_the_run(tmp_path):
    (tmp_path / "test_one.py").write_text(
        "import pytest\n\ndef test_runs():\n    pass\n\n"
        "def test_skips():\n    pytest.skip('not here')\n"
    )
    args = ["-c", os.devnull, "--rootdir", str(tmp_path), "-p", "tests.service_checks",
            str(tmp_path / "test_one.py")]
    environ = {"PYTHONPATH": str(ROOT)}
    assert pytest_run(*args, **environ).returncode == pytest.ExitCode.OK
    run = pytest_run(*args, BUNCO_REQUIRE_ALL_SERVICES="1", **environ)
    assert run.returncode == pytest.ExitCode.TESTS_FAILED, run.stdout + run.stderr
    line = next(line for line in run.stdout.splitlines() if line.startswith("BUNCO_REQUIRE"))
    assert line.startswith("BUNCO_REQUIRE_ALL_SERVICES=1 and 1 test skipped; every test must run")
    assert line.endswith("test_one.py::test_skips"), line
