"""The core stays pure: no Django, no shell, no clock or randomness outside the simulator."""

import ast
import subprocess
import sys
from pathlib import Path

SCORING = Path(__file__).resolve().parents[2] / "scoring"
FORBIDDEN = {"django", "channels", "parties", "bunco_site"}


def imported_modules(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module


def test_nothing_under_scoring_imports_django_or_the_shell():
    offenders = [
        f"{path.name}: {name}"
        for path in sorted(SCORING.rglob("*.py"))
        for name in imported_modules(path)
        if name.split(".")[0] in FORBIDDEN
    ]
    assert offenders == []


def test_only_the_simulator_touches_randomness_or_the_clock():
    offenders = [
        f"{path.name}: {name}"
        for path in sorted(SCORING.rglob("*.py"))
        if path.name != "simulate.py"
        for name in imported_modules(path)
        if name.split(".")[0] in {"random", "time", "datetime", "secrets", "os", "socket"}
    ]
    assert offenders == []


def test_importing_every_scoring_module_loads_no_django():
    modules = sorted(f"scoring.{p.stem}" for p in SCORING.glob("*.py") if p.stem != "__init__")
    code = (
        "import sys\n"
        f"for m in {modules!r}: __import__(m)\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {sorted(FORBIDDEN)!r}))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=SCORING.parent, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
