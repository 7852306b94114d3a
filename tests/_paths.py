"""Where the tests find the repository, the tests folder and the test devices (one place, so a test
file can move between subfolders without rewriting ``Path(__file__).parents[N]``)."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
PLUGINS = TESTS / "plugins"
