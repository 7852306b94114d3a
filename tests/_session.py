"""Shared by the tests that run whole pytest sessions in subprocesses."""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from _paths import TESTS


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


def subprocess_env(*pythonpath: str | os.PathLike[str]) -> dict[str, str]:
    """This process's environment for a child pytest: without the xdist/pytest variables of the
    test running it, with ``pythonpath`` put first on ``PYTHONPATH``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_CURRENT"))}
    env["PYTHONPATH"] = os.pathsep.join([*map(str, pythonpath), *filter(None, [env.get("PYTHONPATH")])])
    return env


def fake_device_module(device_name: str, class_name: str = "Dev") -> str:
    """The source of a ``--plugin=file.py`` module registering one ``FakePlugin`` (tests/plugins)
    under ``device_name``."""
    return f"""
import sys
sys.path.insert(0, {str(TESTS)!r})
import ovconform
from plugins.fake_device import FakePlugin

class {class_name}(FakePlugin):
    device_name = {device_name!r}

@ovconform.hookimpl
def ovconform_register_devices(registry):
    registry.add({class_name})
"""


def run_devices(workdir: Path, specs: list[str], *args: str, timeout: float = 900) -> dict[str, dict[str, Any]]:
    """Run the installed suites once on every ``--plugin`` of ``specs`` (with ``tests/plugins`` on
    the path, no OVCONFORM_ variables, no cache or random order) plus ``args``; the conformance
    document each device wrote (``conformance.json``, or ``conformance.partial.json`` beside a full
    one), by device name. Fails, with pytest's output, unless every device wrote one."""
    import subprocess
    import sys

    cmd = [sys.executable, "-m", "pytest", *[f"--plugin={s}" for s in specs], "-q", "-p", "no:cacheprovider",
           "-p", "no:randomly", *args]
    env = {k: v for k, v in subprocess_env(TESTS / "plugins").items() if not k.startswith("OVCONFORM_")}
    workdir.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    docs: dict[str, dict[str, Any]] = {}
    for report in sorted((workdir / "reports").glob("*/conformance*.json")):
        doc = json.loads(report.read_text())
        docs[doc["device"]["name"] if isinstance(doc["device"], dict) else doc["device"]] = doc
    assert len(docs) == len(specs), f"reports for {sorted(docs)}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return docs


def by_test(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """A document's records by the test's name and parameters (the node id after its last ``::``)."""
    return {r["nodeid"].split("::")[-1]: r for r in doc["records"]}
