"""wait / wait_for and busy requests (``ov_infer_request`` entity): OpenVINO's ``ov_infer_request/wait.cpp``.

* OVInferRequestWaitTests — M: an asynchronous run with get_tensor before and after, waited with
  wait() or polled with wait_for(0); waiting without a start; set_tensor / get_tensor during a run
  either work or raise BusyError (nothing else); wait_for with a negative timeout throws.
* Beyond OpenVINO (–, optional; the contract documents these): calls that need an idle request
  raise BusyError during a run; wait_for(0) returns at once while a run is unfinished;
  wait_for(t) returns False after about t ms while unfinished and True once finished.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from ovconform import Tensor
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
from ovconform.suites._helpers import RunWindow, blocked_run, slow_request, wait_in_thread

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


@pytest.mark.mandatory
@pytest.mark.parametrize("what", ["set_tensor", "get_tensor"])
def test_tensor_access_during_async_infer(ov_core: Any, ov_device_name: str, what: str) -> None:
    """OVInferRequestWaitTests.throwExceptionOnSetTensorAfterAsyncInfer / ...GetTensorAfterAsyncInfer."""
    request, inputs = slow_request(ov_core, ov_device_name)
    fresh = Tensor(inputs["data"].copy())
    where = call(ov_device_name, f"InferRequest.{what}") + " during an asynchronous run"
    with no_error(call(ov_device_name, "InferRequest.start_async")):
        request.start_async(inputs)
    try:
        _works_or_busy((lambda: request.set_tensor("data", fresh)) if what == "set_tensor"
                       else (lambda: request.get_tensor("out")), where)
    finally:
        request.wait()


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
}
ATTEMPTS = 5


@pytest.mark.parametrize("what", sorted(BUSY_CALLS))
def test_busy_during_run(ov_core: Any, ov_device_name: str, what: str) -> None:
    """(–) a call that needs an idle request, made right after start_async while the run is
    unfinished, raises BusyError. A call that succeeded is a failure only when it certainly met
    the run unfinished (:class:`RunWindow`: it was made within half the shortest synchronous
    run); an inconclusive attempt is repeated, and the test is skipped after 5 of them."""
    request, inputs = slow_request(ov_core, ov_device_name)
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
        if unfinished:
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


def test_wait_for_timeout_while_unfinished(relu_request: Any, ov_device_name: str) -> None:
    """(–) wait_for(50) on an unfinished run returns False after about 50 ms."""
    where = call(ov_device_name, "InferRequest.wait_for", 50) + " on an unfinished run"
    with blocked_run(relu_request, ov_device_name):
        start = time.monotonic()
        ready = wait_in_thread(lambda: relu_request.wait_for(50), 5.0, where)
        elapsed = time.monotonic() - start
    assert_equal(ready, False, "wait_for(50)", where)
    assert_that(0.04 <= elapsed < 2.0, "wait_for(50) duration (s)", round(elapsed, 3), "about 0.05", where)


def test_wait_for_true_once_finished(relu_request: Any, ov_device_name: str) -> None:
    """(–) after wait(), wait_for(0) and wait_for(100) are True at once."""
    where = call(ov_device_name, "InferRequest.wait_for") + " after wait()"
    with no_error(where):
        relu_request.start_async()
        relu_request.wait()
        results = (relu_request.wait_for(0), relu_request.wait_for(100))
    assert_equal(results, (True, True), "(wait_for(0), wait_for(100))", where)
