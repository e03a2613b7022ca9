"""Lets tests/scoring run with or without pytest-django: scoring needs only the repo on the path."""

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[2])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
