"""The faults of ``tests/plugins/api_faulty_devices_redteam.py``: devices a red-team review found
passing every API behaviour test. Each is now caught by exactly the test added for it, as a
``failed`` test whose message says what was got and what was expected, and nothing else in the
suite modules of its fault fails; REFERENCE and the control devices (allowed behaviours) pass
every added test.

One pytest run in a temporary folder (serial, the touched suite modules only): each fault runs
its modules (:data:`SCOPES`) and every added test; REFERENCE and the controls run the added tests
(test_suites_reference runs REFERENCE on everything).
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
from plugins import api_faulty_devices_redteam as faulty
from test_api_faults import _node, assert_fails_exactly, assert_messages_say_got_and_expected
from test_suites_faults import FAIL

from ovconform.suites import _models

PLUGINS = Path(faulty.__file__).resolve().parent
SUITES = Path(_models.__file__).resolve().parent
TIMEOUT_S = 60

CB, PERF, STATE = "test_infer_request_callback", "test_infer_request_perf_counters", "test_infer_request_state"
INFER, CMP, IMPEX = ("test_infer_request_inference", "test_compiled_model_properties",
                     "test_compiled_model_import_export")
#: The suite modules the run gives pytest.
MODULES = (CB, PERF, STATE, INFER, CMP, IMPEX)

#: The tests added for these faults: every device of the run runs all of them.
ADDED = {
    "test_outputs_are_written_before_callback": CB,
    "test_reset_restores_the_initializer": STATE,
    "test_set_state_takes_a_copy": STATE,
    "test_request_reset_state_resets_every_variable": STATE,
    "test_run_is_profiled": PERF,
    "test_results_are_copies": INFER,
    "test_numpy_inputs_are_copied": INFER,
    "test_start_async_writes_the_user_output_tensor": INFER,
    "test_compiled_model_keeps_its_config_when_the_device_changes": CMP,
    "test_import_properties_override_the_blob": IMPEX,
}

#: fault -> the suite modules it runs whole (besides the added tests).
SCOPES: dict[str, str] = {
    "CallbackBeforeOutputs": CB,
    "StateResetToZeros": STATE,
    "SetStateKeepsUserTensor": STATE,
    "RequestResetStateFirstOnly": STATE,
    "ProfilingSyncOnly": PERF,
    "ResultsAliasOutputTensors": INFER,
    "InputsZeroCopyOnStart": INFER,
    "AsyncIgnoresUserOutputTensor": INFER,
    "CompiledFollowsPluginConfig": CMP,
    "ImportBlobConfigWins": IMPEX,
    "ProfilingSharedByRequests": PERF,
}

#: fault -> patterns (``*`` wildcards, over node ids without the device) of the tests it must fail.
EXPECTED: dict[str, list[str]] = {
    "CallbackBeforeOutputs": [f"{CB}.py::test_outputs_are_written_before_callback"],
    "StateResetToZeros": [f"{STATE}.py::test_reset_restores_the_initializer"],
    "SetStateKeepsUserTensor": [f"{STATE}.py::test_set_state_takes_a_copy"],
    "RequestResetStateFirstOnly": [f"{STATE}.py::test_request_reset_state_resets_every_variable"],
    # infer() is profiled: only the start_async run shows the fault
    "ProfilingSyncOnly": [f"{PERF}.py::test_run_is_profiled[start_async]"],
    "ResultsAliasOutputTensors": [f"{INFER}.py::test_results_are_copies[*]"],
    # infer: the next run without inputs reads the overwritten array; start_async: the input tensor is the array
    "InputsZeroCopyOnStart": [f"{INFER}.py::test_numpy_inputs_are_copied[*]"],
    "AsyncIgnoresUserOutputTensor": [f"{INFER}.py::test_start_async_writes_the_user_output_tensor"],
    "CompiledFollowsPluginConfig": [f"{CMP}.py::test_compiled_model_keeps_its_config_when_the_device_changes"],
    "ImportBlobConfigWins": [f"{IMPEX}.py::test_import_properties_override_the_blob"],
}

#: The device classes of the run (REFERENCE is given by its entry-point name).
DEVICES = [*faulty.FAULTS, *faulty.CONTROLS]
#: How many instances of each added test a device runs (the parametrized ones: infer and start_async).
INSTANCES = {"test_run_is_profiled": 2, "test_results_are_copies": 2, "test_numpy_inputs_are_copied": 2}

Records = dict[str, list[dict[str, Any]]]


def _device(name: str) -> str:
    return "REFERENCE" if name == "REFERENCE" else str(getattr(faulty, name).device_name)


def _selection() -> str:
    added = " or ".join(ADDED)
    parts = [f"(REFERENCE and ({added}))"]
    parts += [f"({_device(n)} and ({SCOPES[n]} or {added}))" for n in DEVICES]
    return " or ".join(parts)


def _run(workdir: Path) -> Records:
    reports = workdir / "reports"
    cmd = [sys.executable, "-m", "pytest", *(str(SUITES / f"{m}.py") for m in MODULES), "--plugin=reference",
           *(f"--plugin=api_faulty_devices_redteam:{n}" for n in DEVICES), "-q", "-p", "no:cacheprovider",
           "-p", "no:randomly", "-p", "no:xdist", f"--ovconform-report-dir={reports}", "-k", _selection(),
           f"--ovconform-test-timeout={TIMEOUT_S}"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_CURRENT", "OVCONFORM_"))}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PLUGINS), os.environ.get("PYTHONPATH")]))
    workdir.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True, timeout=600, check=False)
    out: Records = {}
    for name in ["REFERENCE", *DEVICES]:
        path = reports / _device(name) / "conformance.json"
        if not path.exists():
            path = path.with_name("conformance.partial.json")
        assert path.exists(), f"no report for {name}; pytest said:\n{proc.stdout[-3000:]}\n{proc.stderr[-2000:]}"
        out[name] = json.loads(path.read_text())["records"]
    return out


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Records:
    """``{device class name (or REFERENCE): records}`` of the one run (once per session, also under xdist)."""
    return dict(once_per_session(tmp_path_factory, "api_fault_redteam_run", _run))


def _added_results(records: list[dict[str, Any]], device: str) -> dict[str, list[str]]:
    """Each added test's statuses on ``device`` (one per instance)."""
    out: dict[str, list[str]] = {name: [] for name in ADDED}
    for record in records:
        test = _node(record["nodeid"], device).split("::")[-1].split("[")[0]
        if test in out:
            out[test].append(record["status"])
    return out


def test_table_covers_every_fault() -> None:
    assert set(EXPECTED) == set(faulty.FAULTS), sorted(set(EXPECTED) ^ set(faulty.FAULTS))
    assert set(SCOPES) == set(DEVICES), sorted(set(SCOPES) ^ set(DEVICES))
    patterns = {p.split("::")[1].split("[")[0] for ps in EXPECTED.values() for p in ps}
    assert patterns == set(ADDED), f"every added test catches a fault: {sorted(patterns ^ set(ADDED))}"
    names = [_device(n) for n in ["REFERENCE", *DEVICES]]
    clashes = [(a, b) for a in names for b in names if a != b and a.lower() in b.lower()]
    assert clashes == [], f"a device name inside another would select the other's tests with -k: {clashes}"


@pytest.mark.parametrize("fault", sorted(faulty.FAULTS))
def test_fault_fails_exactly_its_tests(reports: Records, fault: str) -> None:
    """Exactly the expected tests fail, each as ``failed``; the device ran every added test."""
    device = _device(fault)
    ran = _added_results(reports[fault], device)
    assert {t: len(s) for t, s in ran.items()} == {t: INSTANCES.get(t, 1) for t in ADDED}, ran
    assert_fails_exactly(reports[fault], device, EXPECTED[fault], f"{fault} ({faulty.FAULTS[fault]})")


@pytest.mark.parametrize("fault", sorted(faulty.FAULTS))
def test_failure_messages_say_got_and_expected(reports: Records, fault: str) -> None:
    assert_messages_say_got_and_expected(reports[fault], _device(fault))


@pytest.mark.parametrize("name", ["REFERENCE", *sorted(faulty.CONTROLS)])
def test_reference_and_controls_pass_the_added_tests(reports: Records, name: str) -> None:
    """REFERENCE passes every added test, and so do the controls (with the rest of their modules)."""
    device = _device(name)
    ran = _added_results(reports[name], device)
    assert ran == {t: ["passed"] * INSTANCES.get(t, 1) for t in ADDED}, ran
    bad = [(r["nodeid"], r["status"], r["message"][:300]) for r in reports[name] if r["status"] in FAIL]
    assert bad == [], f"{name}: {bad}"
