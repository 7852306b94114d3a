"""Completion callbacks (``ov_infer_request`` entity): OpenVINO's ``ov_infer_request/callback.cpp``.

* OVInferRequestCallbackTests — M: the callback fires once with no error after start_async and
  not after infer(); re-arming start_async from inside the callback 10 times, then dropping the
  request, is safe; an exception raised by the callback surfaces from wait(); wait_for(0)
  returns False while the request runs; the callback object itself is called (not a copy).
* Beyond OpenVINO (–, optional): exactly one call per run over several runs; the Python API's
  ``set_callback(fn, userdata)`` form; the run's outputs are written before its callback is
  called (the Python API's asynchronous pattern reads them inside the callback); each request of
  a compiled model calls its own callback with its own userdata; a callback that raised does not
  stop later callbacks of the compiled model's requests.

"While the request runs" is made deterministic with a callback that blocks: the contract says a
request stays busy until its callback has run.
"""

from __future__ import annotations

import gc
import threading
import time
from typing import Any

import pytest

from ovconform.assertions import assert_equal, assert_raises_ov_error, assert_that, call, fail, no_error
from ovconform.errors import OVConformError
from ovconform.suites import _models
from ovconform.suites._helpers import blocked_run, check_outputs, run_and_check, wait_in_thread

pytestmark = pytest.mark.entity("ov_infer_request")

SETTLE_S = 0.05  # a late second call would land within this


@pytest.fixture
def infer_request(ov_core: Any, ov_device_name: str) -> Any:
    model = _models.build("conv_pool_relu")
    with no_error(call(ov_device_name, "compile_model+create_infer_request", model.friendly_name)):
        return ov_core.compile_model(model, ov_device_name).create_infer_request()


def _start_and_wait(request: Any, device: str) -> None:
    with no_error(call(device, "InferRequest.start_async+wait")):
        request.start_async(_models.make_inputs(_models.build("conv_pool_relu")))
        request.wait()


@pytest.mark.mandatory
def test_can_call_async_with_completion_callback(infer_request: Any, ov_device_name: str) -> None:
    """OVInferRequestCallbackTests.canCallAsyncWithCompletionCallback: called once, with no error."""
    calls: list[Any] = []
    infer_request.set_callback(calls.append)
    _start_and_wait(infer_request, ov_device_name)
    time.sleep(SETTLE_S)
    assert_equal(calls, [None], "callback calls (their error argument)",
                 call(ov_device_name, "InferRequest.start_async") + " then wait()")


@pytest.mark.mandatory
def test_sync_infer_does_not_call_completion_callback(infer_request: Any, ov_device_name: str) -> None:
    """OVInferRequestCallbackTests.syncInferDoesNotCallCompletionCallback."""
    calls: list[Any] = []
    infer_request.set_callback(calls.append)
    run_and_check(infer_request, ov_device_name, "conv_pool_relu")
    time.sleep(SETTLE_S)
    assert_equal(calls, [], "callback calls", call(ov_device_name, "InferRequest.infer"))


@pytest.mark.mandatory
def test_can_start_several_async_inside_completion_callback(ov_core: Any, ov_device_name: str) -> None:
    """OVInferRequestCallbackTests.canStartSeveralAsyncInsideCompletionCallbackWithSafeDtor: the
    callback re-arms start_async until 10 runs are done; then the request is dropped safely."""
    model = _models.build("relu")
    request = ov_core.compile_model(model, ov_device_name).create_infer_request()
    holder, done, runs, errors = [request], threading.Event(), [0], []

    def callback(error: Any) -> None:
        runs[0] += 1
        if error is not None or runs[0] >= 10:
            errors.append(error)
            done.set()
            return
        holder[0].start_async()

    request.set_callback(callback)
    where = call(ov_device_name, "InferRequest.start_async") + " re-armed from its callback"
    with no_error(where):
        request.start_async(_models.make_inputs(model))
    done.wait(5.0)
    assert_equal((runs[0], errors), (10, [None]), "(runs, final error)", where)
    with no_error(where + "; wait()"):
        request.wait()
    holder.clear()
    del request
    gc.collect()


@pytest.mark.mandatory
def test_callback_exception_surfaces_from_wait(infer_request: Any, ov_device_name: str) -> None:
    """OVInferRequestCallbackTests.returnGeneralErrorIfCallbackThrowException."""

    def callback(_error: Any) -> None:
        raise ValueError("raised inside the completion callback")

    infer_request.set_callback(callback)
    with no_error(call(ov_device_name, "InferRequest.start_async")):
        infer_request.start_async()
    assert_raises_ov_error((ValueError, OVConformError), infer_request.wait,
                           call=call(ov_device_name, "InferRequest.wait") + " after a callback raised")


@pytest.mark.mandatory
def test_wait_for_zero_is_false_while_running(infer_request: Any, ov_device_name: str) -> None:
    """OVInferRequestCallbackTests.ReturnResultNotReadyFromWaitInAsyncModeForTooSmallTimeout."""
    where = call(ov_device_name, "InferRequest.wait_for", 0) + " while the request runs"
    with blocked_run(infer_request, ov_device_name):
        ready = wait_in_thread(lambda: infer_request.wait_for(0), 1.0, where)
    assert_equal(ready, False, "wait_for(0)", where)


@pytest.mark.mandatory
def test_impl_does_not_copy_callback(infer_request: Any, ov_device_name: str) -> None:
    """OVInferRequestCallbackTests.ImplDoesNotCopyCallback: the very object given is called."""

    class Counter:
        def __init__(self) -> None:
            self.seen: list[int] = []

        def __call__(self, _error: Any) -> None:
            self.seen.append(id(self))

    counter = Counter()
    infer_request.set_callback(counter)
    _start_and_wait(infer_request, ov_device_name)
    assert_equal(counter.seen, [id(counter)], "ids of the objects called", call(ov_device_name, "set_callback",
                                                                                 counter))


def test_callback_called_once_per_run(infer_request: Any, ov_device_name: str) -> None:
    """(–) three runs, three calls, each with no error."""
    calls: list[Any] = []
    infer_request.set_callback(calls.append)
    for _ in range(3):
        _start_and_wait(infer_request, ov_device_name)
    time.sleep(SETTLE_S)
    assert_equal(calls, [None, None, None], "callback calls after 3 runs", call(ov_device_name, "start_async") + " x3")


def test_callback_with_userdata(infer_request: Any, ov_device_name: str) -> None:
    """(–) OpenVINO's Python form ``set_callback(fn, userdata)`` calls ``fn(userdata)``."""
    seen: list[Any] = []
    token = object()
    infer_request.set_callback(seen.append, token)
    _start_and_wait(infer_request, ov_device_name)
    time.sleep(SETTLE_S)
    assert_that(seen == [token], "callback arguments", seen, [token], call(ov_device_name, "set_callback",
                                                                         "append", "<userdata>"))


def test_outputs_are_written_before_callback(infer_request: Any, ov_device_name: str) -> None:
    """(–) the completion callback sees its run's outputs: the output tensor read inside the
    callback holds the results of that run's inputs, over two runs with different inputs (a
    callback fired before the outputs are written would see the previous run's values). How many
    times the callback is called is test_callback_called_once_per_run's subject: each call is checked."""
    model = _models.build("conv_pool_relu")
    seen: list[Any] = []

    def callback(error: Any) -> None:
        try:
            seen.append(error if error is not None else infer_request.get_output_tensor(0).data.copy())
        except BaseException as e:  # noqa: BLE001 - reported below, with the run
            seen.append(e)

    infer_request.set_callback(callback)
    for seed in (11, 12):
        inputs = _models.make_inputs(model, seed)
        where = call(ov_device_name, "InferRequest.get_output_tensor", 0) + f" inside the callback of run seed={seed}"
        seen.clear()
        with no_error(call(ov_device_name, "InferRequest.start_async+wait", f"seed={seed}")):
            infer_request.start_async(inputs)
            infer_request.wait()
        assert_that(seen, "callback calls", 0, "at least one", where)
        for got in list(seen):
            if isinstance(got, BaseException):
                fail("error", f"{type(got).__name__}: {got}", "no error (the run's outputs)", where)
            check_outputs([got], model, inputs, "conv_pool_relu", where)


def _relu_requests(core: Any, device: str, count: int) -> tuple[list[Any], Any]:
    model = _models.build("relu")
    with no_error(call(device, "compile_model", model.friendly_name)):
        compiled = core.compile_model(model, device)
    with no_error(call(device, "CompiledModel.create_infer_request", f"x{count}")):
        return [compiled.create_infer_request() for _ in range(count)], model


def test_callbacks_are_per_request(ov_core: Any, ov_device_name: str) -> None:
    """(–) each request of a compiled model calls its own callback with its own userdata (an
    AsyncInferQueue sets one per request, the job's id as userdata): three requests, each given a
    callback (two with userdata, one without), run one after another and then all at once; each
    callback sees exactly its own request's runs."""
    requests, model = _relu_requests(ov_core, ov_device_name, 3)
    seen: list[list[Any]] = [[], [], []]
    lock = threading.Lock()

    def recorder(k: int) -> Any:
        def record(arg: Any) -> None:
            with lock:
                seen[k].append(arg)
        return record

    where = call(ov_device_name, "InferRequest.set_callback") + " on 3 requests of one compiled model"
    with no_error(where):
        requests[0].set_callback(recorder(0), "job0")
        requests[1].set_callback(recorder(1), "job1")
        requests[2].set_callback(recorder(2))
    inputs = _models.make_inputs(model)
    with no_error(where + "; start_async+wait one after another, then all started and waited"):
        for request in requests:
            request.start_async(inputs)
            request.wait()
        for request in requests:
            request.start_async(inputs)
        for request in requests:
            request.wait()
    time.sleep(SETTLE_S)
    got = [list(s) for s in seen]
    assert_equal(got, [["job0", "job0"], ["job1", "job1"], [None, None]],
                 "arguments each request's callback got (2 runs each)", where)


def test_callbacks_still_called_after_a_callback_raised(ov_core: Any, ov_device_name: str) -> None:
    """(–) a completion callback that raised ends its own run only (wait() raises its error): the
    next runs of that request and of another request of the compiled model call their callbacks,
    once per run, with no error. A device whose callback dispatcher thread dies on the exception
    never calls another callback."""
    (first, second), model = _relu_requests(ov_core, ov_device_name, 2)
    inputs = _models.make_inputs(model)

    def raising(_error: Any) -> None:
        raise ValueError("raised inside the completion callback")

    first.set_callback(raising)
    with no_error(call(ov_device_name, "InferRequest.start_async") + " with a callback that raises"):
        first.start_async(inputs)
    assert_raises_ov_error((ValueError, OVConformError), first.wait,
                           call=call(ov_device_name, "InferRequest.wait") + " after a callback raised")
    calls: list[tuple[str, Any]] = []
    first.set_callback(lambda error: calls.append(("first", error)))
    second.set_callback(lambda error: calls.append(("second", error)))
    where = call(ov_device_name, "InferRequest.start_async+wait") + " x4 (two requests) after a callback raised"
    with no_error(where):
        for request in (first, second, first, second):
            request.start_async(inputs)
            request.wait()
    time.sleep(SETTLE_S)
    assert_equal(calls, [("first", None), ("second", None), ("first", None), ("second", None)],
                 "callback calls (request, error argument)", where)
