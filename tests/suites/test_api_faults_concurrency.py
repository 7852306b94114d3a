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

import pytest
from _added_test_faults import AddedTestFaults, Records
from _session import once_per_session
from plugins import api_faulty_devices_concurrency as faulty

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

#: How many instances of each added test a device runs (the parametrized ones).
INSTANCES = {"test_busy_during_sync_infer": 6, "test_busy_during_run": 6}

FAULTS = AddedTestFaults(faulty, MODULES, ADDED, SCOPES, EXPECTED, INSTANCES, run_timeout_s=900)


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Records:
    """``{device class name (or REFERENCE): records}`` of the one run (once per session, also under xdist)."""
    return dict(once_per_session(tmp_path_factory, "api_fault_concurrency_run", FAULTS.run))


def test_table_covers_every_fault() -> None:
    FAULTS.check_tables()


@pytest.mark.parametrize("fault", sorted(faulty.FAULTS))
def test_fault_fails_exactly_its_tests(reports: Records, fault: str) -> None:
    """Exactly the expected tests fail, each as ``failed``; the device ran every added test."""
    FAULTS.check_fault(reports, fault)


@pytest.mark.parametrize("fault", sorted(faulty.FAULTS))
def test_failure_messages_say_got_and_expected(reports: Records, fault: str) -> None:
    FAULTS.check_messages(reports, fault)


def test_reference_passes_the_added_tests(reports: Records) -> None:
    """REFERENCE passes every added test."""
    FAULTS.check_passes(reports, "REFERENCE")
