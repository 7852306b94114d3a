"""The faults of ``tests/plugins/api_faulty_devices_more.py`` (issue 21 item 8): each broken device
is caught by exactly the tests that check its fault, as ``failed`` tests whose messages say what was
got and what was expected, and nothing else in its suite modules fails.

The approach is that of ``test_api_faults.py``: one pytest run in a temporary folder, every device
at once, each device on the suite modules of its fault (:data:`SCOPES`); REFERENCE passing the
same modules is checked by ``test_suites_reference``.
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
from plugins import api_faulty_devices_more as faulty
from test_api_faults import assert_fails_exactly, assert_messages_say_got_and_expected

from ovconform.suites import _models

PLUGINS = Path(faulty.__file__).resolve().parent
SUITES = Path(_models.__file__).resolve().parent
TIMEOUT_S = 120

BATCHED = "test_infer_request_batched_tensors"
WEIGHTLESS, BASE = "test_compiled_model_weightless", "test_compiled_model_base"
CONTEXT, REMOTE = "test_plugin_remote_context", "test_plugin_remote"
#: The suite modules the run gives pytest.
MODULES = (BATCHED, WEIGHTLESS, BASE, CONTEXT, REMOTE)

#: fault -> the -k expression of the tests it runs.
SCOPES: dict[str, str] = {
    "BatchReadsFirstTensor": BATCHED,
    "BatchCountUnchecked": BATCHED,
    "BatchCopiedAtSet": BATCHED,
    "WeightlessExportKeepsWeights": f"{WEIGHTLESS} or {BASE}",
    "WeightsPathIgnored": f"{WEIGHTLESS} or {BASE}",
    "ContextIgnoredAtCompile": f"{CONTEXT} or {REMOTE}",
    "ForeignContextAccepted": f"{CONTEXT} or {REMOTE}",
}

#: The batched tests whose inputs hold different values per item, written after set_tensors.
_WRITTEN_AFTER_SET = [f"{BATCHED}.py::test_set_input_tensors_base", f"{BATCHED}.py::test_set_input_tensors_async",
                      f"{BATCHED}.py::test_set_tensors_by_port", f"{BATCHED}.py::test_set_input_tensors_with_cache",
                      f"{BATCHED}.py::test_set_input_tensors_multiple_infer",
                      f"{BATCHED}.py::test_set_input_tensors_can_infer_dynamic",
                      f"{BATCHED}.py::test_set_input_tensors_non_contiguous",
                      f"{BATCHED}.py::test_set_input_tensors_remote"]

W = f"{WEIGHTLESS}.py"

#: fault -> patterns (``*`` wildcards, over node ids without the device) of the tests it must fail.
EXPECTED: dict[str, list[str]] = {
    "BatchReadsFirstTensor": [*_WRITTEN_AFTER_SET, f"{BATCHED}.py::test_set_input_tensors_correct_all"],
    "BatchCountUnchecked": [f"{BATCHED}.py::test_set_tensors_refused[incorrect_count]"],
    "BatchCopiedAtSet": _WRITTEN_AFTER_SET,
    # a regular blob: smaller-than-weights fails, imports without (or with bad) weights succeed, the
    # weights of the file are not used, and a cached blob loads without WEIGHTS_PATH
    "WeightlessExportKeepsWeights": [
        f"{W}::test_weightless_export_leaves_the_weights_out[*]",
        f"{W}::test_import_from_weightless_blob_needs_its_weights[*]",
        f"{W}::test_import_weightless_blob_with_weights_path[other]", f"{W}::test_compile_from_weightless_blob",
        f"{W}::test_compile_from_cached_weightless_blob_but_no_weights",
        f"{W}::test_use_blob_hint_has_priority_over_cache[model rt_info]",
        f"{BASE}.py::test_weightless_blob_without_weights_is_refused"],
    # every run of a model imported from a weightless blob with its weights file gives input + 0
    "WeightsPathIgnored": [
        f"{W}::test_import_weightless_blob_with_weights_path[*]", f"{W}::test_compile_from_weightless_blob",
        f"{W}::test_compile_from_cached_weightless_blob_use_weight_hint",
        f"{W}::test_compile_from_cached_weightless_blob_no_hint",
        f"{W}::test_use_blob_hint_has_priority_over_cache[model rt_info]",
        f"{W}::test_use_blob_hint_has_priority_over_cache[model path]",
        f"{W}::test_use_blob_hint_which_fails_load_from_cache", f"{W}::test_weightless_cache_accuracy[*]",
        f"{W}::test_weightless_cache_accuracy_low_precision[*]", f"{BASE}.py::test_import_from_weightless_blob"],
    # the default context has no params: the created context's are missing
    "ContextIgnoredAtCompile": [f"{CONTEXT}.py::test_compile_model_with_context[created]"],
    "ForeignContextAccepted": [f"{CONTEXT}.py::test_context_of_another_device_is_refused[*]"],
}

Records = dict[str, list[dict[str, Any]]]


def _device(name: str) -> str:
    return str(getattr(faulty, name).device_name)


def _run(workdir: Path) -> Records:
    names = list(faulty.FAULTS)
    reports = workdir / "reports"
    selection = " or ".join(f"({_device(n)} and ({SCOPES[n]}))" for n in names)
    cmd = [sys.executable, "-m", "pytest", *(str(SUITES / f"{m}.py") for m in MODULES),
           *(f"--plugin=api_faulty_devices_more:{n}" for n in names), "-q", "-p", "no:cacheprovider",
           "-p", "no:randomly", "-p", "no:xdist", f"--ovconform-report-dir={reports}", "-k", selection,
           f"--ovconform-test-timeout={TIMEOUT_S}"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_CURRENT"))}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PLUGINS), os.environ.get("PYTHONPATH")]))
    workdir.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True, timeout=600, check=False)
    out: Records = {}
    for name in names:
        path = reports / _device(name) / "conformance.json"
        assert path.exists(), f"no report for {name}; pytest said:\n{proc.stdout[-3000:]}\n{proc.stderr[-2000:]}"
        out[name] = json.loads(path.read_text())["records"]
    return out


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Records:
    """``{device class name: records}`` of the one run (once per session, also under xdist)."""
    return dict(once_per_session(tmp_path_factory, "api_fault_more_run", _run))


def test_table_covers_every_fault() -> None:
    assert set(EXPECTED) == set(faulty.FAULTS) == set(SCOPES)
    names = [_device(n) for n in faulty.FAULTS]
    clashes = [(a, b) for a in names for b in names if a != b and a.lower() in b.lower()]
    assert clashes == [], f"a device name inside another would select the other's tests with -k: {clashes}"


@pytest.mark.parametrize("fault", sorted(faulty.FAULTS))
def test_fault_fails_exactly_its_tests(reports: Records, fault: str) -> None:
    """Exactly the expected tests fail, each as ``failed``."""
    assert_fails_exactly(reports[fault], _device(fault), EXPECTED[fault], f"{fault} ({faulty.FAULTS[fault]})")


@pytest.mark.parametrize("fault", sorted(faulty.FAULTS))
def test_failure_messages_say_got_and_expected(reports: Records, fault: str) -> None:
    assert_messages_say_got_and_expected(reports[fault], _device(fault))