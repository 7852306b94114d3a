"""Reliability of the asynchronous contract, of memory and of export (beyond OpenVINO's API tests; all
optional (–), each checking one documented behaviour of the contract):

* ``ov_infer_request``: start_async only starts a run (it returns while the completion callback is
  still blocked); the completion callback never runs on the thread that called start_async;
  wait() returns only after the run's completion callback has returned; the process's resident
  memory does not grow with the number of inferences of one request; a run that fails inside
  the device hands its error to the completion callback and to wait() (infer() raises it), and
  the request works normally afterwards, its callback called with no error again.
* ``ov_compiled_model``: exporting one compiled model twice gives the same bytes (a reproducible
  blob: caches and artifact stores compare blobs).
"""

from __future__ import annotations

import ctypes
import os
import threading
import time
from typing import Any

import numpy as np
import pytest

from ovconform import properties as P
from ovconform.assertions import assert_equal, assert_outputs_close, assert_that, call, fail, no_error
from ovconform.errors import OVConformError
from ovconform.suites import _models
from ovconform.suites._helpers import CALLBACK_START_S, PATIENCE_S

pytestmark = pytest.mark.entity("ov_infer_request")

BLOCK_S = 2.0  # how long a test's callback blocks (bounded, so a synchronous device costs 2 s, not a hang)
START_LIMIT_S = 1.0
EARLY_S = 0.3  # wait() must still be blocked this long after the callback started blocking
WARMUP, WINDOW = 20, 100
RSS_LIMIT = 4 * 1024 * 1024  # bytes of resident growth allowed over one window (40 KiB per inference)


def _request(core: Any, device: str, name: str = "relu") -> tuple[Any, dict[str, Any]]:
    model = _models.build(name)
    with no_error(call(device, "compile_model+create_infer_request", model.friendly_name)):
        request = core.compile_model(model, device).create_infer_request()
    return request, _models.make_inputs(model)


def test_start_async_returns_before_the_run_ends(ov_core: Any, ov_device_name: str) -> None:
    """(–) start_async starts the run and returns: with a completion callback that blocks for
    2 s, start_async returns within 1 s."""
    request, inputs = _request(ov_core, ov_device_name)
    release = threading.Event()
    request.set_callback(lambda _error: release.wait(BLOCK_S))
    where = call(ov_device_name, "InferRequest.start_async") + " with a callback that blocks for 2 s"
    start = time.monotonic()
    with no_error(where):
        request.start_async(inputs)
    took = time.monotonic() - start
    release.set()
    with no_error(call(ov_device_name, "InferRequest.wait")):
        request.wait()
    request.set_callback(None)
    assert_that(took < START_LIMIT_S, "start_async duration (s)", round(took, 3),
                f"< {START_LIMIT_S} (it must not run the model and its callback before returning)", where)


def test_callback_runs_off_the_callers_thread(ov_core: Any, ov_device_name: str) -> None:
    """(–) the completion callback runs on the request's pipeline, never on the thread that called
    start_async (a callback that re-arms start_async would otherwise recurse on the caller's stack)."""
    request, inputs = _request(ov_core, ov_device_name)
    threads: list[int] = []
    request.set_callback(lambda _error: threads.append(threading.get_ident()))
    where = call(ov_device_name, "InferRequest.start_async+wait") + " (3 runs)"
    with no_error(where):
        for _ in range(3):
            request.start_async(inputs)
            request.wait()
    time.sleep(0.05)
    request.set_callback(None)
    on_caller = threads.count(threading.get_ident())
    assert_that(on_caller == 0, "callback calls on the caller's thread", f"{on_caller} of {len(threads)}",
                "0 (the callback runs on another thread)", where)


def test_wait_returns_only_after_the_callback(ov_core: Any, ov_device_name: str) -> None:
    """(–) wait() returns only once the run is complete, its completion callback included: while the
    callback blocks, a wait() on another thread stays blocked."""
    request, inputs = _request(ov_core, ov_device_name)
    release, entered, in_callback = threading.Event(), threading.Event(), threading.Event()

    def callback(_error: Any) -> None:
        in_callback.set()
        entered.set()
        release.wait(BLOCK_S)
        in_callback.clear()

    request.set_callback(callback)
    where = call(ov_device_name, "InferRequest.wait") + " while the completion callback blocks"
    with no_error(call(ov_device_name, "InferRequest.start_async")):
        request.start_async(inputs)
    calling, returned = threading.Event(), threading.Event()
    early: list[bool] = []

    def waiter() -> None:
        calling.set()
        try:
            request.wait()
        finally:
            early.append(in_callback.is_set())
            returned.set()

    try:
        if not entered.wait(CALLBACK_START_S):
            fail("completion callback", f"not called within {CALLBACK_START_S} s", "called once the run ends", where)
        threading.Thread(target=waiter, daemon=True).start()
        calling.wait(CALLBACK_START_S)  # the waiter is about to call wait() while the callback blocks
        returned.wait(EARLY_S)
    finally:
        release.set()
    finished = returned.wait(PATIENCE_S)
    request.set_callback(None)
    assert_that(finished, "wait()", f"still blocked {PATIENCE_S} s after the callback returned", "returned", where)
    assert_that(early == [False], "wait()", "returned while the completion callback was still running",
                "returns after the callback has returned", where)


def _trim() -> None:
    """Give the C heap's free pages back to the system (glibc ``malloc_trim``; elsewhere nothing).

    Without it a leak can hide: memory freed by earlier tests stays resident in the heap, and a
    leaking request that reuses it grows nothing (a 25 MiB leak once measured 0 bytes). Trimmed
    before and after a window, resident growth is the growth of memory still in use."""
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _rss() -> int | None:
    """Resident set size in bytes (Linux /proc), None where unavailable."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def test_memory_does_not_grow_per_inference(ov_core: Any, ov_device_name: str) -> None:
    """(–) after a warm-up of 20 inferences, two windows of 100 inferences on one request each grow
    the resident memory by less than 4 MiB (40 KiB per inference). A leak grows both windows; a
    one-off allocation grows at most one, so the smaller growth is what is judged. The C heap is
    trimmed around each window, so freed memory is not counted and a leak cannot hide in memory
    earlier tests freed. (No gc.collect:
    it costs seconds in a large test process; inference outputs are freed by reference counting.)"""
    if _rss() is None:
        pytest.skip("resident memory is not measurable here (no /proc/self/statm)")
    request, inputs = _request(ov_core, ov_device_name)
    where = call(ov_device_name, "InferRequest.infer") + f" x {WINDOW}, twice"
    growth = []
    with no_error(where):
        for _ in range(WARMUP):
            request.infer(inputs)
        for _window in range(2):
            _trim()
            before = _rss() or 0
            for _ in range(WINDOW):
                request.infer(inputs)
            _trim()
            growth.append((_rss() or 0) - before)
    judged = min(growth)  # not recorded as a fact: records must not differ between identical runs
    assert_that(judged < RSS_LIMIT, f"resident memory growth per window of {WINDOW} inferences (bytes)", growth,
                f"< {RSS_LIMIT} in at least one window (no growth per inference)", where)


@pytest.mark.entity("ov_compiled_model")
@pytest.mark.capability(P.Capability.EXPORT_IMPORT)
def test_export_is_deterministic(ov_core: Any, ov_device_name: str) -> None:
    """(–) export_model of one compiled model, twice, gives the same bytes."""
    model = _models.build("matmul_bias")
    with no_error(call(ov_device_name, "compile_model", model.friendly_name)):
        compiled = ov_core.compile_model(model, ov_device_name)
    where = call(ov_device_name, "CompiledModel.export_model") + " twice"
    with no_error(where):
        first, second = compiled.export_model(), compiled.export_model()
    first, second = bytes(first), bytes(second)
    if first != second:
        at = next((i for i, (a, b) in enumerate(zip(first, second, strict=False)) if a != b),
                  min(len(first), len(second)))
        fail("blobs", f"different ({len(first)} and {len(second)} bytes, first difference at byte {at})",
             "identical bytes", where)


# -- a run that fails inside the device (_models.failing_model) --------------------------------------------
GOOD_SHAPE, BAD_SHAPE = np.array([2, 3], np.int64), np.array([4, 4], np.int64)


def _failing(core: Any, device: str) -> Any:
    model = _models.failing_model()
    with no_error(call(device, "compile_model+create_infer_request", model.friendly_name)):
        return core.compile_model(model, device).create_infer_request()


def _inputs(seed: int, shape: np.ndarray) -> dict[str, np.ndarray]:
    return {"data": np.random.default_rng(seed).standard_normal(6).astype(np.float32), "shape": shape}


def _check_good_run(request: Any, seed: int, how: str, where: str) -> None:
    __tracebackhide__ = True
    inputs = _inputs(seed, GOOD_SHAPE)
    with no_error(where):
        if how == "infer":
            request.infer(inputs)
        else:
            request.start_async(inputs)
            request.wait()
        got = request.get_output_tensor(0).data
    assert_outputs_close(got, inputs["data"].reshape(2, 3), "output", where)


def test_failed_run_reaches_callback_and_wait(ov_core: Any, ov_device_name: str) -> None:
    """(–) a run that fails inside the device (Reshape to [4, 4] of 6 values) calls the completion
    callback once with the run's error (an exception, not None), wait() raises an OVConformError,
    and a synchronous infer() of the same inputs raises one too."""
    request = _failing(ov_core, ov_device_name)
    received: list[Any] = []
    done = threading.Event()

    def callback(error: Any) -> None:
        received.append(error)
        done.set()

    request.set_callback(callback)
    where = call(ov_device_name, "InferRequest.start_async", "Reshape of 6 values to [4, 4]")
    with no_error(where):
        request.start_async(_inputs(1, BAD_SHAPE))
    try:
        request.wait()
        raised: BaseException | None = None
    except BaseException as e:  # noqa: BLE001 - judged below
        raised = e
    done.wait(PATIENCE_S)
    request.set_callback(None)
    assert_equal(len(received), 1, "completion callback calls", where)
    assert_that(isinstance(received[0], BaseException), "error passed to the callback", received[0],
                "the run's exception", where)
    assert_that(isinstance(raised, OVConformError), "wait() after the failed run",
                "returned normally" if raised is None else f"{type(raised).__name__}: {raised}",
                "raises an OVConformError (the run's error)", where)
    where = call(ov_device_name, "InferRequest.infer", "Reshape of 6 values to [4, 4]")
    try:
        request.infer(_inputs(2, BAD_SHAPE))
    except OVConformError:
        return
    except Exception as e:  # noqa: BLE001 - the wrong error type is the failure
        fail("error", f"{type(e).__name__}: {e}", "an OVConformError", where)
    fail("error", "none (infer() returned)", "an OVConformError", where)


def test_request_is_reusable_after_failed_run(ov_core: Any, ov_device_name: str) -> None:
    """(–) after an asynchronous and a synchronous run that failed inside the device, the same
    request runs good inputs normally, both ways, with the right outputs."""
    request = _failing(ov_core, ov_device_name)
    for how in ("async", "infer"):
        failing = call(ov_device_name, f"InferRequest.{how}", "Reshape of 6 values to [4, 4]")
        try:
            if how == "infer":
                request.infer(_inputs(3, BAD_SHAPE))
            else:
                request.start_async(_inputs(3, BAD_SHAPE))
                request.wait()
        except OVConformError:
            pass
        except Exception as e:  # noqa: BLE001 - the wrong error type is the failure
            fail("error", f"{type(e).__name__}: {e}", "an OVConformError", failing)
        for seed, again in ((4, "async"), (5, "infer")):
            _check_good_run(request, seed, again, call(ov_device_name, f"InferRequest.{again}") +
                            f" after a failed {how} run")


def test_callback_after_failed_run_gets_no_error(ov_core: Any, ov_device_name: str) -> None:
    """(–) each run hands its completion callback its own outcome: after a run that failed inside
    the device (callback called with the error), the next good runs call it with no error (None),
    and the next failure with an error again."""
    request = _failing(ov_core, ov_device_name)
    received: list[Any] = []
    request.set_callback(received.append)
    outcomes: list[str | None] = []
    where = call(ov_device_name, "InferRequest.start_async+wait") + " good, failing (Reshape to [4, 4]), good, good"
    for seed, shape in ((6, GOOD_SHAPE), (7, BAD_SHAPE), (8, GOOD_SHAPE), (9, GOOD_SHAPE)):
        with no_error(where):
            request.start_async(_inputs(seed, shape))
        try:
            request.wait()
            outcomes.append(None)
        except OVConformError:
            outcomes.append("error")
    time.sleep(0.05)
    request.set_callback(None)
    assert_equal(outcomes, [None, "error", None, None], "outcomes of wait()", where)
    got = [None if e is None else "error" for e in received]
    assert_equal(got, [None, "error", None, None], "error argument of each run's callback call", where)
