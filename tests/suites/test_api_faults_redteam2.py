"""The faults of ``tests/plugins/api_faulty_devices_redteam2.py``: devices a second red-team
review (api2) found passing every API behaviour test. Each is now caught by exactly the tests
added for it, as ``failed`` tests whose messages say what was got and what was expected, and
nothing else in the suite modules of its fault fails; REFERENCE and the control device (allowed
behaviour) pass every added test.

One pytest run in a temporary folder (serial, the touched suite modules only): each fault runs
its module (:data:`SCOPES`) and every added test; REFERENCE and the control run the added tests
(test_suites_reference runs REFERENCE on everything).
"""

from __future__ import annotations

import pytest
from _added_test_faults import AddedTestFaults, Records
from _session import once_per_session
from plugins import api_faulty_devices_redteam2 as faulty

CACHE, INFER, PROPS = "test_plugin_caching", "test_infer_request_inference", "test_plugin_properties"
REMOTE, RUNTIME = "test_plugin_remote_context", "test_compiled_model_runtime_model"
#: The suite modules the run gives pytest.
MODULES = (CACHE, INFER, PROPS, REMOTE, RUNTIME)

#: The tests added for these faults: every device of the run runs all of them.
ADDED = {
    "test_same_topology_other_constants": CACHE,
    "test_plugin_property_change_is_not_served_a_stale_blob": CACHE,
    "test_cached_blob_serves_its_own_device_id": CACHE,
    "test_static_input_refuses_another_shape_of_the_same_size": INFER,
    "test_non_contiguous_input_array": INFER,
    "test_input_array_of_another_type_is_converted_or_refused": INFER,
    "test_compile_model_refuses_an_invalid_value": PROPS,
    "test_rw_property_takes_each_allowed_value": PROPS,
    "test_accepted_precision_hint_reaches_the_compiled_model": PROPS,
    "test_remote_tensor_of_another_device_is_refused": REMOTE,
    "test_runtime_precision_follows_the_hint": RUNTIME,
}

#: fault -> the suite module it runs whole (besides the added tests).
SCOPES: dict[str, str] = {
    "ImportProgramCacheByTopology": CACHE,
    "StaleCachingProperties": CACHE,
    "CachingIgnoresDeviceId": CACHE,
    "CachingKeysDeviceId": CACHE,
    "StaticShapeByElementCount": INFER,
    "StridesIgnoredOnInput": INFER,
    "InputArrayBytesReinterpreted": INFER,
    "RemoteTensorOfAnyContext": REMOTE,
    "CompileConfigLenient": PROPS,
    "PluginModelPriorityFrozen": PROPS,
    "PrecisionHintAnyType": PROPS,
    "RuntimePrecisionIgnoresHint": RUNTIME,
}

#: fault -> patterns (``*`` wildcards, over node ids without the device) of the tests it must fail.
EXPECTED: dict[str, list[str]] = {
    "ImportProgramCacheByTopology": [f"{CACHE}.py::test_same_topology_other_constants"],
    "StaleCachingProperties": [f"{CACHE}.py::test_plugin_property_change_is_not_served_a_stale_blob"],
    "CachingIgnoresDeviceId": [f"{CACHE}.py::test_cached_blob_serves_its_own_device_id"],
    # infer({0: array}) of another shape is refused by the request's own shape check; its element-count
    # shortcut skips every other check of set_tensor too, so a foreign remote tensor is taken as well
    "StaticShapeByElementCount": [f"{INFER}.py::test_static_input_refuses_another_shape_of_the_same_size[set_tensor]",
                                  f"{REMOTE}.py::test_remote_tensor_of_another_device_is_refused[*]"],
    # a slice with a step is copied by ravel(order="K") in its logical order: only the transposed view shows it
    "StridesIgnoredOnInput": [f"{INFER}.py::test_non_contiguous_input_array[transposed]"],
    "InputArrayBytesReinterpreted": [f"{INFER}.py::test_input_array_of_another_type_is_converted_or_refused"],
    "RemoteTensorOfAnyContext": [f"{REMOTE}.py::test_remote_tensor_of_another_device_is_refused[*]"],
    "CompileConfigLenient": [f"{PROPS}.py::test_compile_model_refuses_an_invalid_value[*]"],
    "PluginModelPriorityFrozen": [f"{PROPS}.py::test_rw_property_takes_each_allowed_value[MODEL_PRIORITY]"],
    "PrecisionHintAnyType": [f"{PROPS}.py::test_accepted_precision_hint_reaches_the_compiled_model"],
    "RuntimePrecisionIgnoresHint": [f"{RUNTIME}.py::test_runtime_precision_follows_the_hint"],
}

#: How many instances of each added test a device runs (the parametrized ones).
INSTANCES = {"test_static_input_refuses_another_shape_of_the_same_size": 2, "test_non_contiguous_input_array": 2,
             "test_compile_model_refuses_an_invalid_value": 3, "test_rw_property_takes_each_allowed_value": 4,
             "test_remote_tensor_of_another_device_is_refused": 2}
#: Added tests REFERENCE skips: it has one device id.
REFERENCE_SKIPS = frozenset({"test_cached_blob_serves_its_own_device_id"})

FAULTS = AddedTestFaults(faulty, MODULES, ADDED, SCOPES, EXPECTED, INSTANCES, reference_skips=REFERENCE_SKIPS)


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Records:
    """``{device class name (or REFERENCE): records}`` of the one run (once per session, also under xdist)."""
    return dict(once_per_session(tmp_path_factory, "api_fault_redteam2_run", FAULTS.run))


def test_table_covers_every_fault() -> None:
    FAULTS.check_tables()


@pytest.mark.parametrize("fault", sorted(faulty.FAULTS))
def test_fault_fails_exactly_its_tests(reports: Records, fault: str) -> None:
    """Exactly the expected tests fail, each as ``failed``; the device ran every added test."""
    FAULTS.check_fault(reports, fault)


@pytest.mark.parametrize("fault", sorted(faulty.FAULTS))
def test_failure_messages_say_got_and_expected(reports: Records, fault: str) -> None:
    FAULTS.check_messages(reports, fault)


@pytest.mark.parametrize("name", ["REFERENCE", *sorted(faulty.CONTROLS)])
def test_reference_and_controls_pass_the_added_tests(reports: Records, name: str) -> None:
    """REFERENCE passes every added test (but the one that needs two device ids, which it skips),
    and so do the controls (with the rest of their modules)."""
    FAULTS.check_passes(reports, name)
