"""Concurrent use of one Core (``ov_plugin`` entity): ``behavior/ov_plugin/core_threading.hpp``.

CoreThreadingTest / CoreThreadingTestsWithIter / CoreThreadingTestsWithCacheEnabled — O. The
conformance counts are used: 4 threads × 50 iterations for the cheap calls, fewer for compiles
(4 × 10; 4 × 5 with a cache) and for calls that unload the plugin each time (4 × 20) to keep
the run short. As in OpenVINO, GetVersions, GetMetric, GetProperty_PluginExists and QueryModel
unload the plugin after every call, from every thread, so calls land on a plugin being released
and on the one made next; a concurrent ``unload_plugin`` that finds the plugin gone is tolerated
as OpenVINO tolerates it ("name is not registered in the Core"). Beyond OpenVINO: compile_model
from threads that also unload the plugin; and SetProperty_PluginExists gives each thread its own
property, so a lost update (a write another thread's write undid) is seen, where OpenVINO only
checks that nothing throws.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ovconform import Tensor
from ovconform import properties as P
from ovconform.assertions import assert_equal, assert_outputs_close, assert_that, call, fail
from ovconform.errors import NotFoundError
from ovconform.ir import Model
from ovconform.suites import _models
from ovconform.suites._helpers import PATIENCE_S, new_core

pytestmark = pytest.mark.entity("ov_plugin")

THREADS, ITERATIONS, COMPILE_ITERATIONS, UNLOAD_ITERATIONS = 4, 50, 10, 20


def _run_parallel(fn: Callable[[int, int], None], where: str, iterations: int = ITERATIONS,
                  threads: int = THREADS) -> None:
    """Run ``fn(thread, iteration)`` on ``threads`` threads; the first error fails the test."""
    __tracebackhide__ = True
    errors: list[str] = []
    start = threading.Barrier(threads)

    def worker(t: int) -> None:
        start.wait()
        try:
            for i in range(iterations):
                fn(t, i)
        except Exception as e:  # noqa: BLE001 - collected and reported with the call
            errors.append(f"thread {t}: {type(e).__name__}: {e}")

    pool = [threading.Thread(target=worker, args=(t,), daemon=True) for t in range(threads)]
    for th in pool:
        th.start()
    deadline = time.monotonic() + PATIENCE_S * 3
    for th in pool:
        th.join(max(0.0, deadline - time.monotonic()))
    if any(th.is_alive() for th in pool):
        fail("threads", "still running", f"done within {PATIENCE_S * 3} s", where)
    if errors:
        fail("errors", errors[:3], "none", where)


def _unload(core: Any, device: str) -> None:
    try:
        core.unload_plugin(device)
    except NotFoundError as e:  # a concurrent unload already dropped it: tolerated
        if "not registered" not in str(e):
            raise


def test_get_versions(ov_core: Any, ov_device_name: str) -> None:
    """CoreThreadingTest.smoke_GetVersions, each call followed by unload_plugin."""
    def body(t: int, i: int) -> None:
        assert ov_device_name in ov_core.get_versions(ov_device_name)
        _unload(ov_core, ov_device_name)
    _run_parallel(body, call(ov_device_name, "get_versions") + " + unload_plugin from 4 threads", UNLOAD_ITERATIONS)


def test_get_metric(ov_core: Any, ov_device_name: str) -> None:
    """CoreThreadingTest.smoke_GetMetric, each call followed by unload_plugin."""
    def body(t: int, i: int) -> None:
        ov_core.get_property(ov_device_name, P.SUPPORTED_PROPERTIES)
        ov_core.get_property(ov_device_name, P.FULL_DEVICE_NAME)
        _unload(ov_core, ov_device_name)
    where = call(ov_device_name, "get_property", P.SUPPORTED_PROPERTIES) + " + unload_plugin from 4 threads"
    _run_parallel(body, where, UNLOAD_ITERATIONS)


#: One property per thread, and the values it writes in turn.
OWN_PROPERTY = [(P.PERF_COUNT, (True, False)), (P.PERFORMANCE_HINT, ("THROUGHPUT", "LATENCY")),
                (P.EXECUTION_MODE_HINT, ("PERFORMANCE", "ACCURACY")), (P.PERFORMANCE_HINT_NUM_REQUESTS, (2, 3))]


def test_set_property_plugin_exists(ov_core: Any, ov_device_name: str) -> None:
    """CoreThreadingTest.smoke_SetProperty_PluginExists: 4 threads call set_property on the existing
    plugin, each writing its own property (PERF_COUNT, PERFORMANCE_HINT, EXECUTION_MODE_HINT,
    PERFORMANCE_HINT_NUM_REQUESTS) in turn. No other thread writes that property, so before each
    write (while the other threads wrote theirs) and after the last one it still holds this thread's
    last value: an update another thread's set_property undid (a lost update) is seen."""
    ov_core.get_plugin(ov_device_name)

    def body(t: int, i: int) -> None:
        name, values = OWN_PROPERTY[t]
        if i:
            time.sleep(0.002)  # the other threads' set_property calls land between this write and read
            got = ov_core.get_property(ov_device_name, name)
            if P.to_string(got) != P.to_string(P.parse_value(name, values[(i - 1) % 2])):
                raise AssertionError(f"{name}={got!r}, but should be {values[(i - 1) % 2]!r}, the value this thread "
                                     "set last (another thread's set_property undid the write)")
        ov_core.set_property(ov_device_name, {name: values[i % 2]})
    _run_parallel(body, call(ov_device_name, "set_property", "<own property per thread>") + " from 4 threads")
    last = (ITERATIONS - 1) % 2
    for name, values in OWN_PROPERTY:
        assert_equal(P.to_string(ov_core.get_property(ov_device_name, name)),
                     P.to_string(P.parse_value(name, values[last])), name,
                     call(ov_device_name, "get_property", name) + " after the threads ended")


def test_get_property_plugin_exists(ov_core: Any, ov_device_name: str) -> None:
    """CoreThreadingTest.smoke_GetProperty_PluginExists: concurrent reads see the value set before;
    then, as in OpenVINO, reads each followed by unload_plugin do not fail."""
    ov_core.set_property(ov_device_name, {P.PERF_COUNT: True})

    def body(t: int, i: int) -> None:
        value = ov_core.get_property(ov_device_name, P.PERF_COUNT)
        if value is not True:
            raise AssertionError(f"PERF_COUNT={value!r}, but should be True")
    _run_parallel(body, call(ov_device_name, "get_property", P.PERF_COUNT) + " from 4 threads")

    def unloading(t: int, i: int) -> None:
        ov_core.get_property(ov_device_name, P.PERF_COUNT)
        _unload(ov_core, ov_device_name)
    _run_parallel(unloading, call(ov_device_name, "get_property", P.PERF_COUNT) + " + unload_plugin from 4 threads",
                  UNLOAD_ITERATIONS)


def test_query_model(ov_core: Any, ov_device_name: str) -> None:
    """CoreThreadingTest.smoke_QueryModel: every thread gets the same answer, each call followed by
    unload_plugin."""
    models = [_models.build(n) for n in ("conv_pool_relu", "split_conv_concat", "kso", "matmul_bias")]
    expected = [dict(ov_core.query_model(m, ov_device_name)) for m in models]

    def body(t: int, i: int) -> None:
        got = dict(ov_core.query_model(models[(t + i) % 4], ov_device_name))
        _unload(ov_core, ov_device_name)
        if got != expected[(t + i) % 4]:
            raise AssertionError(f"query_model answer={got!r}, but should be {expected[(t + i) % 4]!r}")
    _run_parallel(body, call(ov_device_name, "query_model") + " + unload_plugin from 4 threads", UNLOAD_ITERATIONS)


def test_compile_model_with_unload(ov_core: Any, ov_device_name: str) -> None:
    """(–) compile_model and an asynchronous inference from 4 threads, each compile followed by
    unload_plugin: a compiled model and its requests keep working while their plugin is unloaded,
    a new one made and the old one released."""
    model = _models.build("conv_pool_relu")
    inputs = _models.make_inputs(model, seed=12)
    want = _models.expected("conv_pool_relu", inputs)[0]
    where = call(ov_device_name, "compile_model+start_async+wait") + " + unload_plugin from 4 threads"

    def body(t: int, i: int) -> None:
        compiled = ov_core.compile_model(model, ov_device_name)
        request = compiled.create_infer_request()
        _unload(ov_core, ov_device_name)
        request.start_async(inputs)
        if not request.wait_for(PATIENCE_S * 1000):
            raise AssertionError(f"request done={False}, but should be {True} within {PATIENCE_S} s of start_async "
                                 "(the request's executor stopped when the plugin was unloaded?)")
        assert_outputs_close(request.get_output_tensor(0).data, want, "output", where, rtol=1e-4, atol=1e-5)
    _run_parallel(body, where, COMPILE_ITERATIONS)


#: A model, its inputs (by tensor name) and the outputs one compile of it gave (in output order).
_Reference = tuple[Model, dict[str, np.ndarray], list[np.ndarray]]


def _reference_outputs(core: Any, device: str, names: list[str]) -> dict[str, _Reference]:
    out: dict[str, _Reference] = {}
    for name in names:
        model = _models.build(name)
        inputs = _models.make_inputs(model, seed=11)
        request = core.compile_model(model, device).create_infer_request()
        out[name] = (model, inputs, list(request.infer(inputs).values()))
    return out


def _compile_and_compare(core: Any, device: str, name: str, ref: _Reference) -> None:
    model, inputs, want = ref
    got = list(core.compile_model(model, device).create_infer_request().infer(inputs).values())
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert_outputs_close(g, w, f"{name} output {i}", call(device, "compile_model+infer", name), rtol=0, atol=0)


NAMES = ["conv_pool_relu", "split_conv_concat", "kso", "matmul_bias"]


def test_compile_model(ov_core: Any, ov_device_name: str) -> None:
    """CoreThreadingTestsWithIter.smoke_CompileModel."""
    models = [_models.build(n) for n in NAMES]

    def body(t: int, i: int) -> None:
        ov_core.compile_model(models[(t + i) % 4], ov_device_name)
    _run_parallel(body, call(ov_device_name, "compile_model") + " from 4 threads", COMPILE_ITERATIONS)


def test_compile_model_accuracy_single_core(ov_core: Any, ov_device_name: str) -> None:
    """CoreThreadingTestsWithIter.smoke_CompileModel_Accuracy_SingleCore: compiles from several
    threads on one Core compute exactly what a lone compile computes."""
    refs = _reference_outputs(ov_core, ov_device_name, NAMES)

    def body(t: int, i: int) -> None:
        name = NAMES[(t + i) % 4]
        _compile_and_compare(ov_core, ov_device_name, name, refs[name])
    _run_parallel(body, call(ov_device_name, "compile_model+infer") + " from 4 threads, one Core", COMPILE_ITERATIONS)


def test_compile_model_accuracy_multiple_cores(ov_core: Any, ov_device_name: str, ov_plugin_spec: str) -> None:
    """CoreThreadingTestsWithIter.smoke_CompileModel_Accuracy_MultipleCores: one Core per thread."""
    refs = _reference_outputs(ov_core, ov_device_name, NAMES)
    cores = [new_core(ov_plugin_spec, ov_device_name) for _ in range(THREADS)]

    def body(t: int, i: int) -> None:
        name = NAMES[(t + i) % 4]
        _compile_and_compare(cores[t], ov_device_name, name, refs[name])
    _run_parallel(body, call(ov_device_name, "compile_model+infer") + " from 4 threads, a Core each",
                  COMPILE_ITERATIONS)


def test_compile_model_multiple_cores(ov_device_name: str, ov_plugin_spec: str) -> None:
    """CoreThreadingTestsWithIter.smoke_CompileModel_MultipleCores: each thread makes its own Core."""
    model = _models.build("conv_pool_relu")

    def body(t: int, i: int) -> None:
        new_core(ov_plugin_spec, ov_device_name).compile_model(model, ov_device_name)
    _run_parallel(body, call(ov_device_name, "Core()+compile_model") + " from 4 threads", COMPILE_ITERATIONS)


def test_async_infer_share_input(ov_core: Any, ov_device_name: str) -> None:
    """CoreThreadingTestsWithIter.nightly_AsyncInfer_ShareInput: OPTIMAL_NUMBER_OF_INFER_REQUESTS
    (at least 2) requests share one input tensor and all compute the same output."""
    model = _models.build("conv_pool_relu")
    compiled = ov_core.compile_model(model, ov_device_name, {P.PERFORMANCE_HINT: "THROUGHPUT"})
    count = max(2, int(compiled.get_property(P.OPTIMAL_NUMBER_OF_INFER_REQUESTS)))
    inputs = _models.make_inputs(model, seed=2)
    shared = Tensor(inputs["data"], shared_memory=True)
    requests = [compiled.create_infer_request() for _ in range(count)]
    want = _models.expected("conv_pool_relu", inputs)[0]
    where = call(ov_device_name, "InferRequest.start_async", f"{count} requests, one shared input")
    for _ in range(5):
        for r in requests:
            r.set_tensor("data", shared)
            r.start_async()
        for r in requests:
            r.wait()
        for k, r in enumerate(requests):
            assert_outputs_close(r.get_output_tensor(0).data, want, f"request {k} output", where, rtol=1e-4, atol=1e-5)
    assert_that(np.array_equal(shared.data, inputs["data"]), "shared input", "changed", "unchanged", where)


def test_compiled_model_cache_enabled(ov_core: Any, ov_device_name: str, tmp_path: Path) -> None:
    """CoreThreadingTestsWithCacheEnabled.smoke_compiled_model_cache_enabled: parallel compiles
    with CACHE_DIR, including a model carrying rt_info, all compute the same numbers."""
    refs = _reference_outputs(ov_core, ov_device_name, NAMES)
    refs["kso"][0].rt_info["meta_data"] = {"framework": "ovconform", "note": "rt_info in the cache key"}
    ov_core.set_property({P.CACHE_DIR: str(tmp_path)})

    def body(t: int, i: int) -> None:
        name = NAMES[(t + i) % 4]
        _compile_and_compare(ov_core, ov_device_name, name, refs[name])
    _run_parallel(body, call(ov_device_name, "compile_model", "CACHE_DIR") + " from 4 threads", 5)
    if "EXPORT_IMPORT" in [str(c) for c in ov_core.get_property(ov_device_name, P.OPTIMIZATION_CAPABILITIES)]:
        assert_equal(len(list(tmp_path.glob("*.blob"))), len(NAMES), "blob files", str(tmp_path))
