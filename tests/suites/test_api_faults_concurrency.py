"""The faults of ``tests/plugins/api_faulty_devices_concurrency.py``: devices a third red-team
review (concurrency, streams and async) found passing every API behaviour test. Each is now
caught by exactly the tests added for it, as ``failed`` tests whose messages say what was got and
what was expected, and nothing else in the suite modules of its fault fails; REFERENCE passes
every added test.

One pytest run in a temporary folder (serial, the touched suite modules only): each fault runs
its module (:data:`SCOPES`) and every added test; REFERENCE runs the added tests
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
from plugins import api_faulty_devices_concurrency as faulty
from test_api_faults import _node, assert_fails_exactly, assert_messages_say_got_and_expected
from test_suites_faults import FAIL

from ovconform.suites import _models

PLUGINS = Path(faulty.__file__).resolve().parent
SUITES = Path(_models.__file__).resolve().parent
TIMEOUT_S = 60

THREADS, CANCEL, CALLBACK = "test_infer_request_multithreading", "test_infer_request_cancellation", \
    "test_infer_request_callback"
WAIT, RELIABILITY = "test_infer_request_wait", "test_infer_request_reliability"
#: The suite modules the run gives pytest.
MODULES = (THREADS, CANCEL, CALLBACK, WAIT, RELIABILITY)

#: The tests added (or extended) for these faults: every device of the run runs all of them.
ADDED = {
    "test_sync_requests_with_stateful_kernels_from_threads": THREADS,
    "test_async_requests_with_stateful_kernels_throughput": THREADS,
    "test_cancelled_run_calls_its_callback": CANCEL,
    "test_cancel_leaves_other_requests_running": CANCEL,
    "test_busy_during_sync_infer": WAIT,
    "test_busy_during_run": WAIT,
    "test_wait_for_timeout_while_unfinished": WAIT,
    "test_callbacks_are_per_request": CALLBACK,
    "test_callbacks_still_called_after_a_callback_raised": CALLBACK,
    "test_callback_after_failed_run_gets_no_error": RELIABILITY,
}

#: fault -> the suite module it runs whole (besides the added tests).
SCOPES: dict[str, str] = {
    "ConvWorkspaceShared": THREADS,
    "CancelSkipsCallback": CANCEL,
    "CancelAbortsWholeQueue": CANCEL,
    "SyncInferNotBusy": WAIT,
    "WaitForWholeSeconds": WAIT,
    "CallbackPerCompiledModel": CALLBACK,
    "ProfilingReadableMidRun": WAIT,
    "CallbackErrorSticks": RELIABILITY,
    "CallbackRaiseKillsDispatcher": CALLBACK,
}

#: fault -> patterns (``*`` wildcards, over node ids without the device) of the tests it must fail.
EXPECTED: dict[str, list[str]] = {
    "ConvWorkspaceShared": [f"{THREADS}.py::test_sync_requests_with_stateful_kernels_from_threads",
                            f"{THREADS}.py::test_async_requests_with_stateful_kernels_throughput"],
    "CancelSkipsCallback": [f"{CANCEL}.py::test_cancelled_run_calls_its_callback"],
    "CancelAbortsWholeQueue": [f"{CANCEL}.py::test_cancel_leaves_other_requests_running"],
    # a request infer() leaves idle takes every call that needs an idle request
    "SyncInferNotBusy": [f"{WAIT}.py::test_busy_during_sync_infer[*]"],
    "WaitForWholeSeconds": [f"{WAIT}.py::test_wait_for_timeout_while_unfinished"],
    # the second request's set_callback replaces the first's in the raised-callback test too
    "CallbackPerCompiledModel": [f"{CALLBACK}.py::test_callbacks_are_per_request",
                                 f"{CALLBACK}.py::test_callbacks_still_called_after_a_callback_raised"],
    "ProfilingReadableMidRun": [f"{WAIT}.py::test_busy_during_run[get_profiling_info]",
                                f"{WAIT}.py::test_busy_during_sync_infer[get_profiling_info]"],
    "CallbackErrorSticks": [f"{RELIABILITY}.py::test_callback_after_failed_run_gets_no_error"],
    "CallbackRaiseKillsDispatcher": [f"{CALLBACK}.py::test_callbacks_still_called_after_a_callback_raised"],
}

#: The device classes of the run (REFERENCE is given by its entry-point name).
DEVICES = list(faulty.FAULTS)
#: How many instances of each added test a device runs (the parametrized ones).
INSTANCES = {"test_busy_during_sync_infer": 6, "test_busy_during_run": 6}

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
           *(f"--plugin=api_faulty_devices_concurrency:{n}" for n in DEVICES), "-q", "-p", "no:cacheprovider",
           "-p", "no:randomly", "-p", "no:xdist", f"--ovconform-report-dir={reports}", "-k", _selection(),
           f"--ovconform-test-timeout={TIMEOUT_S}"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_CURRENT", "OVCONFORM_"))}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PLUGINS), os.environ.get("PYTHONPATH")]))
    workdir.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True, timeout=900, check=False)
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
    return dict(once_per_session(tmp_path_factory, "api_fault_concurrency_run", _run))


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


def test_reference_passes_the_added_tests(reports: Records) -> None:
    """REFERENCE passes every added test."""
    ran = _added_results(reports["REFERENCE"], "REFERENCE")
    assert ran == {t: ["passed"] * INSTANCES.get(t, 1) for t in ADDED}, ran
    bad = [(r["nodeid"], r["status"], r["message"][:300]) for r in reports["REFERENCE"] if r["status"] in FAIL]
    assert bad == [], f"REFERENCE: {bad}"
