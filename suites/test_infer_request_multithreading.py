"""Requests from several threads (``ov_infer_request`` entity): OpenVINO's
``behavior/ov_infer_request/multithreading.hpp``, OVInferRequestMultithreadingTests — all M.

Three requests of one compiled model, each with its own input, used from three threads (sync,
async without and with wait, and waited in reverse order); every output is checked.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from ovconform.assertions import assert_outputs_close, call, fail, no_error
from ovconform.suites import _models
from ovconform.suites._helpers import PATIENCE_S

pytestmark = [pytest.mark.entity("ov_infer_request"), pytest.mark.mandatory]

NAME = "conv_pool_relu"


@pytest.fixture
def three(ov_core: Any, ov_device_name: str) -> tuple[list[Any], list[dict[str, Any]]]:
    model = _models.build(NAME)
    with no_error(call(ov_device_name, "compile_model", model.friendly_name)):
        compiled = ov_core.compile_model(model, ov_device_name)
    return [compiled.create_infer_request() for _ in range(3)], [_models.make_inputs(model, s) for s in range(3)]


def _in_threads(fn: Callable[[int], None], where: str) -> None:
    __tracebackhide__ = True
    errors: list[str] = []

    def run(k: int) -> None:
        try:
            fn(k)
        except Exception as e:  # noqa: BLE001 - reported with the call
            errors.append(f"request {k}: {type(e).__name__}: {e}")

    threads = [threading.Thread(target=run, args=(k,), daemon=True) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(PATIENCE_S)
    if any(t.is_alive() for t in threads):
        fail("threads", "still running", f"done within {PATIENCE_S} s", where)
    if errors:
        fail("errors", errors, "none", where)


def _check(requests: list[Any], inputs: list[dict[str, Any]], where: str) -> None:
    __tracebackhide__ = True
    for k, (request, values) in enumerate(zip(requests, inputs, strict=True)):
        assert_outputs_close(request.get_output_tensor(0).data, _models.expected(NAME, values)[0],
                             f"request {k} output", where, rtol=1e-4, atol=1e-5)


def test_3_sync_requests_from_threads(three: Any, ov_device_name: str) -> None:
    """canRun3SyncRequestsConsistentlyFromThreads."""
    requests, inputs = three
    where = call(ov_device_name, "InferRequest.infer") + " x3 from 3 threads"
    _in_threads(lambda k: requests[k].infer(inputs[k]), where)
    _check(requests, inputs, where)


def test_3_async_requests_from_threads_without_wait(three: Any, ov_device_name: str) -> None:
    """canRun3AsyncRequestsConsistentlyFromThreadsWithoutWait: started from threads, waited after."""
    requests, inputs = three
    where = call(ov_device_name, "InferRequest.start_async") + " x3 from 3 threads, wait() after"
    _in_threads(lambda k: requests[k].start_async(inputs[k]), where)
    with no_error(where):
        for r in requests:
            r.wait()
    _check(requests, inputs, where)


def test_3_async_requests_with_wait(three: Any, ov_device_name: str) -> None:
    """canRun3AsyncRequestsConsistentlyWithWait: each thread starts and waits its own request."""
    requests, inputs = three
    where = call(ov_device_name, "InferRequest.start_async+wait") + " x3 from 3 threads"

    def run(k: int) -> None:
        requests[k].start_async(inputs[k])
        requests[k].wait()
    _in_threads(run, where)
    _check(requests, inputs, where)


def test_3_async_requests_parallel_with_wait(three: Any, ov_device_name: str) -> None:
    """canRun3AsyncRequestsParallelWithWait: all started, then waited in reverse order, twice."""
    requests, inputs = three
    where = call(ov_device_name, "InferRequest.start_async") + " x3, wait() in reverse order"
    with no_error(where):
        for _ in range(2):
            for k, r in enumerate(requests):
                r.start_async(inputs[k])
            for r in reversed(requests):
                r.wait()
    _check(requests, inputs, where)
