"""The README's "Where things live" names only files and folders that exist (a move that forgets
the README fails here)."""

from __future__ import annotations

import re

from _paths import REPO

BASES = (REPO, REPO / "ovconform", REPO / "reference_plugin", REPO / "tests")


def _section() -> str:
    text = (REPO / "README.md").read_text()
    start = text.index("## Where things live")
    return text[start:text.index("\n## ", start + 1)]


def test_where_things_live_names_real_paths():
    section = _section()
    named = set(re.findall(r"`([A-Za-z_./<>-]+/[A-Za-z_./<>-]*)`", section))
    assert len(named) > 20, named
    missing = []
    for path in sorted(named):
        if "<" in path or "..." in path:  # patterns such as ops/op_<name>.py
            continue
        if "*" in path:
            continue
        # a short folder name in prose (``contract/``, ``fast/``) is under one of the top folders
        if not any((base / path).exists() for base in BASES):
            missing.append(path)
    assert not missing, f"README 'Where things live' names paths that do not exist: {missing}"


def test_where_things_live_files_named_inside_a_folder_row_exist():
    """``reference_plugin/`` ... ``ops/op_<name>.py``: the short names in the folder table are checked
    relative to the folder of their row."""
    missing = []
    for line in _section().splitlines():
        m = re.match(r"\| `([a-z_/]+/)`(?:, `([a-z_/]+/)`)? \| (.*) \|$", line)
        if not m:
            continue
        folders = [REPO / f for f in m.groups()[:2] if f]
        for name in re.findall(r"`([a-z_]+\.py)`", m.group(3)):
            if not any((folder / name).exists() or list(folder.rglob(name)) for folder in folders):
                missing.append(f"{m.group(1)}{name}")
    assert not missing, f"README 'Where things live' names files that do not exist: {missing}"
