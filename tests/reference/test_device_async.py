"""REFERENCE asynchronous inference: the three-stage pipeline, streams, exclusive requests, callbacks."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from device_models import (
    accumulator_model,
    collect_garbage_after_each_test,  # noqa: F401 - autouse fixture
    mixed_expected,
    mixed_model,
    rand,
)

from ovconform.api import ProfilingStatus, StreamsExecutor
from reference_plugin.async_infer_request import ReferenceAsyncInferRequest
from reference_plugin.plugin import ReferencePlugin
from reference_plugin.sync_infer_request import ReferenceSyncInferRequest


@pytest.fixture
def plugin() -> ReferencePlugin:
    return ReferencePlugin()


def record_threads(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Record the name of the thread each stage runs on (patched before requests are made)."""
    seen: dict[str, str] = {}
    for stage in ("_preprocess", "_start_pipeline", "_wait_pipeline", "_postprocess"):
        original: Callable[[Any], None] = getattr(ReferenceSyncInferRequest, stage)

        def wrapped(self: Any, _stage: str = stage, _original: Callable[[Any], None] = original) -> None:
            seen[_stage] = threading.current_thread().name
            _original(self)

        monkeypatch.setattr(ReferenceSyncInferRequest, stage, wrapped)
    return seen


def test_pipeline_stages_run_on_the_seeds_executors(plugin: ReferencePlugin, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = record_threads(monkeypatch)
    compiled = plugin.compile_model(mixed_model())
    request = compiled.create_infer_request()
    assert isinstance(request, ReferenceAsyncInferRequest) and request.wait_executor is plugin.wait_executor
    done = threading.Event()
    callback_thread: list[str] = []

    def callback(error: Any) -> None:
        callback_thread.append(threading.current_thread().name)
        done.set()

    request.set_callback(callback)
    x = rand(np.random.default_rng(0), 2, 3)
    request.start_async([x])
    request.wait()
    task = compiled.task_executor.name  # type: ignore[attr-defined]
    assert seen["_preprocess"].startswith(task) and seen["_start_pipeline"].startswith(task)
    assert seen["_wait_pipeline"].startswith(plugin.executor_names["wait"])
    assert seen["_postprocess"].startswith(task)
    assert done.is_set() and callback_thread[0].startswith(compiled.callback_executor.name)  # type: ignore[attr-defined]
    assert np.array_equal(request.results[0], mixed_expected(x))
    assert set(request.sync_request.stage_durations) == {"preprocess", "start_pipeline", "wait_pipeline",
                                                          "postprocess"}


def test_streams_run_requests_in_parallel(plugin: ReferencePlugin) -> None:
    compiled = plugin.compile_model(mixed_model(), {"NUM_STREAMS": 2})
    assert isinstance(compiled.task_executor, StreamsExecutor) and compiled.task_executor.config.streams == 2
    n = compiled.get_property("OPTIMAL_NUMBER_OF_INFER_REQUESTS")
    assert n == 2
    requests = [compiled.create_infer_request() for _ in range(2 * n)]
    rng = np.random.default_rng(1)
    inputs = [rand(rng, 2, 3) for _ in requests]
    for _ in range(3):
        for request, x in zip(requests, inputs, strict=True):
            request.start_async([x])
        for request, x in zip(requests, inputs, strict=True):
            request.wait()
            assert np.array_equal(request.results[0], mixed_expected(x))


def test_exclusive_async_requests_share_one_executor(plugin: ReferencePlugin) -> None:
    first = plugin.compile_model(mixed_model(), {"EXCLUSIVE_ASYNC_REQUESTS": True})
    second = plugin.compile_model(mixed_model(), {"EXCLUSIVE_ASYNC_REQUESTS": True, "NUM_STREAMS": 3})
    assert first.task_executor is second.task_executor
    assert first.task_executor.name == plugin.executor_names["exclusive"]  # type: ignore[attr-defined]
    assert plugin.compile_model(mixed_model()).task_executor is not first.task_executor
    request = second.create_infer_request()
    request.start_async([np.ones((2, 3), np.float32)])
    request.wait()
    assert np.array_equal(request.results[0], mixed_expected(np.ones((2, 3), np.float32)))


def test_callbacks_fire_once_per_async_run_and_never_for_sync(plugin: ReferencePlugin) -> None:
    request = plugin.compile_model(mixed_model()).create_infer_request()
    calls: list[Any] = []
    request.set_callback(calls.append)
    request.infer([np.ones((2, 3), np.float32)])
    assert calls == []
    for _ in range(3):
        request.start_async([np.ones((2, 3), np.float32)])
        request.wait()
    assert calls == [None, None, None]


def test_a_callback_error_surfaces_from_wait(plugin: ReferencePlugin) -> None:
    request = plugin.compile_model(mixed_model()).create_infer_request()

    def callback(error: Any) -> None:
        raise ValueError("callback failed")

    request.set_callback(callback)
    request.start_async([np.ones((2, 3), np.float32)])
    with pytest.raises(ValueError, match="callback failed"):
        request.wait()


def test_start_async_again_from_the_callback(plugin: ReferencePlugin) -> None:
    request = plugin.compile_model(accumulator_model()).create_infer_request()
    finished = threading.Event()
    runs = [0]

    def callback(error: Any) -> None:
        assert error is None
        runs[0] += 1
        if runs[0] < 10:
            request.start_async([np.float32([1, 1])])
        else:
            finished.set()

    request.set_callback(callback)
    request.start_async([np.float32([1, 1])])
    assert finished.wait(30)
    request.wait()
    assert request.query_state()[0].state.data.tolist() == [10, 10]


def test_requests_from_several_threads(plugin: ReferencePlugin) -> None:
    compiled = plugin.compile_model(accumulator_model(), {"NUM_STREAMS": 2, "PERF_COUNT": True})
    requests = [compiled.create_infer_request() for _ in range(3)]
    errors: list[BaseException] = []

    def work(index: int) -> None:
        try:
            for _ in range(5):
                if index % 2:
                    requests[index].infer([np.float32([index, 1])])
                else:
                    requests[index].start_async([np.float32([index, 1])])
                    requests[index].wait()
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert errors == []
    for index, request in enumerate(requests):
        assert request.query_state()[0].state.data.tolist() == [5 * index, 5]
        assert any(p.status == ProfilingStatus.EXECUTED for p in request.get_profiling_info())


def test_async_errors_surface_from_wait(plugin: ReferencePlugin) -> None:
    from ovconform import opset as ops
    from ovconform.errors import InferError
    from ovconform.ir import Model

    x = ops.parameter([2], np.int32, name="x")
    request = plugin.compile_model(Model([ops.divide(ops.constant(np.int32([4, 4])), x, name="div")], [x],
                                         "div")).create_infer_request()
    errors: list[Any] = []
    request.set_callback(errors.append)
    request.start_async([np.int32([2, 0])])
    with pytest.raises(InferError, match="stage 'start_pipeline' failed|div"):
        request.wait()
    assert len(errors) == 1 and isinstance(errors[0], InferError)
    request.start_async([np.int32([2, 1])])
    request.wait()
    assert request.results[0].tolist() == [2, 4]
