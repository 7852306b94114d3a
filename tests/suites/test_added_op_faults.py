"""The op suite catches the broken devices of ``tests/plugins/added_op_faults.py`` (Reverse-1, Xor-1
and ErfInv-17, the ops added for issue #22).

One pytest run (from a temporary folder, the installed suites, ``-k`` on the tests of those ops, 10
generated cases per op) tests REFERENCE and each broken device. Each fault fails
``test_op_inference`` of its own op with status "failed" ("declared supported but failed") and
nothing else; REFERENCE passes every test of the three ops.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _session import by_test, once_per_session, run_devices
from plugins import added_op_faults as faults

FAIL = ("failed", "error", "crashed", "hanged")
#: fault class -> the op it breaks
OPS = {"ReverseMaskAsIndices": "Reverse-1", "ReverseRepeatedAxisTwice": "Reverse-1", "XorComputesOr": "Xor-1",
       "ErfInvNaNAtOne": "ErfInv-17"}
#: the op suite's tests of those ops (``[Xor-1-`` does not match ``[LogicalXor-1-``)
SELECT = " or ".join(f"[{op}-" for op in sorted(set(OPS.values())))


def _run(workdir: Path) -> dict[str, dict[str, dict[str, Any]]]:
    specs = ["reference", *[f"added_op_faults:{name}" for name in faults.FAULTS]]
    docs = run_devices(workdir, specs, "-p", "no:xdist", "-k", SELECT, "--ovconform-depth", "quick",
                       "--ovconform-examples", "10", timeout=600)
    return {name: by_test(doc) for name, doc in docs.items()}

@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, dict[str, Any]]]:
    return once_per_session(tmp_path_factory, "added_op_fault_runs", _run)


def test_reference_passes_every_added_op(runs: dict[str, Any]) -> None:
    records = runs["REFERENCE"]
    for op in sorted(set(OPS.values())):
        mine = {k: r for k, r in records.items() if f"[{op}-" in k}
        assert len(mine) >= 10 and all(r["status"] == "passed" for r in mine.values()), op


@pytest.mark.parametrize("fault", sorted(OPS))
def test_each_fault_fails_its_op_only(runs: dict[str, Any], fault: str) -> None:
    device = getattr(faults, fault).device_name
    failed = {k: r for k, r in runs[device].items() if r["status"] in FAIL}
    assert failed, f"{fault} passed every test"
    for test_id, record in failed.items():
        assert test_id.startswith(f"test_op_inference[{OPS[fault]}-case"), test_id
        assert record["status"] == "failed"
        assert record["message"].startswith(f"Failed: declared supported but failed: {OPS[fault]}")
