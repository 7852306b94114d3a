"""Requests from several threads (``ov_infer_request`` entity): OpenVINO's
``behavior/ov_infer_request/multithreading.hpp``, OVInferRequestMultithreadingTests — all M.

OpenVINO runs three requests of a tiny model, so the runs hardly overlap. Here :data:`N`
requests of one compiled model run :func:`~ovconform.suites._models.long_run_model` (10-20 ms a
run on REFERENCE), from :data:`N` threads released together at a barrier, each request with its
own inputs, and every output is checked against the oracle REFERENCE is checked against: a
device whose requests share input, output or scratch memory, or that mixes up whose run is
whose, gives some request another request's numbers. (The four bodies: sync runs from threads,
async runs started from threads and waited after, each thread starting and waiting its own, and
all started then waited in reverse order, twice.)
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from ovconform.assertions import assert_outputs_close, call, fail, no_error
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


def _in_threads(fn: Callable[[int], None], where: str) -> None:
    """``fn(k)`` on N threads that start together (a barrier), each with its own k."""
    __tracebackhide__ = True
    errors: list[str] = []
    barrier = threading.Barrier(N)

    def run(k: int) -> None:
        try:
            barrier.wait(PATIENCE_S)
            fn(k)
        except Exception as e:  # noqa: BLE001 - reported with the call
            errors.append(f"request {k}: {type(e).__name__}: {e}")

    threads = [threading.Thread(target=run, args=(k,), daemon=True) for k in range(N)]
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
