"""Requests from several threads (``ov_infer_request`` entity): OpenVINO's
``behavior/ov_infer_request/multithreading.hpp``, OVInferRequestMultithreadingTests — all M.

OpenVINO runs three requests of a tiny model, so the runs hardly overlap. Here :data:`N`
requests of one compiled model run :func:`~ovconform.suites._models.long_run_model` (10-20 ms a
run on REFERENCE), from :data:`N` threads released together at a barrier, each request with its
own inputs, and every output is checked against the oracle REFERENCE is checked against: a
device whose requests share input, output or scratch memory, or that mixes up whose run is
whose, gives some request another request's numbers. (The four bodies: sync runs from threads,
async runs started from threads and waited after, each thread starting and waiting its own, and
all started then waited in reverse order, twice.) Two more bodies run a model with Convolution,
MaxPool and MatMul (kernels with scratch memory a device may share between the requests of a
compiled model), :data:`KERNEL_RUNS` runs a thread: infer() from threads, and start_async + wait
from threads on a THROUGHPUT compile.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from ovconform import opset as ops
from ovconform import properties as P
from ovconform.assertions import assert_outputs_close, call, fail, no_error
from ovconform.ir import Model, Type
from ovconform.suites import _models
from ovconform.suites._helpers import LONG_RUN_TOLERANCE, PATIENCE_S, long_run_expected, long_run_inputs

pytestmark = [pytest.mark.entity("ov_infer_request"), pytest.mark.mandatory]

#: Requests and threads (OpenVINO uses 3).
N = 4


@pytest.fixture
def requests(ov_core: Any, ov_device_name: str) -> list[Any]:
    model = _models.long_run_model()
    with no_error(call(ov_device_name, "compile_model", model.friendly_name)):
        compiled = ov_core.compile_model(model, ov_device_name)
    with no_error(call(ov_device_name, "CompiledModel.create_infer_request", f"x{N}")):
        return [compiled.create_infer_request() for _ in range(N)]


def _inputs(k: int) -> dict[str, Any]:
    return long_run_inputs(k)


def _in_threads(fn: Callable[[int], None], where: str, count: int = N) -> None:
    """``fn(k)`` on ``count`` threads that start together (a barrier), each with its own k."""
    __tracebackhide__ = True
    errors: list[str] = []
    barrier = threading.Barrier(count)

    def run(k: int) -> None:
        try:
            barrier.wait(PATIENCE_S)
            fn(k)
        except Exception as e:  # noqa: BLE001 - reported with the call
            errors.append(f"request {k}: {type(e).__name__}: {e}")

    threads = [threading.Thread(target=run, args=(k,), daemon=True) for k in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(PATIENCE_S)
    if any(t.is_alive() for t in threads):
        fail("threads", "still running", f"done within {PATIENCE_S} s", where)
    if errors:
        fail("errors", errors, "none", where)


def _check(requests: list[Any], where: str) -> None:
    """Request k's output must be the oracle's for request k's inputs."""
    __tracebackhide__ = True
    for k, request in enumerate(requests):
        with no_error(where):
            got = request.get_output_tensor(0).data
        assert_outputs_close(got, long_run_expected(k), f"request {k} output (for its own inputs)", where,
                             **LONG_RUN_TOLERANCE)


def test_3_sync_requests_from_threads(requests: list[Any], ov_device_name: str) -> None:
    """canRun3SyncRequestsConsistentlyFromThreads (with N requests)."""
    where = call(ov_device_name, "InferRequest.infer") + f" x{N} from {N} threads released together"
    _in_threads(lambda k: requests[k].infer(_inputs(k)), where)
    _check(requests, where)


def test_3_async_requests_from_threads_without_wait(requests: list[Any], ov_device_name: str) -> None:
    """canRun3AsyncRequestsConsistentlyFromThreadsWithoutWait: started from threads, waited after."""
    where = call(ov_device_name, "InferRequest.start_async") + f" x{N} from {N} threads, wait() after"
    _in_threads(lambda k: requests[k].start_async(_inputs(k)), where)
    with no_error(where):
        for r in requests:
            r.wait()
    _check(requests, where)


def test_3_async_requests_with_wait(requests: list[Any], ov_device_name: str) -> None:
    """canRun3AsyncRequestsConsistentlyWithWait: each thread starts and waits its own request."""
    where = call(ov_device_name, "InferRequest.start_async+wait") + f" x{N} from {N} threads"

    def run(k: int) -> None:
        requests[k].start_async(_inputs(k))
        requests[k].wait()
    _in_threads(run, where)
    _check(requests, where)


def test_3_async_requests_parallel_with_wait(requests: list[Any], ov_device_name: str) -> None:
    """canRun3AsyncRequestsParallelWithWait: all started, then waited in reverse order, twice."""
    where = call(ov_device_name, "InferRequest.start_async") + f" x{N}, wait() in reverse order"
    with no_error(where):
        for _ in range(2):
            for k, r in enumerate(requests):
                r.start_async(_inputs(k))
            for r in reversed(requests):
                r.wait()
    _check(requests, where)


# -- requests of a model with stateful kernels ----------------------------------------------------------
#: Requests (and threads) of the stateful-kernel tests, the runs each thread makes, and the streams of
#: their asynchronous test. Requests that share a scratch buffer only mix up runs that overlap at the
#: wrong moment: a device with one Convolution workspace per compiled model gave 2 to 30 wrong
#: outputs in 4 x 50 asynchronous runs on 2 streams (none in some batches of 4 x 12), and 28 to 54
#: in 8 x 50 on 4 streams.
KERNEL_REQUESTS, KERNEL_RUNS, KERNEL_STREAMS = 8, 50, 4
KERNEL_SHAPE = (1, 32, 48, 48)
#: How far a concurrent run's output may be from the same input's output run alone on the device
#: (relative to its largest magnitude): requests mixing up scratch memory give other inputs' values,
#: errors of the order of the values; the bound leaves room for a reduced-precision device whose
#: reductions split differently between runs.
KERNEL_TOLERANCE = 1e-2


def _kernel_weights() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(77)
    conv = (rng.standard_normal((32, 32, 3, 3)) * 0.1).astype(np.float32)
    dense = (rng.standard_normal((24 * 24, 32)) * 0.05).astype(np.float32)
    return conv, dense


def _kernel_model() -> Model:
    """Convolution 3x3 (32 -> 32 channels, 48x48) -> MaxPool 2x2 -> Relu -> Reshape [32, 576] ->
    MatMul [576, 32]: the ops whose kernels keep scratch memory (im2col buffers, pooling windows, GEMM
    packing) that a device may be tempted to allocate once per compiled model."""
    conv_w, dense_w = _kernel_weights()
    x = ops.parameter(list(KERNEL_SHAPE), Type.f32, name="data")
    x.output(0).set_names({"data"})
    conv = ops.convolution(x, ops.constant(conv_w, name="conv_w"), [1, 1], [1, 1], [1, 1], [1, 1], name="conv")
    pool = ops.max_pool(conv, [2, 2], [1, 1], [0, 0], [0, 0], [2, 2], version=1, name="pool")
    relu = ops.relu(pool, name="relu")
    flat = ops.reshape(relu, ops.constant(np.array([32, 24 * 24], np.int64), name="flat_shape"), False, name="flat")
    out = ops.matmul(flat, ops.constant(dense_w, name="dense_w"), False, False, name="dense")
    out.output(0).set_names({"out"})
    return Model([out], [x], "ConvPoolMatMul")


def _kernel_inputs(k: int) -> dict[str, np.ndarray]:
    return {"data": np.random.default_rng(500 + k).standard_normal(KERNEL_SHAPE).astype(np.float32)}


def _kernel_requests(core: Any, device: str, config: dict[str, Any]) -> list[Any]:
    model = _kernel_model()
    with no_error(call(device, "compile_model", model.friendly_name, config)):
        compiled = core.compile_model(model, device, config)
    with no_error(call(device, "CompiledModel.create_infer_request", f"x{KERNEL_REQUESTS}")):
        return [compiled.create_infer_request() for _ in range(KERNEL_REQUESTS)]


def _alone(requests: list[Any], where: str) -> list[np.ndarray]:
    """Each request's inputs run alone, one after another, on the first request: what the device
    computes for them with nothing else running (its numbers are judged by the op and model suites;
    here only whether running at once changes them)."""
    __tracebackhide__ = True
    with no_error(where + "; each input alone first"):
        return [np.array(requests[0].infer(_kernel_inputs(k))[0]) for k in range(len(requests))]


def _close(got: Any, alone: np.ndarray) -> bool:
    return bool(np.allclose(got, alone, rtol=0.0, atol=KERNEL_TOLERANCE * float(np.max(np.abs(alone)))))


def _run_kernel_threads(requests: list[Any], how: str, where: str) -> None:
    """Threads released together, thread k running request k :data:`KERNEL_RUNS` times with its own
    inputs (``infer()``, or ``start_async`` + ``wait``); every run's output is checked as it comes back
    against the same input's output computed alone (:func:`_alone`)."""
    __tracebackhide__ = True
    alone = _alone(requests, where)
    wrong: list[str] = []

    def run(k: int) -> None:
        request, inputs = requests[k], _kernel_inputs(k)
        for i in range(KERNEL_RUNS):
            if how == "infer":
                got = request.infer(inputs)[0]
            else:
                request.start_async(inputs)
                request.wait()
                got = request.get_output_tensor(0).data
            if not _close(got, alone[k]):
                wrong.append(f"request {k} run {i}")

    _in_threads(run, where, len(requests))
    if wrong:
        fail("outputs", f"{len(wrong)} of {len(requests) * KERNEL_RUNS} runs wrong ({', '.join(wrong[:6])})",
             "each run's output the same as its inputs' run alone", where)
    for k, request in enumerate(requests):
        with no_error(where):
            got = request.get_output_tensor(0).data
        assert_outputs_close(got, alone[k], f"request {k} output of its last run (vs. its inputs run alone)",
                             where, rtol=0.0, atol=KERNEL_TOLERANCE * float(np.max(np.abs(alone[k]))))


def test_sync_requests_with_stateful_kernels_from_threads(ov_core: Any, ov_device_name: str) -> None:
    """canRun3SyncRequestsConsistentlyFromThreads on a model with Convolution, MaxPool and MatMul
    (:func:`_kernel_model`): :data:`KERNEL_REQUESTS` requests of one compiled model, each with its
    own inputs, run :data:`KERNEL_RUNS` times from as many threads released together. A device
    whose kernels stage inputs or partial results in scratch memory shared by the requests of a
    compiled model (one workspace per kernel, not per request) gives some run another run's data."""
    requests = _kernel_requests(ov_core, ov_device_name, {})
    _run_kernel_threads(requests, "infer", call(ov_device_name, "InferRequest.infer", "ConvPoolMatMul") +
                        f" x{KERNEL_RUNS} from {KERNEL_REQUESTS} threads")


def test_async_requests_with_stateful_kernels_throughput(ov_core: Any, ov_device_name: str,
                                                         ov_supported_properties: dict[str, str]) -> None:
    """canRun3AsyncRequestsConsistentlyWithWait on the same model compiled with
    PERFORMANCE_HINT=THROUGHPUT and :data:`KERNEL_STREAMS` streams (which run requests at once;
    each property where the device lists it): each of :data:`KERNEL_REQUESTS` threads starts and
    waits its own request :data:`KERNEL_RUNS` times; every output is its own inputs'."""
    wanted = {P.PERFORMANCE_HINT: "THROUGHPUT", P.NUM_STREAMS: KERNEL_STREAMS}
    config = {name: value for name, value in wanted.items() if name in ov_supported_properties}
    requests = _kernel_requests(ov_core, ov_device_name, config)
    _run_kernel_threads(requests, "async", call(ov_device_name, "InferRequest.start_async+wait", "ConvPoolMatMul",
                                                config) + f" x{KERNEL_RUNS} from {KERNEL_REQUESTS} threads")
