"""The faults of ``tests/plugins/api_faulty_devices_coverage.py``: each broken device is caught by exactly
the tests that check its fault, as ``failed`` tests whose messages say what was got and what was
expected, and nothing else in its suite modules fails; the static-only control fails nothing, skips
the dynamic-shape bodies and passes the not-supported one.

One pytest session (``tests/_session.run_devices``) runs every device on the four suite modules,
each device on the modules of its behaviour (:data:`SCOPES`, a ``-k`` expression); REFERENCE passing
the same modules is checked by ``test_suites_reference``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _session import once_per_session, run_devices
from plugins import api_faulty_devices_coverage as faulty
from test_api_faults import assert_fails_exactly, assert_messages_say_got_and_expected
from test_suites_faults import FAIL

from ovconform.suites import _models

SUITES = Path(_models.__file__).resolve().parent
PROPS, ENCRYPTION = "test_infer_request_properties", "test_plugin_cache_encryption"
DYNAMIC, WEIGHTLESS = "test_infer_request_dynamic", "test_compiled_model_weightless"
MODULES = (PROPS, ENCRYPTION, DYNAMIC, WEIGHTLESS)

#: device class -> the -k expression of the tests it runs.
SCOPES: dict[str, str] = {
    "ExclusiveIgnored": PROPS,
    "ExclusiveIgnoredOpaque": PROPS,
    "ExclusiveAlways": PROPS,
    "EncryptionIgnored": ENCRYPTION,
    "DynamicAccepted": DYNAMIC,
    "WeightlessLowPrecisionZeroed": WEIGHTLESS,
    "StaticOnly": DYNAMIC,
    "AcceleratorOpaque": PROPS,
}

#: fault -> patterns (``*`` wildcards, over node ids without the device) of the tests it must fail.
EXPECTED: dict[str, list[str]] = {
    "ExclusiveIgnored": [f"{PROPS}.py::test_can_set_exclusive_async_requests"],
    "ExclusiveIgnoredOpaque": [f"{PROPS}.py::test_can_set_exclusive_async_requests"],
    "ExclusiveAlways": [f"{PROPS}.py::test_reusable_cpu_streams_executor"],
    "EncryptionIgnored": [f"{ENCRYPTION}.py::test_can_import_model_without_exception"],
    "DynamicAccepted": [f"{DYNAMIC}.py::test_infer_dynamic_not_supported[*]"],
    "WeightlessLowPrecisionZeroed": [f"{WEIGHTLESS}.py::test_weightless_cache_accuracy_low_precision[*]"],
}

Records = dict[str, list[dict[str, Any]]]


def _device(name: str) -> str:
    return str(getattr(faulty, name).device_name)


def _run(workdir: Path) -> Records:
    names = [*faulty.FAULTS, *faulty.CONTROLS]
    selection = " or ".join(f"({_device(n)} and ({SCOPES[n]}))" for n in names)
    docs = run_devices(workdir, [f"api_faulty_devices_coverage:{n}" for n in names],
                       *(str(SUITES / f"{m}.py") for m in MODULES), "-p", "no:xdist", "-k", selection,
                       "--ovconform-test-timeout=120", timeout=600)
    return {n: docs[_device(n)]["records"] for n in names}


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Records:
    """``{device class name: records}`` of the one run (once per session, also under xdist)."""
    return dict(once_per_session(tmp_path_factory, "api_fault_coverage_run", _run))


def test_table_covers_every_fault() -> None:
    assert set(EXPECTED) == set(faulty.FAULTS)
    assert set(SCOPES) == set(faulty.FAULTS) | set(faulty.CONTROLS)
    names = [_device(n) for n in SCOPES]
    clashes = [(a, b) for a in names for b in names if a != b and a.lower() in b.lower()]
    assert clashes == [], f"a device name inside another would select the other's tests with -k: {clashes}"


@pytest.mark.parametrize("fault", sorted(faulty.FAULTS))
def test_fault_fails_exactly_its_tests(reports: Records, fault: str) -> None:
    """Exactly the expected tests fail, each as ``failed``."""
    assert_fails_exactly(reports[fault], _device(fault), EXPECTED[fault], f"{fault} ({faulty.FAULTS[fault]})")


@pytest.mark.parametrize("fault", sorted(faulty.FAULTS))
def test_failure_messages_say_got_and_expected(reports: Records, fault: str) -> None:
    assert_messages_say_got_and_expected(reports[fault], _device(fault))


def test_static_only_device_skips_the_dynamic_bodies(reports: Records) -> None:
    """A correct static-only device: nothing fails, the 38 dynamic-shape bodies skip, and the
    not-supported body passes (for both models)."""
    records = reports["StaticOnly"]
    assert [r["nodeid"] for r in records if r["status"] in FAIL] == []
    statuses: dict[str, list[str]] = {}
    for r in records:
        key = "not_supported" if "test_infer_dynamic_not_supported" in r["nodeid"] else "dynamic"
        statuses.setdefault(key, []).append(r["status"])
    assert statuses["not_supported"] == ["passed", "passed"], statuses
    assert len(statuses["dynamic"]) >= 38 and set(statuses["dynamic"]) == {"skipped"}, statuses


def test_an_accelerator_that_runs_one_request_at_a_time_passes_the_timing_judge(reports: Records) -> None:
    """The device ExclusiveIgnoredOpaque breaks, done right: its requests' runs (which wait on the
    device, so overlapping ones would take no longer than one) never overlap, and the timing judge
    of test_can_set_exclusive_async_requests, the only one that can see it, passes it."""
    records = {r["nodeid"].split("::")[1].split("[")[0]: r for r in reports["AcceleratorOpaque"]}
    assert [n for n, r in records.items() if r["status"] in FAIL] == []
    assert records["test_can_set_exclusive_async_requests"]["status"] == "passed"
