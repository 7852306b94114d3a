"""The op suite catches the broken devices of ``tests/plugins/nms_faults.py`` (MatrixNms-8,
MulticlassNms-8/9 and NMSRotated-13, added for issue #22).

One pytest run (from a temporary folder, the installed suites, ``-k`` on the tests of those ops, 10
generated cases per op) tests REFERENCE and each broken device. Each fault fails
``test_op_inference`` of its own op (every version it breaks) with status "failed" ("declared
supported but failed") and nothing else; REFERENCE passes every test of the four op versions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _session import by_test, once_per_session, run_devices
from plugins import nms_faults as faults

FAIL = ("failed", "error", "crashed", "hanged")
#: fault class -> the op versions it breaks (each must be caught)
OPS = {"MatrixNmsGaussianAsLinear": ("MatrixNms-8",),
       "MulticlassNmsKeepsBackground": ("MulticlassNms-8", "MulticlassNms-9"),
       "NMSRotatedAngleDirectionReversed": ("NMSRotated-13",)}
ALL = sorted({op for ops in OPS.values() for op in ops})
#: the op suite's tests of those ops
SELECT = " or ".join(f"[{op}-" for op in ALL)


def _run(workdir: Path) -> dict[str, dict[str, dict[str, Any]]]:
    specs = ["reference", *[f"nms_faults:{name}" for name in faults.FAULTS]]
    docs = run_devices(workdir, specs, "-p", "no:xdist", "-k", SELECT, "--ovconform-depth", "quick",
                       "--ovconform-examples", "10", timeout=600)
    return {name: by_test(doc) for name, doc in docs.items()}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, dict[str, Any]]]:
    return once_per_session(tmp_path_factory, "nms_fault_runs", _run)


def test_reference_passes_every_nms_op(runs: dict[str, Any]) -> None:
    records = runs["REFERENCE"]
    for op in ALL:
        mine = {k: r for k, r in records.items() if f"[{op}-" in k}
        assert len(mine) >= 10 and all(r["status"] == "passed" for r in mine.values()), op


@pytest.mark.parametrize("fault", sorted(OPS))
def test_each_fault_fails_its_op_only(runs: dict[str, Any], fault: str) -> None:
    device = getattr(faults, fault).device_name
    failed = {k: r for k, r in runs[device].items() if r["status"] in FAIL}
    for op in OPS[fault]:
        assert any(k.startswith(f"test_op_inference[{op}-case") for k in failed), f"{fault} passed every {op} test"
    for test_id, record in failed.items():
        assert any(test_id.startswith(f"test_op_inference[{op}-case") for op in OPS[fault]), test_id
        assert record["status"] == "failed"
        assert record["message"].startswith("Failed: declared supported but failed: ")
        assert any(f"failed: {op}" in record["message"] for op in OPS[fault]), record["message"]
