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


# -- op-suite fault runs: a module of broken devices, each wrong in one op ------------------------------
#: the statuses of a test a device fails
FAILING = ("failed", "error", "crashed", "hanged")


def op_fault_runs(workdir: Path, module: str, faults: list[str], ops: list[str],
                  timeout: float = 900) -> dict[str, dict[str, dict[str, Any]]]:
    """The op suite (quick depth, 10 cases an op version), limited to the tests of ``ops`` (``"Xor-1"``:
    ``[Xor-1-`` does not match ``[LogicalXor-1-``), run once on REFERENCE and on each class ``faults``
    of ``tests/plugins/<module>.py``: each device's records by test."""
    select = " or ".join(f"[{op}-" for op in sorted(set(ops)))
    specs = ["reference", *[f"{module}:{name}" for name in faults]]
    docs = run_devices(workdir, specs, "-p", "no:xdist", "-k", select, "--ovconform-depth", "quick",
                       "--ovconform-examples", "10", timeout=timeout)
    return {name: by_test(doc) for name, doc in docs.items()}


def assert_passes_every_test_of(records: dict[str, dict[str, Any]], ops: list[str], least: int = 10) -> None:
    """At least ``least`` tests of each op of ``ops`` ran, and all passed."""
    for op in ops:
        mine = {k: r for k, r in records.items() if f"[{op}-" in k}
        bad = [(k, r["status"]) for k, r in mine.items() if r["status"] != "passed"]
        assert len(mine) >= least and not bad, (op, len(mine), bad[:3])


def assert_fails_only_its_ops(records: dict[str, dict[str, Any]], fault: str, ops: list[str],
                              inference_only: bool = True) -> None:
    """``fault``'s device fails an inference test of every op of ``ops`` and nothing else: each failure is
    a test of one of them (its inference only, with ``inference_only``), status failed, saying the op."""
    failed = {k: r for k, r in records.items() if r["status"] in FAILING}
    for op in ops:
        assert any(k.startswith(f"test_op_inference[{op}-") for k in failed), f"{fault} passed every {op} test"
    for test_id, record in failed.items():
        mine = [op for op in ops if (test_id.startswith(f"test_op_inference[{op}-") if inference_only
                                     else f"[{op}-" in test_id)]
        assert mine, f"{fault} failed {test_id}, not a test of {ops}"
        assert record["status"] == "failed", (test_id, record["status"])
        assert record["message"].startswith(f"Failed: declared supported but failed: {mine[0]}"), record["message"]


# -- stimulus-fault runs: the Inference tests of one op version, by case label ----------------------------
def op_version_key(op_version: str) -> tuple[str, int]:
    """``("Gather", 7)`` of ``"Gather-7"``."""
    op, _, version = op_version.rpartition("-")
    return op, int(version)


def case_statuses(records: dict[str, Any], device: str, op_version: str) -> dict[str, str]:
    """``label -> status`` of the Inference tests of ``op_version`` (``"Gather-7"``) in a device's records."""
    out = {}
    for test_id, r in records.items():
        key = test_id.partition("[")[2].removesuffix("]").removesuffix(f"-{device}")
        if key.startswith(f"{op_version}-"):
            out[key.removeprefix(f"{op_version}-")] = r["status"]
    return out
