"""The op suite's stored-type Convert stimulus (``Convert-1-stored-<type>``) catches devices that
read a storage type's bits wrongly (``tests/plugins/element_type_faults.py``), exactly on the
case of that type; REFERENCE passes every stored-type case.

One pytest run (``-n 2``, from a temporary folder, the installed suites, standard depth).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _session import by_test, once_per_session, run_devices

from ovconform.ir import STORAGE_TYPES, Type

#: tests/plugins (its modules import each other by their top-level names, so they are not imported here)
STORED = [t.name for t in STORAGE_TYPES if t != Type.string]
#: fault class -> (its device name, the stored-type case it must fail)
FAULTS = {"I4ReadAsU4": ("ETF_I4U4", "i4"), "F8E4M3ReadAsE5M2": ("ETF_E4AS5", "f8e4m3")}
EXPECTED_FAIL = dict(FAULTS.values())


def _run(workdir: Path) -> dict[str, dict[str, dict[str, Any]]]:
    specs = ["reference", *[f"element_type_faults:{name}" for name in FAULTS]]
    docs = run_devices(workdir, specs, "-n", "2", "-k", "test_op_inference and [Convert-1-stored-",
                       "--ovconform-depth", "standard", timeout=600)
    return {name: by_test(doc) for name, doc in docs.items()}

@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, dict[str, Any]]]:
    return once_per_session(tmp_path_factory, "storage_type_fault_runs", _run)


def _status(runs: dict[str, Any], device: str, stored: str) -> str:
    test_id = f"test_op_inference[Convert-1-stored-{stored}-{device}]"
    assert test_id in runs[device], f"{test_id} did not run; ran {sorted(runs[device])}"
    return str(runs[device][test_id]["status"])


def test_reference_passes_every_stored_type(runs: dict[str, Any]) -> None:
    assert {t: _status(runs, "REFERENCE", t) for t in STORED} == dict.fromkeys(STORED, "passed")


@pytest.mark.parametrize("device", sorted(EXPECTED_FAIL))
def test_fault_fails_only_its_type(runs: dict[str, Any], device: str) -> None:
    got = {t: _status(runs, device, t) for t in STORED}
    want = {t: "failed" if t == EXPECTED_FAIL[device] else "passed" for t in STORED}
    assert got == want
