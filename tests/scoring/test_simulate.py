"""The simulator: one deterministic JSON document for every preset and player count."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scoring import PRIZE_CATEGORIES
from scoring.simulate import simulate

ROOT = Path(__file__).resolve().parents[2]


def run(*args):
    result = subprocess.run(
        [sys.executable, "-m", "scoring.simulate", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout


def test_the_same_arguments_print_the_same_document():
    args = ("--players", "11", "--preset", "standard", "--sets", "1", "--seed", "7")
    first = run(*args)
    assert first == run(*args)
    assert first != run("--players", "11", "--preset", "standard", "--sets", "1", "--seed", "8")
    document = json.loads(first)
    assert set(document) == {"rounds", "players", "prizes"}


@pytest.mark.parametrize("preset", ["standard", "wba", "quick", "short", "boxed4", "tournament"])
@pytest.mark.parametrize("players", [4, 8, 11, 12, 16, 23])
def test_every_preset_plays_for_every_player_count(preset, players):
    document = simulate(players, preset, None, seed=players)
    sets = {"wba": 4, "quick": 1}.get(preset, 2)
    assert len(document["rounds"]) == 6 * sets
    first = document["rounds"][0]
    assert (first["set"], first["round"], first["target"]) == (1, 1, 1)
    assert document["rounds"][-1]["target"] == 6
    ids = [f"P{i}" for i in range(1, players + 1)]
    real = [p for p, e in document["players"].items() if not e["ghost"]]
    assert real == ids
    ghosts = [p for p, e in document["players"].items() if e["ghost"]]
    individual = preset == "tournament"
    assert len(ghosts) == (0 if individual else -players % 4)
    for entry in document["rounds"]:
        seated = [p for t in entry["tables"] for p in t["seats"]]
        assert sorted(seated) == sorted(ids + ghosts)
        for t in entry["tables"]:
            assert len(t["team_points"]) == (len(t["seats"]) if individual else 2)
            assert 0 <= t["winner"] < len(t["team_points"])
            if not t["rolloff"]:
                assert t["team_points"][t["winner"]] == max(t["team_points"])
    assert set(document["prizes"]) == set(PRIZE_CATEGORIES)
    for winners in document["prizes"].values():
        assert set(winners) <= set(ids)
    total_points = sum(e["points"] for e in document["players"].values())
    table_points = sum(sum(t["team_points"]) for r in document["rounds"] for t in r["tables"])
    assert total_points == table_points


def test_sets_on_the_command_line_override_the_preset():
    document = json.loads(run("--players", "4", "--preset", "wba", "--sets", "1", "--seed", "1"))
    assert len(document["rounds"]) == 6
