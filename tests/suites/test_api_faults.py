"""The API-behaviour faults of issue 21: each deliberately broken device of
``tests/plugins/api_faulty_devices.py`` is caught by exactly the tests that check its fault, as a
``failed`` test, with a message that says what was got and what was expected, and nothing else
fails; the devices the issue names are caught by mandatory tests.

One pytest run (``-n 2``, from a temporary folder, every device at once) tests each device on the
suite modules of its fault (:data:`SCOPES`); the devices of :data:`FULL_SUITE` run every API suite
module but the lifetime one (its child processes are slow; the lifetime faults run it), so for them
"nothing else fails" covers the whole API suite. Only the API modules are given to pytest (the op
and model suites, collected for 27 devices, would cost more than the whole run). REFERENCE is not
run here (test_suites_reference runs it and requires it to fail nothing), so there is no baseline
to subtract: any failure of a device outside its expected tests fails this test.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _session import once_per_session
from plugins import api_faulty_devices as faulty
from test_suites_faults import FAIL, _matches, _strip

from ovconform.suites import _models

#: The folder of the faulty devices, put on the child's PYTHONPATH as itself.
PLUGINS = Path(faulty.__file__).resolve().parent
TIMEOUT_S = 120

PROPS, CMP = "test_plugin_properties", "test_compiled_model_properties"
IMPEX, CACHE, THREADS = "test_compiled_model_import_export", "test_plugin_caching", "test_plugin_threading"
CANCEL, WAIT, REL, CB = ("test_infer_request_cancellation", "test_infer_request_wait",
                         "test_infer_request_reliability", "test_infer_request_callback")
QUERY, LIFE = "test_plugin_query_model", "test_plugin_lifetime"

SUITES = Path(_models.__file__).resolve().parent
#: The API suite modules (every suite module but the op, model and perf ones).
API_MODULES = sorted(p.stem for p in SUITES.glob("test_*.py") if p.stem not in (
    "test_op_conformance", "test_model_conformance", "test_real_models", "test_perf"))
#: Every API suite module but the slow lifetime one.
API = f"not {LIFE}"
#: Faults run on every API module of :data:`API`.
FULL_SUITE = ("CancelNoopNeverBusy", "ConfigCoreWins")

#: fault (or control device) -> the -k expression of the tests it runs.
SCOPES: dict[str, str] = {
    "ConfigCoreWins": API,
    "ConfigLeaksIntoPlugin": f"{PROPS} or {CMP}",
    "ImportDropsConfig": f"{IMPEX} or {CACHE} or {CMP}",
    "OptimalRequestsIgnoreStreams": CMP,
    "PluginStreamsNotUsed": f"{PROPS} or {CMP}",
    "CompiledForgetsUnlistedConfig": f"{CMP} or {PROPS} or {IMPEX} or {CACHE}",
    "DeviceIdIgnoredAtCompile": f"{PROPS} or {QUERY} or {CMP}",
    "SetPropertyLosesUpdates": f"{THREADS} or {PROPS}",
    "CompiledSetPropertyNotApplied": CMP,
    "RemoteContextReturnsNone": "test_plugin_remote or test_plugin_version",
    "CallbackMissesError": f"{REL} or {CB}",
    "WaitSwallowsError": f"{REL} or {CB}",
    "FailedRunSticks": f"{REL} or {CB}",
    "StaleOutputsAfterCancel": f"{CANCEL} or {WAIT}",
    "CancelNoopNeverBusy": API,
    "CancelSticksWhenIdle": f"{CANCEL} or {WAIT}",
    "ImportAcceptsForeignBlob": f"{IMPEX} or {CACHE}",
    "ImportAcceptsNewerFormat": f"{IMPEX} or {CACHE}",
    "ImportReadsIr": f"{IMPEX} or {CACHE}",
    "RequestsShareOutputs": ("test_infer_request_multithreading or test_infer_request_io_tensor or "
                             f"test_infer_request_io_precision or test_infer_request_inference or {THREADS}"),
    "OutputPortsShareMemory": ("test_infer_request_io_precision or test_infer_request_io_tensor or "
                               "test_infer_request_dynamic"),
    "LeaksThreadPerCompile": "test_threads_and_executors_do_not_grow or test_release_orders",
    "LeaksExecutorPerCompile": "test_threads_and_executors_do_not_grow or test_release_orders",
    "ExecutorsSharedByName": f"{THREADS} or test_release_orders",
    "LoadedFromCacheNeverTrue": f"{CACHE} or {CMP} or {IMPEX}",
    "QueryOmitsConvolution": f"{QUERY} or {THREADS}",
    "QueryClaimsHousekeeping": f"{QUERY} or {THREADS}",
    "QueryForgetsFusedNames": f"{QUERY} or {THREADS}",
    "HardwareLacksCapabilities": f"{PROPS} or {QUERY} or test_imported_",
    "HardwareFlagWithoutDeviceType": f"{PROPS} or {QUERY} or test_imported_",
    "SoftwareLacksCapabilities": f"{PROPS} or {QUERY} or test_imported_",
    # the statically mandatory tests (the lifetime ones re-create the device in child processes)
    "RecordsModelOps": f"mandatory and not {LIFE}",
}

CACHE_FLAG_TESTS = [f"{CACHE}.py::test_compare_with_ref_impl[*]", f"{CACHE}.py::test_corrupted_blob_is_replaced",
                    f"{CACHE}.py::test_unicode_cache_dir", f"{CACHE}.py::test_two_equal_models_share_one_blob",
                    f"{CACHE}.py::test_cache_hit_keeps_compile_config", f"{CMP}.py::test_can_use_cache[*]"]

#: fault -> patterns (``*`` wildcards, over node ids without the device) of the tests it must fail.
EXPECTED: dict[str, list[str]] = {
    "ConfigCoreWins": [f"{PROPS}.py::test_compile_config_beats_core_config[*]"],
    # ... and the leaked values are in the next compile's cache key (CACHING_PROPERTIES): a cache miss
    "ConfigLeaksIntoPlugin": [f"{PROPS}.py::test_compile_config_beats_core_config[*]",
                              *(f"{CMP}.py::test_can_use_cache[{p}]" for p in
                                ("EXECUTION_MODE_HINT=PERFORMANCE", "PERFORMANCE_HINT=THROUGHPUT", "PERF_COUNT=YES"))],
    # the import call's own properties are dropped too (PERF_COUNT=True given to import_model reads back NO)
    "ImportDropsConfig": [f"{IMPEX}.py::test_imported_model_keeps_compile_config", f"{CMP}.py::test_can_use_cache[*]",
                          f"{CACHE}.py::test_cache_hit_keeps_compile_config",
                          f"{IMPEX}.py::test_import_properties_override_the_blob"],
    "OptimalRequestsIgnoreStreams": [f"{CMP}.py::test_optimal_number_of_infer_requests_follows_streams[NUM_STREAMS=2]",
                                     f"{CMP}.py::test_optimal_number_of_infer_requests_follows_streams[NUM_STREAMS=3]"],
    "PluginStreamsNotUsed": [f"{PROPS}.py::test_set_supported_rw_property_hardware[NUM_STREAMS=3]"],
    # the compiled model's unlisted values: EXECUTION_MODE_HINT wherever it is read back, and
    # MODEL_PRIORITY (OpenVINO's mandatory MODEL_PRIORITY test reads it unlisted on REFERENCE)
    "CompiledForgetsUnlistedConfig": [
        f"{CMP}.py::test_compile_with_properties_and_check_get_property[EXECUTION_MODE_HINT=PERFORMANCE]",
        f"{CMP}.py::test_can_use_cache[EXECUTION_MODE_HINT=PERFORMANCE]", f"{CMP}.py::test_model_priority[*]",
        f"{IMPEX}.py::test_imported_model_keeps_compile_config", f"{CACHE}.py::test_cache_hit_keeps_compile_config",
        # api2: INFERENCE_PRECISION_HINT is read back from compiled models (unlisted here)
        f"{CACHE}.py::test_plugin_property_change_is_not_served_a_stale_blob",
        f"{PROPS}.py::test_accepted_precision_hint_reaches_the_compiled_model"],
    "DeviceIdIgnoredAtCompile": [f"{PROPS}.py::test_change_device_id_compile_and_get"],
    "SetPropertyLosesUpdates": [f"{THREADS}.py::test_set_property_plugin_exists"],
    "CompiledSetPropertyNotApplied": [f"{CMP}.py::test_set_rw_properties_on_compiled_model"],
    "RemoteContextReturnsNone": ["test_plugin_remote.py::test_remote_context_or_not_implemented"],
    # (test_callback_after_failed_run_gets_no_error: its failed run's callback must get an error)
    "CallbackMissesError": [f"{REL}.py::test_failed_run_reaches_callback_and_wait",
                            f"{REL}.py::test_callback_after_failed_run_gets_no_error"],
    # (test_callback_after_failed_run_gets_no_error checks wait()'s outcome of each run too)
    "WaitSwallowsError": [f"{REL}.py::test_failed_run_reaches_callback_and_wait",
                          f"{REL}.py::test_callback_after_failed_run_gets_no_error"],
    "FailedRunSticks": [f"{REL}.py::test_request_is_reusable_after_failed_run",
                        f"{REL}.py::test_callback_after_failed_run_gets_no_error"],
    "StaleOutputsAfterCancel": [f"{CANCEL}.py::test_can_reset_after_cancel_async_request",
                                f"{CANCEL}.py::test_cancel_stops_a_running_request"],
    "CancelNoopNeverBusy": [
        f"{CANCEL}.py::test_can_cancel_async_request", f"{CANCEL}.py::test_can_reset_after_cancel_async_request",
        f"{CANCEL}.py::test_can_cancel_before_async_request", f"{CANCEL}.py::test_can_cancel_infer_request",
        f"{CANCEL}.py::test_cancel_stops_a_running_request", f"{WAIT}.py::test_tensor_access_during_async_infer[*]",
        f"{WAIT}.py::test_busy_during_run[*]", f"{WAIT}.py::test_busy_during_sync_infer[*]"],
    "CancelSticksWhenIdle": [f"{CANCEL}.py::test_can_cancel_before_async_request",
                             f"{CANCEL}.py::test_can_reset_after_cancel_async_request"],
    "ImportAcceptsForeignBlob": [f"{IMPEX}.py::test_blob_of_another_device_is_refused"],
    "ImportAcceptsNewerFormat": [f"{IMPEX}.py::test_blob_of_a_newer_format_is_refused"],
    "ImportReadsIr": [f"{IMPEX}.py::test_model_ir_is_not_a_blob"],
    "RequestsShareOutputs": ["test_infer_request_multithreading.py::*",
                             "test_infer_request_io_tensor.py::test_requests_and_ports_hold_distinct_buffers",
                             "test_infer_request_inference.py::test_infer_consistency[*]"],
    # two_results, single_split and the dynamic add_two_output_edges have two outputs of one type and shape
    "OutputPortsShareMemory": [
        "test_infer_request_io_precision.py::test_check_tensor_precision[outputs_from_function_with_several_outputs-*]",
        "test_infer_request_io_precision.py::test_check_tensor_precision[outputs_from_split_function_with_several_outputs-*]",
        "test_infer_request_io_tensor.py::test_requests_and_ports_hold_distinct_buffers",
        # the dynamic tests that infer add_two_output_edges into the request's own output tensors
        *(f"test_infer_request_dynamic.py::{t}[*add_two_output_edges]" for t in (
            "test_infer_dynamic_network", "test_infer_with_get_tensor", "test_infer_with_get_tensor_2_times",
            "test_infer_with_local_core", "test_infer_with_set_tensor", "test_set_output_shape_before_infer",
            "test_upper_bound_after_io_tensors_reshaping"))],
    "LeaksThreadPerCompile": [f"{LIFE}.py::test_threads_and_executors_do_not_grow[*]"],
    "LeaksExecutorPerCompile": [f"{LIFE}.py::test_threads_and_executors_do_not_grow[*]"],
    "ExecutorsSharedByName": [f"{THREADS}.py::test_compile_model_with_unload"],
    "LoadedFromCacheNeverTrue": CACHE_FLAG_TESTS,
    "QueryOmitsConvolution": [f"{QUERY}.py::test_query_model_with_kso",
                              f"{QUERY}.py::test_query_model_reports_every_op[conv_pool_relu]",
                              f"{QUERY}.py::test_query_model_reports_every_op[split_conv_concat]"],
    "QueryClaimsHousekeeping": [f"{QUERY}.py::test_query_model_partially_supported"],
    # REFERENCE folds ShapeOf/Convert/Gather/Concat chains into Constants and fuses Relu(Relu(x))
    "QueryForgetsFusedNames": [f"{QUERY}.py::test_query_model_partially_supported",
                               f"{QUERY}.py::test_query_model_with_kso", f"{QUERY}.py::test_query_model_with_matmul",
                               f"{QUERY}.py::test_query_model_reports_every_op[shapeof_matmul]"],
    "HardwareLacksCapabilities": [f"{PROPS}.py::test_optimization_capabilities_values"],
    "HardwareFlagWithoutDeviceType": [f"{PROPS}.py::test_get_supported_ro_property[DEVICE_TYPE]"],
}

#: Faults the issue names as passing every mandatory test before: now a mandatory test catches each,
#: except the thread leak (the growth test is optional: the seed says "should").
CAUGHT_BY_MANDATORY = ("ConfigCoreWins", "ImportDropsConfig", "CancelNoopNeverBusy")

#: The M(HW) tests (functions) whose scope depends on the device being hardware.
HW_TESTS = ("test_get_supported_ro_property[DEVICE_TYPE]", "test_optimization_capabilities_values",
            "test_change_device_id_compile_and_get", "test_available_devices_and_full_names",
            "test_query_model_with_matmul", "test_imported_loaded_tensor")

Records = dict[str, list[dict[str, Any]]]
#: The run: ``{"records": {device class name: records}, "ops": [op types the recorder saw]}``.
Run = dict[str, Any]


def _device(name: str) -> str:
    return str(getattr(faulty, name).device_name)


def _selection() -> str:
    return " or ".join(f"({_device(name)} and ({expr}))" for name, expr in SCOPES.items())


def _run(workdir: Path) -> Run:
    names = [*faulty.FAULTS, *faulty.CONTROLS]
    reports = workdir / "reports"
    modules = [str(SUITES / f"{m}.py") for m in API_MODULES]
    cmd = [sys.executable, "-m", "pytest", *modules, *(f"--plugin=api_faulty_devices:{n}" for n in names), "-q",
           "-p", "no:cacheprovider", "-p", "no:randomly", "-n", "2", f"--ovconform-report-dir={reports}",
           "-k", _selection(), f"--ovconform-test-timeout={TIMEOUT_S}"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_CURRENT"))}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PLUGINS), os.environ.get("PYTHONPATH")]))
    workdir.mkdir(parents=True, exist_ok=True)
    ops = workdir / "ops.txt"
    env[faulty.RECORD_OPS_ENV] = str(ops)
    proc = subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True, timeout=1200, check=False)
    out: Records = {}
    for name in names:
        path = reports / _device(name) / "conformance.json"
        assert path.exists(), f"no report for {name}; pytest said:\n{proc.stdout[-3000:]}\n{proc.stderr[-2000:]}"
        out[name] = json.loads(path.read_text())["records"]
    return {"records": out, "ops": sorted(set(ops.read_text().split())) if ops.exists() else []}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """The one run (once per session, also under xdist)."""
    return once_per_session(tmp_path_factory, "api_fault_run", _run)


@pytest.fixture(scope="module")
def reports(run: Run) -> Records:
    """``{device class name: records}``."""
    return dict(run["records"])


def _node(nodeid: str, device: str) -> str:
    """The node id without the device parameter and without the folders of the module (the run
    names the suite files by path, so node ids start with their path from the rootdir)."""
    path, sep, rest = nodeid.partition("::")
    return _strip(Path(path).name + sep + rest, device)


def _failing(records: list[dict[str, Any]], device: str) -> set[str]:
    return {_node(r["nodeid"], device) for r in records if r["status"] in FAIL}


def assert_fails_exactly(records: list[dict[str, Any]], device: str, patterns: list[str], what: str) -> None:
    """Every pattern matches a test that ran; exactly the tests they match fail, each as ``failed``."""
    __tracebackhide__ = True
    ran = {_node(r["nodeid"], device) for r in records}
    for pattern in patterns:
        assert any(_matches(n, pattern) for n in ran), f"{what}: pattern {pattern!r} matches no test that ran"
    expected = {n for n in ran if any(_matches(n, p) for p in patterns)}
    failing = _failing(records, device)
    assert failing == expected, (f"{what}:\n"
                                 f"  failed but not expected: {sorted(failing - expected)}\n"
                                 f"  expected but did not fail: {sorted(expected - failing)}")
    wrong = sorted((_node(r["nodeid"], device), r["status"]) for r in records
                   if _node(r["nodeid"], device) in expected and r["status"] != "failed")
    assert wrong == [], f"{what}: expected outcome 'failed', got {wrong}"


def test_table_covers_every_fault() -> None:
    assert set(EXPECTED) == set(faulty.FAULTS), sorted(set(EXPECTED) ^ set(faulty.FAULTS))
    assert set(SCOPES) == set(faulty.FAULTS) | set(faulty.CONTROLS)
    assert len(faulty.FAULTS) >= 15 and set(CAUGHT_BY_MANDATORY) | set(FULL_SUITE) <= set(faulty.FAULTS)
    names = [_device(n) for n in SCOPES]
    clashes = [(a, b) for a in names for b in names if a != b and a.lower() in b.lower()]
    assert clashes == [], f"a device name inside another would select the other's tests with -k: {clashes}"


@pytest.mark.parametrize("fault", sorted(faulty.FAULTS))
def test_fault_fails_exactly_its_tests(reports: Records, fault: str) -> None:
    """Exactly the expected tests fail, each as ``failed``."""
    assert_fails_exactly(reports[fault], _device(fault), EXPECTED[fault], f"{fault} ({faulty.FAULTS[fault]})")


def assert_messages_say_got_and_expected(records: list[dict[str, Any]], device: str) -> None:
    """Every failure's message says what was got, what was expected, and which call of ``device``."""
    __tracebackhide__ = True
    for r in records:
        if r["status"] in FAIL:
            message = r["message"]
            assert "but should be" in message and f"[{device}." in message, (
                f"{r['nodeid']}: the message does not say what was got, what was expected and which call: "
                f"{message[:500]!r}")


@pytest.mark.parametrize("fault", sorted(faulty.FAULTS))
def test_failure_messages_say_got_and_expected(reports: Records, fault: str) -> None:
    assert_messages_say_got_and_expected(reports[fault], _device(fault))


@pytest.mark.parametrize("fault", CAUGHT_BY_MANDATORY)
def test_named_faults_fail_a_mandatory_test(reports: Records, fault: str) -> None:
    """The devices issue 21 names as passing every mandatory test now fail mandatory ones."""
    scopes = {r["scope"] for r in reports[fault] if r["status"] in FAIL}
    assert "mandatory" in scopes, f"{fault}: failing scopes {sorted(scopes)}"


@pytest.mark.parametrize("fault", FULL_SUITE)
def test_full_suite_ran_for_some_faults(reports: Records, fault: str) -> None:
    """For these faults the exact-set check covers every API test but the lifetime ones."""
    modules = {_node(r["nodeid"], "").split("::")[0] for r in reports[fault]}
    assert len(reports[fault]) >= 400 and len(modules) >= 20, (len(reports[fault]), sorted(modules))


def test_controls_fail_nothing(reports: Records) -> None:
    for name in faulty.CONTROLS:
        bad = [(r["nodeid"], r["status"]) for r in reports[name] if r["status"] in FAIL]
        assert bad == [], f"{name} ({faulty.CONTROLS[name]}) is not broken, yet: {bad}"


def _scopes(records: list[dict[str, Any]], device: str, test: str) -> set[tuple[str, str]]:
    return {(r["scope"], r["status"]) for r in records if _node(r["nodeid"], device).split("::")[-1] == test}


@pytest.mark.parametrize("test", HW_TESTS)
def test_hardware_scope(reports: Records, test: str) -> None:
    """An M(HW) test is mandatory on a hardware device (declared by DEVICE_TYPE, or by
    ``hardware = True`` without DEVICE_TYPE) and optional on a software one (``hardware = False``),
    where a missing property skips it instead of failing it."""
    for name in ("HardwareLacksCapabilities", "HardwareFlagWithoutDeviceType"):
        scopes = _scopes(reports[name], _device(name), test)
        if test == "test_imported_loaded_tensor" and name == "HardwareLacksCapabilities":
            assert scopes == {("optional", "skipped")}, scopes  # no capabilities listed: the capability skip
            continue
        assert scopes and {s for s, _ in scopes} == {"mandatory"}, (name, test, scopes)
    software = _scopes(reports["SoftwareLacksCapabilities"], _device("SoftwareLacksCapabilities"), test)
    assert software and {s for s, _ in software} == {"optional"}, (test, software)
    if test == "test_optimization_capabilities_values":
        assert software == {("optional", "skipped")}, software


def test_query_failure_names_the_missing_node(reports: Records) -> None:
    """Issue item 10: the message names the op the device left out, and says it left it out."""
    device = _device("QueryOmitsConvolution")
    [record] = [r for r in reports["QueryOmitsConvolution"]
                if _node(r["nodeid"], device).startswith(f"{QUERY}.py::test_query_model_with_kso")]
    assert "missing from the query_model answer" in record["message"], record["message"]
    assert "'conv' (Convolution)" in record["message"] and device in record["message"], record["message"]


def _readme_ops() -> list[str]:
    text = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    block = text.split("<!-- mandatory-api-ops -->", 1)[1].split("<!-- /mandatory-api-ops -->", 1)[0]
    return sorted(re.findall(r"`(\w+)`", block))


def test_readme_lists_the_ops_the_mandatory_suite_needs(run: Run) -> None:
    """Issue item 10: README's list of op types (and ``_models.MANDATORY_API_OPS``) is what a run
    of the mandatory API tests compiles and queries."""
    assert run["ops"], "the recording device saw no model"
    assert _readme_ops() == run["ops"], f"README lists {_readme_ops()}; the mandatory tests use {run['ops']}"
    assert sorted(_models.MANDATORY_API_OPS) == run["ops"]
