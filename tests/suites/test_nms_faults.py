"""The op suite catches the broken devices of ``tests/plugins/nms_faults.py`` (MatrixNms-8,
MulticlassNms-8/9 and NMSRotated-13, added for issue #22).

One pytest run (from a temporary folder, the installed suites, ``-k`` on the tests of those ops, 10
generated cases per op) tests REFERENCE and each broken device. Each fault fails
``test_op_inference`` of its own op (every version it breaks) with status "failed" ("declared
supported but failed") and nothing else; REFERENCE passes every test of the four op versions.
"""

from __future__ import annotations

from typing import Any

import pytest
from _session import assert_fails_only_its_ops, assert_passes_every_test_of, once_per_session, op_fault_runs
from plugins import nms_faults as faults

#: fault class -> the op versions it breaks (each must be caught)
OPS = {"MatrixNmsGaussianAsLinear": ["MatrixNms-8"],
       "MulticlassNmsKeepsBackground": ["MulticlassNms-8", "MulticlassNms-9"],
       "NMSRotatedAngleDirectionReversed": ["NMSRotated-13"]}
ALL = sorted({op for ops in OPS.values() for op in ops})


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, dict[str, Any]]]:
    return once_per_session(tmp_path_factory, "nms_fault_runs",
                            lambda d: op_fault_runs(d, "nms_faults", list(faults.FAULTS), ALL, timeout=600))


def test_reference_passes_every_nms_op(runs: dict[str, Any]) -> None:
    assert_passes_every_test_of(runs["REFERENCE"], ALL)


@pytest.mark.parametrize("fault", sorted(OPS))
def test_each_fault_fails_its_op_only(runs: dict[str, Any], fault: str) -> None:
    assert_fails_only_its_ops(runs[getattr(faults, fault).device_name], fault, OPS[fault])
