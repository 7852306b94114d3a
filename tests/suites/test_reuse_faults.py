"""The op suite's reuse (``suites/_reuse.py``) hides no fault from the run: the devices of
``tests/plugins/reuse_faulty_devices.py``, whose compiled models change between uses, fail exactly
the intended tests as ``failed``, and REFERENCE run alongside fails nothing.

One pytest run in a temporary folder (serial, 3 cases per op at quick depth): the op suite on one
op (Abs-1: every sub-entity; the op suite compiles each case once per worker and compares the first
run, so these devices pass it) and the two API modules that compile one model twice and run one
compiled model many times.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _session import once_per_session
from plugins import reuse_faulty_devices as faulty
from test_api_faults import assert_fails_exactly

from ovconform.suites import _models

PLUGINS = Path(faulty.__file__).resolve().parent
SUITES = Path(_models.__file__).resolve().parent
MODULES = ("test_op_conformance", "test_compiled_model_base", "test_infer_request_inference")
SELECT = "not test_op_ or Abs-1"
CONSISTENCY = "test_infer_request_inference.py::test_infer_consistency[*]"
#: runs one compiled model twice and checks the second run's output
COPIED_INPUTS = "test_infer_request_inference.py::test_numpy_inputs_are_copied[*]"

#: fault -> patterns (over node ids without the device) of the tests it must fail.
EXPECTED: dict[str, list[str]] = {
    "RunsLeakIntoCompiled": [CONSISTENCY, COPIED_INPUTS],
    "RecompileReturnsUsed": [CONSISTENCY, COPIED_INPUTS,
                             "test_compiled_model_base.py::test_can_create_two_compiled_models"],
}

Records = dict[str, list[dict[str, Any]]]


def _device(name: str) -> str:
    return str(getattr(faulty, name).device_name)


def _run(workdir: Path) -> Records:
    reports = workdir / "reports"
    cmd = [sys.executable, "-m", "pytest", *(str(SUITES / f"{m}.py") for m in MODULES),
           *(f"--plugin=reuse_faulty_devices:{n}" for n in faulty.FAULTS), "--plugin=reference", "-q",
           "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:xdist", f"--ovconform-report-dir={reports}",
           "-k", SELECT]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_CURRENT"))}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PLUGINS), os.environ.get("PYTHONPATH")]))
    env["OVCONFORM_EXAMPLES"] = "3"
    env["OVCONFORM_DEPTH"] = "quick"
    workdir.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True, timeout=900, check=False)
    out: Records = {}
    for name in [*faulty.FAULTS, "REFERENCE"]:
        device = name if name == "REFERENCE" else _device(name)
        path = reports / device / "conformance.json"
        assert path.exists(), f"no report for {name}; pytest said:\n{proc.stdout[-3000:]}\n{proc.stderr[-2000:]}"
        out[name] = json.loads(path.read_text())["records"]
    return out


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Records:
    return dict(once_per_session(tmp_path_factory, "reuse_fault_run", _run))


def test_table_covers_every_fault() -> None:
    assert set(EXPECTED) == set(faulty.FAULTS)


@pytest.mark.parametrize("fault", sorted(faulty.FAULTS))
def test_fault_fails_exactly_its_tests(reports: Records, fault: str) -> None:
    assert_fails_exactly(reports[fault], _device(fault), EXPECTED[fault], f"{fault} ({faulty.FAULTS[fault]})")


def test_op_suite_ran_every_sub_entity(reports: Records) -> None:
    """The op tests of the faulty devices ran (and passed): the run did not select them away."""
    for fault in faulty.FAULTS:
        op = [r for r in reports[fault] if "test_op_conformance.py::" in r["nodeid"]]
        kinds = {r["nodeid"].split("::")[1].split("[")[0] for r in op}
        assert kinds == {"test_op_implemented", "test_op_query_model", "test_op_inference",
                         "test_op_import_export"}, (fault, kinds)
        assert {r["status"] for r in op} == {"passed"}, (fault, sorted({r["status"] for r in op}))


def test_reference_fails_nothing(reports: Records) -> None:
    bad = sorted(r["nodeid"] for r in reports["REFERENCE"] if r["status"] in ("failed", "error", "crashed", "hanged"))
    assert bad == [] and reports["REFERENCE"], bad
