"""Shared by the tests that run whole pytest sessions in subprocesses."""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


def once_per_session(factory: pytest.TempPathFactory, name: str, compute: Callable[[Path], Any]) -> Any:
    """``compute(folder)`` once per session, even under xdist: workers share the JSON-able result
    through a file next to their temporary folders, behind a file lock."""
    root = factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    result = root / f"{name}.json"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not result.exists():
            folder = root / name
            folder.mkdir(exist_ok=True)
            result.write_text(json.dumps(compute(folder)))
        return json.loads(result.read_text())
