"""wait / wait_for and busy requests (``ov_infer_request`` entity): OpenVINO's ``ov_infer_request/wait.cpp``.

* OVInferRequestWaitTests — M: an asynchronous run with get_tensor before and after, waited with
  wait() or polled with wait_for(0); waiting without a start; set_tensor / get_tensor during a run
  raise BusyError while the run is certainly unfinished, may work later, and nothing else;
  wait_for with a negative timeout throws.
* Beyond OpenVINO (–, optional; the contract documents these): calls that need an idle request
  raise BusyError during a run, asynchronous or a synchronous infer() on another thread;
  wait_for(0) returns at once while a run is unfinished; wait_for(t) returns False after about
  t ms while unfinished and True once finished.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from ovconform import Tensor
from ovconform import properties as P
from ovconform.assertions import (
    assert_equal,
    assert_outputs_close,
    assert_raises_ov_error,
    assert_that,
    call,
    fail,
    no_error,
)
from ovconform.errors import BusyError, OVConformError
from ovconform.suites import _models
from ovconform.suites._helpers import (
    LONG_RUN_TOLERANCE,
    PATIENCE_S,
    RunWindow,
    blocked_run,
    long_run_expected,
    long_run_inputs,
    long_run_request,
    start_infer_in_thread,
    wait_in_thread,
)

pytestmark = pytest.mark.entity("ov_infer_request")

POLL_LIMIT_S = 5.0


@pytest.fixture
def relu_request(ov_core: Any, ov_device_name: str) -> Any:
    model = _models.build("relu")
    with no_error(call(ov_device_name, "compile_model+create_infer_request", model.friendly_name)):
        return ov_core.compile_model(model, ov_device_name).create_infer_request()


def _fill_and_expect(request: Any, device: str) -> np.ndarray:
    with no_error(call(device, "InferRequest.get_tensor", "data")):
        tensor = request.get_tensor("data")
    tensor.data[...] = np.random.default_rng(8).standard_normal(tensor.shape).astype(np.float32)
    return np.maximum(tensor.data, np.float32(0))


@pytest.mark.mandatory
def test_async_infer_with_get_in_out_and_wait(relu_request: Any, ov_device_name: str) -> None:
    """OVInferRequestWaitTests.CorrectOneAsyncInferWithGetInOutWithInfWait."""
    want = _fill_and_expect(relu_request, ov_device_name)
    where = call(ov_device_name, "InferRequest.start_async+wait")
    with no_error(where):
        relu_request.start_async()
        relu_request.wait()
        got = relu_request.get_tensor("relu").data
    assert_outputs_close(got, want, "output", where)


@pytest.mark.mandatory
def test_async_infer_with_status_only_wait(relu_request: Any, ov_device_name: str) -> None:
    """OVInferRequestWaitTests.canstart_asyncInferWithGetInOutWithStatusOnlyWait: poll wait_for(0)."""
    want = _fill_and_expect(relu_request, ov_device_name)
    where = call(ov_device_name, "InferRequest.wait_for", 0) + " polled after start_async"
    with no_error(where):
        relu_request.start_async()
        deadline = time.monotonic() + POLL_LIMIT_S
        while not relu_request.wait_for(0):
            if time.monotonic() > deadline:
                fail("wait_for(0)", f"False for {POLL_LIMIT_S} s", "True once the run ends", where)
            time.sleep(0.001)
        got = relu_request.get_tensor("relu").data
    assert_outputs_close(got, want, "output", where)


@pytest.mark.mandatory
def test_can_wait_without_start_async(relu_request: Any, ov_device_name: str) -> None:
    """OVInferRequestWaitTests.canWaitWithotStartSsync: nothing to wait for, so no error and True."""
    where = call(ov_device_name, "InferRequest.wait/wait_for") + " on a request never started"
    with no_error(where):
        relu_request.wait()
        results = (relu_request.wait_for(0), relu_request.wait_for(1))
    assert_equal(results, (True, True), "(wait_for(0), wait_for(1))", where)


def _works_or_busy(fn: Callable[[], Any], where: str) -> None:
    __tracebackhide__ = True
    try:
        fn()
    except BusyError:
        return
    except Exception as e:  # noqa: BLE001 - anything but BusyError is the failure
        fail("error", f"{type(e).__name__}: {e}", "success or BusyError", where)


#: Attempts of the tensor-access test, and how many calls that certainly met an unfinished run
#: must have worked before it fails (a correct device is only ever unlucky once or twice).
ACCESS_ATTEMPTS, ACCESS_CERTAIN_FAILURES = 5, 3


def _access(request: Any, what: str, fresh: Any) -> Any:
    return request.set_tensor("data", fresh) if what == "set_tensor" else request.get_tensor("out")


@pytest.mark.mandatory
@pytest.mark.parametrize("what", ["set_tensor", "get_tensor"])
def test_tensor_access_during_async_infer(ov_core: Any, ov_device_name: str, what: str) -> None:
    """OVInferRequestWaitTests.throwExceptionOnSetTensorAfterAsyncInfer / ...GetTensorAfterAsyncInfer.

    OpenVINO's body accepts a call that works or raises ov::Busy (and nothing else), so a request
    that never reports Busy passes it; its IAsyncInferRequest base, like ovconform's contract,
    refuses every such call while a run is under way. Here the run is
    :func:`~ovconform.suites._models.long_run_model`'s, and a call made within half the shortest
    run after start_async (:class:`RunWindow`) certainly met it unfinished: it must raise
    BusyError. A later call may work. Either way the run's outputs are right (those of its own
    inputs, or, after a set_tensor that worked, possibly the new tensor's), a set tensor is the
    one the request holds afterwards and feeds the next run, and a tensor got during the run is
    the request's output tensor. The test fails when at least 3 of 5 calls certainly met the run
    unfinished and worked."""
    request = long_run_request(ov_core, ov_device_name)
    inputs = long_run_inputs(0)
    window = RunWindow(request, inputs)
    where = call(ov_device_name, f"InferRequest.{what}") + " right after start_async"
    certain = tried = 0
    offsets: list[float] = []
    for _ in range(ACCESS_ATTEMPTS):
        fresh = Tensor(long_run_inputs(1)["data"].copy())
        window.start()
        with no_error(call(ov_device_name, "InferRequest.start_async")):
            request.start_async(inputs)
        window.call()
        try:
            got = _access(request, what, fresh)
            worked = True
        except BusyError:
            got, worked = None, False  # refused: nothing was got (and nothing below reads it)
        except Exception as e:  # noqa: BLE001 - anything but BusyError is the failure
            request.wait()
            fail("error", f"{type(e).__name__}: {e}", "success or BusyError", where)
        unfinished = window.certainly_unfinished()
        with no_error(call(ov_device_name, "InferRequest.wait")):
            request.wait()
            output = request.get_tensor("out").data
        if not worked:
            assert_outputs_close(output, long_run_expected(0), "output of the run", where, **LONG_RUN_TOLERANCE)
            return
        tried, certain = tried + 1, certain + unfinished
        offsets += [window.offset] if unfinished else []
        _check_access_that_worked(request, what, fresh, got, output, where)
    if certain >= ACCESS_CERTAIN_FAILURES:  # measured again: a busy moment may have made runs look longer
        with no_error(call(ov_device_name, "InferRequest.infer") + " (measuring a run again)"):
            window.remeasure()
        certain = window.still_certain(offsets)
    if certain >= ACCESS_CERTAIN_FAILURES:
        fail("outcome", f"worked in {certain} of {tried} calls made within {window.shortest * 500:.2f} ms of "
             "start_async (half the shortest run)", "BusyError while the run is unfinished", where)


def _check_access_that_worked(request: Any, what: str, fresh: Any, got: Any, output: Any, where: str) -> None:
    __tracebackhide__ = True
    if what == "get_tensor":
        assert_that(np.shares_memory(got.data, output), "tensor got during the run", "another buffer",
                    "the request's output tensor", where)
        assert_outputs_close(output, long_run_expected(0), "output of the run", where, **LONG_RUN_TOLERANCE)
        return
    ok = any(np.allclose(output, long_run_expected(seed), **LONG_RUN_TOLERANCE) for seed in (0, 1))
    assert_that(ok, "output of the run", "neither its own inputs' nor the new tensor's result",
                "the result of its inputs (or of the tensor set during the run)", where)
    with no_error(where + "; get_tensor('data') after wait()"):
        held = request.get_tensor("data")
    assert_that(np.shares_memory(held.data, fresh.data), "input tensor after wait()", "another buffer",
                "the tensor set during the run", where)
    with no_error(where + "; infer() after wait()"):
        request.infer()
        output = request.get_tensor("out").data
    assert_outputs_close(output, long_run_expected(1), "output of the next run (the tensor set during the run)",
                         where, **LONG_RUN_TOLERANCE)


@pytest.mark.mandatory
def test_negative_timeout_for_wait_throws(relu_request: Any, ov_device_name: str) -> None:
    """OVInferRequestWaitTests.FailedAsyncInferWithNegativeTimeForWait."""
    with no_error(call(ov_device_name, "InferRequest.start_async")):
        relu_request.start_async()
    try:
        assert_raises_ov_error(OVConformError, relu_request.wait_for, -1,
                               call=call(ov_device_name, "InferRequest.wait_for", -1))
    finally:
        relu_request.wait()


BUSY_CALLS: dict[str, Callable[[Any, dict[str, Any], Any], Any]] = {
    "set_tensor": lambda r, i, fresh: r.set_tensor("data", fresh),
    "get_tensor": lambda r, i, fresh: r.get_tensor("out"),
    "infer": lambda r, i, fresh: r.infer(i),
    "start_async": lambda r, i, fresh: r.start_async(i),
    "query_state": lambda r, i, fresh: r.query_state(),
    "get_profiling_info": lambda r, i, fresh: r.get_profiling_info(),
}


def _busy_request(core: Any, device: str, depth: int = 100) -> tuple[Any, dict[str, Any]]:
    """A request of :func:`_models.slow_model` of ``depth`` compiled with PERF_COUNT on (so that
    get_profiling_info is answered once the request is idle) and inputs for it."""
    model, config = _models.slow_model(depth), {P.PERF_COUNT: True}
    with no_error(call(device, "compile_model", model.friendly_name, config)):
        request = core.compile_model(model, device, config).create_infer_request()
    return request, _models.make_inputs(model)


ATTEMPTS = 5


@pytest.mark.parametrize("what", sorted(BUSY_CALLS))
def test_busy_during_run(ov_core: Any, ov_device_name: str, what: str) -> None:
    """(–) a call that needs an idle request, made right after start_async while the run is
    unfinished, raises BusyError. A call that succeeded is a failure only when it certainly met
    the run unfinished (:class:`RunWindow`: it was made within half the shortest synchronous
    run); an inconclusive attempt is repeated, and the test is skipped after 5 of them.
    (get_profiling_info too: OpenVINO CPU refuses it with "Infer Request is busy" during a run; a
    device that answers reads counters the run is still writing.)"""
    request, inputs = _busy_request(ov_core, ov_device_name)
    window = RunWindow(request, inputs)
    fresh = Tensor(inputs["data"].copy())
    where = call(ov_device_name, f"InferRequest.{what}") + " right after start_async"
    for _attempt in range(ATTEMPTS):
        window.start()
        with no_error(call(ov_device_name, "InferRequest.start_async")):
            request.start_async(inputs)
        window.call()
        try:
            BUSY_CALLS[what](request, inputs, fresh)
        except BusyError:
            request.wait()
            return
        except Exception as e:  # noqa: BLE001 - anything but BusyError is the failure
            request.wait()
            fail("error", f"{type(e).__name__}: {e}", "BusyError", where)
        unfinished = window.certainly_unfinished()
        with no_error(call(ov_device_name, "InferRequest.wait")):
            request.wait()
        if unfinished:  # measured again: a busy moment may have made runs look longer than they are
            offset = window.offset
            with no_error(call(ov_device_name, "InferRequest.infer") + " (measuring a run again)"):
                window.remeasure()
            if window.still_certain([offset]):
                fail("error", "none (the call succeeded while the run was unfinished)", "BusyError", where)
    pytest.skip(f"inconclusive: each of {ATTEMPTS} calls came later than half the shortest run "
                f"({window.shortest * 1000:.2f} ms) after start_async")


def test_wait_for_zero_does_not_block(relu_request: Any, ov_device_name: str) -> None:
    """(–) wait_for(0) on an unfinished run returns False at once (well under a second)."""
    where = call(ov_device_name, "InferRequest.wait_for", 0) + " on an unfinished run"
    with blocked_run(relu_request, ov_device_name):
        start = time.monotonic()
        ready = wait_in_thread(lambda: relu_request.wait_for(0), 1.0, where)
        elapsed = time.monotonic() - start
    assert_equal(ready, False, "wait_for(0)", where)
    assert_that(elapsed < 0.5, "wait_for(0) duration (s)", round(elapsed, 3), "< 0.5", where)


#: wait_for(50) calls of test_wait_for_timeout_while_unfinished, and the bound on the quickest of them.
WAIT_FOR_CALLS, WAIT_FOR_LIMIT_S = 3, 0.5


def test_wait_for_timeout_while_unfinished(relu_request: Any, ov_device_name: str) -> None:
    """(–) wait_for(50) on an unfinished run returns False after about 50 ms: each of
    :data:`WAIT_FOR_CALLS` calls takes at least 40 ms and under 2 s, and the quickest under
    :data:`WAIT_FOR_LIMIT_S` (ten times the timeout: a loaded machine may hold up one call, not
    all three; a device that waits in whole seconds takes 1 s every time)."""
    where = call(ov_device_name, "InferRequest.wait_for", 50) + " on an unfinished run"
    took: list[float] = []
    with blocked_run(relu_request, ov_device_name):
        for _ in range(WAIT_FOR_CALLS):
            start = time.monotonic()
            ready = wait_in_thread(lambda: relu_request.wait_for(50), 5.0, where)
            took.append(round(time.monotonic() - start, 3))
            assert_equal(ready, False, "wait_for(50)", where)
    assert_that(all(0.04 <= t < 2.0 for t in took), "wait_for(50) durations (s)", took, "each about 0.05", where)
    assert_that(min(took) < WAIT_FOR_LIMIT_S, "wait_for(50) durations (s)", took,
                f"the quickest under {WAIT_FOR_LIMIT_S} (about 0.05)", where)


def test_wait_for_true_once_finished(relu_request: Any, ov_device_name: str) -> None:
    """(–) after wait(), wait_for(0) and wait_for(100) are True at once."""
    where = call(ov_device_name, "InferRequest.wait_for") + " after wait()"
    with no_error(where):
        relu_request.start_async()
        relu_request.wait()
        results = (relu_request.wait_for(0), relu_request.wait_for(100))
    assert_equal(results, (True, True), "(wait_for(0), wait_for(100))", where)


#: Calls a test makes during a synchronous infer() on another thread, and how many that certainly
#: met the run unfinished must have worked before it fails.
DURING_INFER_ATTEMPTS, DURING_INFER_CERTAIN_FAILURES = 5, 2
#: Depth of the slow model of test_busy_during_sync_infer: three times the default, as the calling
#: thread gets the GIL back from the inferring one only after some milliseconds on a loaded machine
#: (calls came 20 ms after infer() began, against 40 ms runs).
DURING_INFER_DEPTH = 300
#: How long the calling thread pauses after infer() was called on the other thread (seconds).
INFER_BEGIN_S = 0.002


def _during_infer(request: Any, device: str, inputs: dict[str, Any], window: RunWindow, fn: Callable[[], Any],
                  where: str) -> tuple[bool, bool]:
    """infer() on a helper thread; ``fn()`` from this one once infer() has begun. Returns (whether
    ``fn`` was refused with BusyError, whether it certainly met the run unfinished)."""
    __tracebackhide__ = True
    thread, outcome = start_infer_in_thread(request, inputs, window)
    # let infer() begin (it marks the request busy microseconds after `started`, holding the GIL); a
    # fixed short pause, not a share of the measured run, which a loaded machine makes look longer
    time.sleep(min(window.shortest / 8, INFER_BEGIN_S))
    window.call()
    try:
        fn()
        refused = False
    except BusyError:
        refused = True
    except Exception as e:  # noqa: BLE001 - anything but BusyError is the failure
        thread.join(PATIENCE_S)
        fail("error", f"{type(e).__name__}: {e}", "BusyError (or success once infer() has returned)", where)
    unfinished = window.certainly_unfinished()
    thread.join(PATIENCE_S)
    if thread.is_alive():
        fail("infer()", f"still running after {PATIENCE_S} s", "returned", where)
    with no_error(call(device, "InferRequest.wait") + " after the call"):
        request.wait()
    error = outcome.get("error")
    if error is not None and refused:
        fail("infer() on the other thread", f"{type(error).__name__}: {error}", "completed", where)
    return refused, unfinished


@pytest.mark.parametrize("what", sorted(BUSY_CALLS))
def test_busy_during_sync_infer(ov_core: Any, ov_device_name: str, what: str) -> None:
    """(–) while a synchronous infer() runs on one thread, a call from another thread that needs
    an idle request (start_async, infer, set_tensor, get_tensor, query_state, get_profiling_info)
    raises BusyError, as it does during an asynchronous run (OpenVINO CPU: "Infer Request is busy"
    for each). A request that infer() leaves idle lets a second run or a new tensor race on the
    buffers of the one in progress. A call that worked is a failure only when it certainly met
    the run unfinished (:class:`RunWindow`), at least :data:`DURING_INFER_CERTAIN_FAILURES` times
    (measured again before failing); skipped when no call was certain."""
    request, inputs = _busy_request(ov_core, ov_device_name, DURING_INFER_DEPTH)
    window = RunWindow(request, inputs)
    fresh = Tensor(inputs["data"].copy())
    where = call(ov_device_name, f"InferRequest.{what}") + " from another thread during infer()"
    offsets: list[float] = []
    for _ in range(DURING_INFER_ATTEMPTS):
        refused, unfinished = _during_infer(request, ov_device_name, inputs, window,
                                            lambda: BUSY_CALLS[what](request, inputs, fresh), where)
        if refused:
            return
        offsets += [window.offset] if unfinished else []
    if len(offsets) >= DURING_INFER_CERTAIN_FAILURES:
        with no_error(call(ov_device_name, "InferRequest.infer") + " (measuring a run again)"):
            window.remeasure()
        certain = window.still_certain(offsets)
        if certain >= DURING_INFER_CERTAIN_FAILURES:
            fail("error", f"none: the call worked in {certain} of {DURING_INFER_ATTEMPTS} attempts made within "
                 f"{window.shortest * 500:.2f} ms of infer()'s start (half the shortest run)", "BusyError", where)
    pytest.skip(f"inconclusive: fewer than {DURING_INFER_CERTAIN_FAILURES} calls came within half the shortest "
                f"run ({window.shortest * 1000:.2f} ms) after infer() began")
