"""Cancellation (``ov_infer_request`` entity): OpenVINO's ``ov_infer_request/cancellation.cpp``.

* OVInferRequestCancellationTests — M: cancel() during an asynchronous or a synchronous run, then
  the run either completes or raises CancelledError (nothing else); the request is reusable
  after a cancel; cancelling an idle request does nothing.

OpenVINO's bodies accept a run that completes after cancel(), so a cancel() that does nothing
passes them. Here they run :func:`~ovconform.suites._models.long_run_model` (10-20 ms a run,
an output that depends on the input) and measure when cancel() came (:class:`RunWindow`): a
run that completed although cancel() certainly met it unfinished counts against the device. A
correct device can only be unlucky when the thread that calls cancel() is held up: each test
tries up to :data:`ATTEMPTS` times, stops at the first CancelledError, and fails only when at
least :data:`CERTAIN_FAILURES` runs completed although the cancel certainly came in time. The
run after a cancelled one gets other inputs, so a device that hands back the cancelled run's
outputs is seen.

* Beyond OpenVINO (–, optional, behaviours.md §5.1.8): a cancel() issued while a run is
  under way really stops it (wait raises CancelledError); cancel() after completion leaves the
  results alone; a cancelled run calls its completion callback once, with the CancelledError;
  cancel() of one request leaves another running request of the compiled model alone.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from ovconform import properties as P
from ovconform.assertions import assert_outputs_close, assert_that, call, fail, no_error
from ovconform.errors import CancelledError
from ovconform.suites import _models
from ovconform.suites._helpers import (
    LONG_RUN_TOLERANCE,
    PATIENCE_S,
    RunWindow,
    long_run_expected,
    long_run_inputs,
    long_run_request,
    run_and_check,
    start_infer_in_thread,
)

pytestmark = pytest.mark.entity("ov_infer_request")

#: Runs a test tries before it judges; failures needed among them (see the module docstring).
ATTEMPTS, CERTAIN_FAILURES = 5, 3


def _wait_completes_or_cancelled(request: Any, where: str) -> str:
    """wait() either returns or raises CancelledError; returns which."""
    __tracebackhide__ = True
    try:
        request.wait()
    except CancelledError:
        return "cancelled"
    except Exception as e:  # noqa: BLE001 - any other error is the failure
        fail("wait() after cancel()", f"{type(e).__name__}: {e}", "completion or CancelledError", where)
    return "completed"


def _check_long_output(request: Any, seed: int, where: str) -> None:
    __tracebackhide__ = True
    with no_error(where):
        got = request.get_output_tensor(0).data
    assert_outputs_close(got, long_run_expected(seed), f"output (inputs of seed {seed})", where, **LONG_RUN_TOLERANCE)


class _Judge:
    """Counts runs that completed although cancel() certainly met them unfinished."""

    def __init__(self, window: RunWindow, where: str) -> None:
        self.window, self.where, self.certain, self.tried = window, where, 0, 0
        self.offsets: list[float] = []  # when cancel() came, for the runs counted

    def completed(self, unfinished: bool) -> None:
        self.tried += 1
        self.certain += unfinished
        if unfinished:
            self.offsets.append(self.window.offset)

    def verdict(self) -> None:
        """Fail when enough runs completed although cancel() came within half the shortest run
        (measured again before failing: :meth:`RunWindow.remeasure`)."""
        __tracebackhide__ = True
        if self.certain >= CERTAIN_FAILURES:
            with no_error(f"{self.where}; infer (measuring a run again)"):
                self.window.remeasure()
            self.certain = self.window.still_certain(self.offsets)
        if self.certain >= CERTAIN_FAILURES:
            fail("outcome", f"completed normally in {self.certain} of {self.tried} runs although cancel() came "
                 f"within {self.window.shortest * 500:.2f} ms of the start (half the shortest run)",
                 "CancelledError from a run that cancel() met unfinished", self.where)


def _cancel_async_runs(request: Any, inputs: dict[str, Any], window: RunWindow, where: str,
                       on_completed: Callable[[], None]) -> bool:
    """start_async + cancel() at once, up to ATTEMPTS times; True at the first CancelledError.
    ``on_completed`` checks the outputs of a run that completed anyway."""
    __tracebackhide__ = True
    judge = _Judge(window, where)
    for _ in range(ATTEMPTS):
        with no_error(where):
            window.start()
            request.start_async(inputs)
            window.call()
            request.cancel()
            unfinished = window.certainly_unfinished()
        if _wait_completes_or_cancelled(request, where) == "cancelled":
            return True
        on_completed()
        judge.completed(unfinished)
    judge.verdict()
    return False


@pytest.mark.mandatory
def test_can_cancel_async_request(ov_core: Any, ov_device_name: str) -> None:
    """OVInferRequestCancellationTests.canCancelAsyncRequest: cancel() right after start_async;
    wait() raises CancelledError, or the run completed with the right outputs (only when the
    cancel may have come too late)."""
    request = long_run_request(ov_core, ov_device_name)
    inputs = long_run_inputs(0)
    window = RunWindow(request, inputs)
    where = call(ov_device_name, "InferRequest.cancel") + " right after start_async; wait()"
    _cancel_async_runs(request, inputs, window, where, lambda: _check_long_output(request, 0, where))


@pytest.mark.mandatory
def test_can_reset_after_cancel_async_request(ov_core: Any, ov_device_name: str) -> None:
    """OVInferRequestCancellationTests.CanResetAfterCancelAsyncRequest: after a cancel that lands
    mid-run, the next runs (asynchronous and synchronous, with other inputs) compute their own
    outputs."""
    request = long_run_request(ov_core, ov_device_name)
    inputs = long_run_inputs(0)
    window = RunWindow(request, inputs)
    where = call(ov_device_name, "InferRequest.cancel") + " right after start_async"
    _cancel_async_runs(request, inputs, window, where, lambda: _check_long_output(request, 0, where))
    again = call(ov_device_name, "InferRequest.start_async+wait") + " after a cancelled run, other inputs"
    with no_error(again):
        request.start_async(long_run_inputs(1))
        request.wait()
    _check_long_output(request, 1, again)
    again = call(ov_device_name, "InferRequest.infer") + " after a cancelled run, other inputs"
    with no_error(again):
        request.infer(long_run_inputs(2))
    _check_long_output(request, 2, again)


@pytest.mark.mandatory
def test_can_cancel_before_async_request(ov_core: Any, ov_device_name: str) -> None:
    """OVInferRequestCancellationTests.canCancelBeforeAsyncRequest: cancel on an idle request is a
    no-op: the next run completes normally, and a cancel during the run after it still works."""
    model = _models.build("conv_pool_relu")
    request = ov_core.compile_model(model, ov_device_name).create_infer_request()
    with no_error(call(ov_device_name, "InferRequest.cancel") + " on an idle request"):
        request.cancel()
    run_and_check(request, ov_device_name, "conv_pool_relu", how="async")
    long_request = long_run_request(ov_core, ov_device_name)
    with no_error(call(ov_device_name, "InferRequest.cancel") + " on an idle request"):
        long_request.cancel()
    where = call(ov_device_name, "InferRequest.start_async+wait") + " after cancel() on the idle request"
    with no_error(where):
        long_request.start_async(long_run_inputs(3))
        long_request.wait()
    _check_long_output(long_request, 3, where)
    window = RunWindow(long_request, long_run_inputs(0))
    where = call(ov_device_name, "InferRequest.cancel") + " right after start_async, after an idle cancel()"
    _cancel_async_runs(long_request, long_run_inputs(0), window, where,
                       lambda: _check_long_output(long_request, 0, where))


def _infer_on_thread(request: Any, inputs: dict[str, Any], window: RunWindow, where: str) -> tuple[str, bool]:
    """infer() on a helper thread, cancel() from this one once infer() has started; returns
    (``"completed"`` or ``"cancelled"``, whether the cancel certainly met the run unfinished)."""
    __tracebackhide__ = True
    thread, outcome = start_infer_in_thread(request, inputs, window)
    time.sleep(window.shortest / 8)  # let infer() begin (a cancel before it begins is rightly dropped)
    window.call()
    request.cancel()
    unfinished = window.certainly_unfinished()
    thread.join(PATIENCE_S)
    if thread.is_alive():
        fail("infer()", f"still running after {PATIENCE_S} s", "completed or cancelled", where)
    error = outcome.get("error")
    if error is not None and not isinstance(error, CancelledError):
        fail("infer() after cancel()", f"{type(error).__name__}: {error}", "completion or CancelledError", where)
    return ("completed" if error is None else "cancelled"), unfinished


@pytest.mark.mandatory
def test_can_cancel_infer_request(ov_core: Any, ov_device_name: str) -> None:
    """OVInferRequestCancellationTests.canCancelInferRequest: cancel() from another thread during a
    synchronous infer(); infer either raises CancelledError or completed with the right outputs
    (only when the cancel may have come too late)."""
    request = long_run_request(ov_core, ov_device_name)
    inputs = long_run_inputs(0)
    window = RunWindow(request, inputs)
    where = call(ov_device_name, "InferRequest.cancel") + " during infer() on another thread"
    judge = _Judge(window, where)
    for _ in range(ATTEMPTS):
        outcome, unfinished = _infer_on_thread(request, inputs, window, where)
        if outcome == "cancelled":
            return
        _check_long_output(request, 0, where)
        judge.completed(unfinished)
    judge.verdict()


def test_cancel_stops_a_running_request(ov_core: Any, ov_device_name: str) -> None:
    """(–) cancel() right after start_async, while the run is unfinished, makes wait() raise
    CancelledError; the request then runs normally again. Judged as the mandatory tests are
    (:class:`_Judge`): it fails when at least :data:`CERTAIN_FAILURES` of :data:`ATTEMPTS` runs
    completed although cancel() certainly met them unfinished, and is skipped as inconclusive
    when no run was cancelled but too few were certain misses (OpenVINO's own pipeline checks for a
    cancel only between its stages, so a cancel that meets a stage already running is missed)."""
    request = long_run_request(ov_core, ov_device_name)
    inputs = long_run_inputs(0)
    window = RunWindow(request, inputs)
    where = call(ov_device_name, "InferRequest.cancel") + " right after start_async; wait()"
    if not _cancel_async_runs(request, inputs, window, where, lambda: _check_long_output(request, 0, where)):
        pytest.skip(f"inconclusive: none of {ATTEMPTS} runs was cancelled, and fewer than {CERTAIN_FAILURES} "
                    f"cancel() calls came within half the shortest run ({window.shortest * 1000:.2f} ms)")
    with no_error(call(ov_device_name, "InferRequest.infer") + " after a cancelled run"):
        request.infer(long_run_inputs(4))
    _check_long_output(request, 4, call(ov_device_name, "InferRequest.infer") + " after a cancelled run")


def test_cancel_after_completion_keeps_results(ov_core: Any, ov_device_name: str) -> None:
    """(–) cancel() after a run completed changes nothing: wait() still succeeds and the outputs stay."""
    model = _models.build("conv_pool_relu")
    request = ov_core.compile_model(model, ov_device_name).create_infer_request()
    inputs = _models.make_inputs(model)
    where = call(ov_device_name, "InferRequest.cancel") + " after completion"
    with no_error(where):
        request.start_async(inputs)
        request.wait()
        request.cancel()
        request.wait()
    assert_outputs_close(request.get_output_tensor(0).data, _models.expected("conv_pool_relu", inputs)[0], "output",
                         where, rtol=1e-4, atol=1e-5)


def test_cancelled_run_calls_its_callback(ov_core: Any, ov_device_name: str) -> None:
    """(–) a cancelled run ends like any other: its completion callback is called once, with the
    CancelledError (the callback receives the run's error, as for any failed run: OpenVINO's
    IAsyncInferRequest calls it with the ov::Cancelled exception; OpenVINO's Python API, whose
    ``set_callback(fn, userdata)`` form has no error argument, calls nothing then). A caller that
    counts callbacks (an AsyncInferQueue) would otherwise wait forever for a cancelled run. Runs
    that completed although cancelled get one call with no error; skipped as inconclusive when
    none of :data:`ATTEMPTS` runs was cancelled."""
    request = long_run_request(ov_core, ov_device_name)
    calls: list[Any] = []
    request.set_callback(calls.append)
    where = call(ov_device_name, "InferRequest.cancel") + " right after start_async, with a completion callback"
    cancelled = 0
    for attempt in range(ATTEMPTS):
        calls.clear()
        with no_error(where):
            request.start_async(long_run_inputs(0))
            request.cancel()
        outcome = _wait_completes_or_cancelled(request, where)
        got = [type(c).__name__ if c is not None else None for c in calls]  # wait() returns after the callback
        want = ["CancelledError"] if outcome == "cancelled" else [None]
        if outcome == "cancelled":
            cancelled += 1
            assert_that(len(calls) == 1 and isinstance(calls[0], CancelledError),
                        f"callback calls of cancelled run {attempt} (their error argument)", got, want, where)
        else:
            assert_that(calls == [None], f"callback calls of run {attempt} (completed)", got, want, where)
    request.set_callback(None)
    if not cancelled:
        pytest.skip(f"inconclusive: none of {ATTEMPTS} runs was cancelled")


def test_cancel_leaves_other_requests_running(ov_core: Any, ov_device_name: str,
                                              ov_supported_properties: dict[str, str]) -> None:
    """(–) cancel() stops its own request only: with two requests of one compiled model (two
    streams, where the device lists NUM_STREAMS) started together, cancelling the second leaves
    the first to complete with its own outputs, every time (:data:`ATTEMPTS` times). A device
    whose cancel flushes a queue shared by the compiled model's requests aborts the first too."""
    config = {P.NUM_STREAMS: 2} if P.NUM_STREAMS in ov_supported_properties else {}
    model = _models.long_run_model()
    with no_error(call(ov_device_name, "compile_model", model.friendly_name, config)):
        compiled = ov_core.compile_model(model, ov_device_name, config)
    first, second = compiled.create_infer_request(), compiled.create_infer_request()
    where = call(ov_device_name, "InferRequest.cancel") + " of the second of two running requests; first.wait()"
    for _ in range(ATTEMPTS):
        with no_error(where):
            first.start_async(long_run_inputs(1))
            second.start_async(long_run_inputs(2))
            second.cancel()
        try:
            first.wait()
        except CancelledError:
            _wait_completes_or_cancelled(second, where)
            fail("first request", "CancelledError (it was never cancelled)", "completes", where)
        except Exception as e:  # noqa: BLE001 - any error is the failure
            _wait_completes_or_cancelled(second, where)
            fail("first request", f"{type(e).__name__}: {e}", "completes", where)
        _wait_completes_or_cancelled(second, where)
        _check_long_output(first, 1, where)
