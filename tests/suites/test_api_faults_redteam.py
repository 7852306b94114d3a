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

import pytest
from _added_test_faults import AddedTestFaults, Records
from _session import once_per_session
from plugins import api_faulty_devices_redteam as faulty

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

#: How many instances of each added test a device runs (the parametrized ones: infer and start_async).
INSTANCES = {"test_run_is_profiled": 2, "test_results_are_copies": 2, "test_numpy_inputs_are_copied": 2}

FAULTS = AddedTestFaults(faulty, MODULES, ADDED, SCOPES, EXPECTED, INSTANCES)


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Records:
    """``{device class name (or REFERENCE): records}`` of the one run (once per session, also under xdist)."""
    return dict(once_per_session(tmp_path_factory, "api_fault_redteam_run", FAULTS.run))


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
    """REFERENCE passes every added test, and so do the controls (with the rest of their modules)."""
    FAULTS.check_passes(reports, name)
