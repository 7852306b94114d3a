"""Request executors and EXCLUSIVE_ASYNC_REQUESTS (``ov_infer_request`` entity): OpenVINO's
``behavior/ov_infer_request/properties_tests.hpp``, InferRequestPropertiesTest.canSetExclusiveAsyncRequests
and ReusableCPUStreamsExecutor (–).

``EXCLUSIVE_ASYNC_REQUESTS`` (``ov::internal::exclusive_async_requests``; OpenVINO's Python API has no
name for it beyond the key) set on the device and given to compile_model: every compiled model of the
device shares one executor, so requests run one at a time. Set to false, each compiled model gets a
streams executor of its own, and the executor of a released compiled model is reused by the next.

OpenVINO counts the process's executors (``executor_manager()``), which is white-box; here:

* behaviour, for any device: with the property true, four requests of two compiled models (one with
  NUM_STREAMS=2) are started together on a 10-20 ms input-dependent model; each output is checked
  against the oracle, and, one run at a time, the four take at least 3/4 of four times the shortest
  measured run from the first start to the last completion callback (a pipelined device may finish
  them in a burst, so the gaps between completions say nothing). Runs in parallel finish sooner only
  where cores are free, so this part can pass a device that ignores the property on a busy machine;
  the executor check below cannot. With the property false the same runs compute the right outputs.
  Every wait is bounded;
* executors, for a device built on ovconform's contract (its compiled models expose ``task_executor``):
  true makes both compiled models use one executor object; false gives two live compiled models two
  distinct executors, and a compiled model made after one was released reuses its executor.

Optional: skipped unless the device lists EXCLUSIVE_ASYNC_REQUESTS in SUPPORTED_PROPERTIES.
"""

from __future__ import annotations

import gc
import threading
import time
from typing import Any

import pytest

from ovconform import properties as P
from ovconform.assertions import assert_equal, assert_outputs_close, assert_that, call, fail, no_error
from ovconform.suites import _models
from ovconform.suites._helpers import (
    LONG_RUN_TOLERANCE,
    PATIENCE_S,
    RunWindow,
    long_run_expected,
    long_run_inputs,
    new_core,
)

pytestmark = [pytest.mark.entity("ov_infer_request"), pytest.mark.requires_property(P.EXCLUSIVE_ASYNC_REQUESTS)]

EXCLUSIVE = {P.EXCLUSIVE_ASYNC_REQUESTS: True}
SHARED = {P.EXCLUSIVE_ASYNC_REQUESTS: False}
#: Requests per compiled model, and the part of their summed shortest runs that runs one at a time take at least.
PER_MODEL, SERIAL_PART = 2, 0.75


def _compile(core: Any, device: str, config: dict[str, Any]) -> Any:
    model = _models.long_run_model()
    with no_error(call(device, "compile_model", model.friendly_name, config)):
        return core.compile_model(model, device, config)


def _executor(compiled: Any) -> Any:
    return getattr(compiled, "task_executor", None)


def _run_together(compiled: list[Any], device: str, where: str, per_model: int = PER_MODEL,
                  measure: bool = True) -> tuple[float, float]:
    """Start ``per_model`` requests of each compiled model back to back, each with its own inputs;
    wait (bounded) and check every output. The time from the first start to the last completion
    callback, and the shortest run measured (0 when not ``measure``): runs measured both before and
    after, so that a busy moment while measuring (a loaded CI machine) does not set the bar above
    what runs one at a time took while the machine was quieter."""
    requests = [c.create_infer_request() for c in compiled for _ in range(per_model)]
    window = None
    if measure:
        with no_error(f"{where}; infer (measuring a run)"):
            window = RunWindow(requests[0], long_run_inputs(0), runs=2)
    done: list[float] = []
    lock = threading.Lock()

    def on_done(_error: Any) -> None:
        with lock:
            done.append(time.perf_counter())

    for r in requests:
        r.set_callback(on_done)
    started = time.perf_counter()
    with no_error(f"{where}; start_async x{len(requests)}"):
        for i, r in enumerate(requests):
            r.start_async(long_run_inputs(i + 1))
    deadline = time.monotonic() + PATIENCE_S
    for i, r in enumerate(requests):
        with no_error(f"{where}; wait_for request {i}"):
            finished = r.wait_for(int(max(0.0, deadline - time.monotonic()) * 1000))  # milliseconds
        if not finished:
            fail(f"request {i}", f"still running after {PATIENCE_S} s", "done", where)
    for i, r in enumerate(requests):
        r.set_callback(None)
        with no_error(f"{where}; get_output_tensor of request {i}"):
            got = r.get_output_tensor(0).data
        assert_outputs_close(got, long_run_expected(i + 1), f"output of request {i}", where, **LONG_RUN_TOLERANCE)
    # a callback may run just after wait_for returned; give the last ones a moment
    end = time.monotonic() + PATIENCE_S
    while len(done) < len(requests) and time.monotonic() < end:
        time.sleep(0.005)
    assert_that(len(done) >= len(requests), "completion callbacks called", len(done), f">= {len(requests)}", where)
    if window is None:
        return max(done) - started, 0.0
    with no_error(f"{where}; infer (measuring a run again)"):
        window.remeasure()
    return max(done) - started, window.shortest


def test_can_set_exclusive_async_requests(ov_plugin_spec: str, ov_device_name: str) -> None:
    """InferRequestPropertiesTest.canSetExclusiveAsyncRequests (–): the property set on the device and
    given to compile_model; two compiled models share one executor and their requests never overlap."""
    core = new_core(ov_plugin_spec, ov_device_name)
    with no_error(call(ov_device_name, "set_property", EXCLUSIVE)):
        core.set_property(ov_device_name, EXCLUSIVE)
    first = _compile(core, ov_device_name, EXCLUSIVE)
    second = _compile(core, ov_device_name, {**EXCLUSIVE, P.NUM_STREAMS: 2})
    where = call(ov_device_name, "compile_model", "LongRun x2", EXCLUSIVE)
    for i, compiled in enumerate((first, second)):
        with no_error(f"{where}; get_property({P.EXCLUSIVE_ASYNC_REQUESTS}) of model {i}"):
            value = compiled.get_property(P.EXCLUSIVE_ASYNC_REQUESTS)
        assert_equal(P.to_string(value), "YES", f"{P.EXCLUSIVE_ASYNC_REQUESTS} of compiled model {i}", where)
    executors = [_executor(c) for c in (first, second)]
    if all(e is not None for e in executors):
        assert_that(executors[0] is executors[1], "task executors of the two compiled models",
                    [repr(e) for e in executors], "one shared executor", where)
    runs = 2 * PER_MODEL
    took, shortest = _run_together([first, second], ov_device_name, where + f"; {runs} requests started together")
    assert_that(took >= SERIAL_PART * runs * shortest, f"time from the first start to the last of {runs} completions",
                f"{took * 1e3:.1f} ms (the shortest run takes {shortest * 1e3:.1f} ms)",
                f"at least {SERIAL_PART * runs * shortest * 1e3:.1f} ms: one run at a time", where)


def test_reusable_cpu_streams_executor(ov_plugin_spec: str, ov_device_name: str) -> None:
    """InferRequestPropertiesTest.ReusableCPUStreamsExecutor (–): with the property false, two live
    compiled models run their requests right on executors of their own, and a compiled model made
    after one was released reuses its executor."""
    core = new_core(ov_plugin_spec, ov_device_name)
    with no_error(call(ov_device_name, "set_property", SHARED)):
        core.set_property(ov_device_name, SHARED)
    first, second = _compile(core, ov_device_name, SHARED), _compile(core, ov_device_name, SHARED)
    where = call(ov_device_name, "compile_model", "LongRun x2", SHARED)
    with no_error(f"{where}; get_property({P.EXCLUSIVE_ASYNC_REQUESTS})"):
        value = first.get_property(P.EXCLUSIVE_ASYNC_REQUESTS)
    assert_equal(P.to_string(value), "NO", P.EXCLUSIVE_ASYNC_REQUESTS, where)
    _run_together([first, second], ov_device_name, where + "; 2 requests started together", 1, measure=False)
    executors = [_executor(c) for c in (first, second)]
    if any(e is None for e in executors):
        return
    assert_that(executors[0] is not executors[1], "task executors of two live compiled models",
                [repr(e) for e in executors], "two distinct executors (no exclusive sharing)", where)
    released = executors[1]
    del second, executors
    gc.collect()
    third = _compile(core, ov_device_name, SHARED)
    assert_that(_executor(third) is released, "task executor of a compiled model made after one was released",
                repr(_executor(third)), f"the released model's idle executor {released!r}, reused",
                where + "; release the second, compile a third")
