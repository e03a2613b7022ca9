"""bench/ measures the server as production runs it: started by the launcher, with the patches
(a commit from before the launcher, benchmarked with --app-ref, installed them on import)."""

from pathlib import Path

from bench.live import launcher

ROOT = Path(__file__).resolve().parents[2]


def test_the_bench_starts_this_tree_through_the_launcher_and_an_older_one_through_daphne(tmp_path):
    assert launcher(ROOT) == "bunco_site.serve"
    (tmp_path / "bunco_site").mkdir()
    (tmp_path / "bunco_site" / "asgi.py").write_text("")
    assert launcher(tmp_path) == "daphne"
