"""The browser tests' server (and the fault tests' and the benchmark's: the same
bench/servers.py Daphne) is started as production starts it, by the launcher: the measured
server patches are in, so the pages are tried on the server the figures were measured on
(docs/server-tuning.md)."""

from bunco_site.fast.server_tuning import PATCHES


def test_the_test_server_runs_with_every_server_patch_installed(server):
    log = server.log_text()
    said = [line for line in log.splitlines() if line.startswith("server tuning:")]
    assert [line.split()[2:4] for line in said[-len(PATCHES):]] == [
        [name, "installed"] for name in PATCHES
    ], log
