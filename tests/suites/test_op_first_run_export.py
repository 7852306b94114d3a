"""The op suite's first run (``suites/_reuse.py``) exports only for a case with an ImportExport
test, and that hides no fault: ``ExportBreaksCompiled`` (``tests/plugins/export_faulty_devices.py``:
inferences after ``export_model`` are off by one) fails exactly the generated cases' Inference and
ImportExport as ``failed``, and passes the stimulus cases' Inference, which at standard depth run on a
compiled model that was never exported. REFERENCE, run alongside, fails nothing.

One serial pytest run in a temporary folder: the op suite on one op (Abs-1) at standard depth with
3 generated cases.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _session import once_per_session, run_devices
from plugins import export_faulty_devices as faulty
from test_api_faults import assert_fails_exactly

from ovconform.suites import _models
from ovconform.suites import _op_runner as R
from ovconform.suites.test_op_conformance import STIMULUS_AT_STANDARD, CaseId, has_import_export

SUITES = Path(_models.__file__).resolve().parent
OP = "Abs-1"
FAULT = "ExportBreaksCompiled"

Records = dict[str, list[dict[str, Any]]]


def _run(workdir: Path) -> Records:
    docs = run_devices(workdir, [f"export_faulty_devices:{FAULT}", "reference"], str(SUITES / "test_op_conformance.py"),
                       "-p", "no:xdist", "-k", OP, "--ovconform-depth", "standard", "--ovconform-examples", "3")
    return {FAULT: docs[faulty.ExportBreaksCompiled.device_name]["records"], "REFERENCE": docs["REFERENCE"]["records"]}


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Records:
    return dict(once_per_session(tmp_path_factory, "op_first_run_export", _run))


def _generated(records: list[dict[str, Any]], test: str) -> list[str]:
    return [r["nodeid"] for r in records if f"::{test}[{OP}-case" in r["nodeid"]]


def test_the_fault_fails_the_generated_cases_and_not_the_stimulus(reports: Records) -> None:
    records = reports[FAULT]
    device = faulty.ExportBreaksCompiled.device_name
    assert_fails_exactly(records, device, [f"test_op_conformance.py::test_op_inference[{OP}-case*]",
                                           f"test_op_conformance.py::test_op_import_export[{OP}-case*]"],
                         f"{FAULT} ({faulty.FAULTS[FAULT]})")
    stimulus = [r for r in records if r["facts"].get("stimulus")]
    assert len(stimulus) >= 10 and {r["status"] for r in stimulus} == {"passed"}, \
        sorted((r["nodeid"], r["status"]) for r in stimulus if r["status"] != "passed")
    assert {r["nodeid"].split("::")[1].split("[")[0] for r in stimulus} == set(STIMULUS_AT_STANDARD)
    assert len(_generated(records, "test_op_import_export")) == 3
    assert len(_generated(records, "test_op_inference")) == 3


def test_reference_fails_nothing(reports: Records) -> None:
    bad = sorted(r["nodeid"] for r in reports["REFERENCE"] if r["status"] != "passed")
    assert reports["REFERENCE"] and bad == [], bad


class _Config:
    def __init__(self, depth: str) -> None:
        self.depth = depth

    def getoption(self, name: str, default: Any = None) -> Any:
        return self.depth if name == "ovconform_depth" else default


@pytest.mark.parametrize(("label", "depth", "exports"), [("case3", "quick", True), ("case3", "standard", True),
                                                          ("rem7", "standard", False), ("rem7", "exhaustive", True)])
def test_which_first_runs_export(label: str, depth: str, exports: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OVCONFORM_DEPTH", raising=False)
    config: Any = _Config(depth)
    assert R.op_depth(config).name.lower() == depth
    assert has_import_export(config, CaseId("Abs", 1, label, 10, 0)) is exports
