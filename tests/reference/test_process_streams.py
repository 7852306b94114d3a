"""REFERENCE_PROCESS_STREAMS (reference_plugin/fast/process_streams.py): streams in worker processes
compute what the in-process program computes, with callbacks, counters, state and cancel, survive a
dead worker, carry no pickle and end with their compiled model."""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from ovconform import Core, Model
from ovconform import opset as ops
from ovconform import properties as P
from ovconform.errors import CancelledError, InferError
from ovconform.ir import Type
from reference_plugin.fast.process_streams import decode, encode
from reference_plugin.properties import PROCESS_STREAMS

pytestmark = pytest.mark.timeout(300)
CONFIG = {P.PERFORMANCE_HINT: "THROUGHPUT", P.NUM_STREAMS: 2, PROCESS_STREAMS: True}


def _model() -> Model:
    x = ops.parameter([2, 8], Type.f32, "x")
    w = ops.constant(np.linspace(-1, 1, 64, dtype=np.float32).reshape(8, 8), name="w")
    return Model([ops.sigmoid(ops.matmul(x, w, False, False), name="y")], [x], "small")


def _stateful() -> Model:
    x = ops.parameter([1, 4], Type.f32, "x")
    var = ops.read_value(ops.constant(np.zeros((1, 4), np.float32)), "acc")
    total = ops.add(var, x, name="total")
    return Model([ops.result(total, name="out")], [x], "acc", sinks=[ops.assign(total, "acc")])


def test_messages_are_json_and_raw_bytes() -> None:
    arrays = [np.arange(6, dtype=np.float32).reshape(2, 3), np.array([True, False]), np.zeros((0, 4), np.int64),
              np.float64(2.5) * np.ones(()), np.arange(12, dtype=np.int8).reshape(3, 4)[:, ::2]]
    header, back = decode(encode({"k": 1}, arrays))
    assert header == {"k": 1}
    assert all(a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
               for a, b in zip(arrays, back, strict=True))
    assert all(b.flags.writeable for b in back)
    with pytest.raises(InferError, match="numeric dtypes only"):
        encode({}, [np.array(["text"], dtype=object)])
    good = encode({}, [np.ones(4, np.float32)])
    for bad in (good[:-1], good + b"x", good.replace(b"<f4", b"|O8")):
        with pytest.raises(ValueError):
            decode(bad)


def test_workers_compute_what_the_program_computes() -> None:
    core = Core()
    compiled = core.compile_model(_model(), "REFERENCE", {**CONFIG, P.PERF_COUNT: True})
    plain = core.compile_model(_model(), "REFERENCE").create_infer_request()
    assert compiled.runner is not compiled.program and compiled.get_property(PROCESS_STREAMS) is True
    assert compiled.get_property(P.OPTIMAL_NUMBER_OF_INFER_REQUESTS) == 2  # one per worker (4 below: two queue)
    requests = [compiled.create_infer_request() for _ in range(4)]
    data = [np.random.default_rng(i).standard_normal((2, 8)).astype(np.float32) for i in range(4)]
    done = threading.Semaphore(0)
    for r in requests:
        r.set_callback(lambda _e: done.release())
    for r, d in zip(requests, data, strict=True):
        r.start_async([d])
    for r, d in zip(requests, data, strict=True):
        r.wait()
        plain.infer([d])
        assert np.array_equal(r.get_output_tensor(0).data, plain.get_output_tensor(0).data)
    assert all(done.acquire(timeout=10) for _ in requests)
    executed = [i for i in requests[0].get_profiling_info() if i.status.name == "EXECUTED"]
    assert {i.node_name for i in executed} >= {"y"} and all(i.real_time.total_seconds() > 0 for i in executed)


def test_variable_state_goes_to_the_worker_and_back() -> None:
    request = Core().compile_model(_stateful(), "REFERENCE", CONFIG).create_infer_request()
    for step in range(1, 4):
        request.infer([np.ones((1, 4), np.float32)])
        assert np.array_equal(request.get_output_tensor(0).data, np.full((1, 4), step, np.float32))
    request.reset_state()
    request.infer([np.ones((1, 4), np.float32)])
    assert np.array_equal(request.query_state()[0].state.data, np.ones((1, 4), np.float32))


def test_a_dead_worker_fails_its_run_and_is_replaced() -> None:
    compiled = Core().compile_model(_model(), "REFERENCE", {**CONFIG, P.NUM_STREAMS: 1})
    request = compiled.create_infer_request()
    x = np.ones((2, 8), np.float32)
    request.infer([x])
    (worker,) = compiled.runner._all
    os.kill(worker.process.pid, signal.SIGKILL)
    worker.process.wait(5)
    with pytest.raises(InferError, match=r"worker process \(pid \d+\) ended during the run \(exit code -9\)"):
        request.infer([x])
    request.infer([x])  # a new worker
    assert compiled.runner._all[0] is not worker


def test_cancel_while_a_worker_computes_and_errors_from_the_worker() -> None:
    from ovconform.suites._models import slow_model, slow_oracle

    request = Core().compile_model(slow_model(), "REFERENCE", CONFIG).create_infer_request()
    x = np.full((1024, 1024), 3.0, np.float32)
    request.infer([x])  # the worker is ready
    request.start_async([x])
    request.cancel()
    with pytest.raises(CancelledError):
        request.wait()
    request.infer([x])  # the worker was given back: the request runs normally again
    assert np.array_equal(request.get_output_tensor(0).data, slow_oracle(x))
    # a kernel error inside the worker comes back as the run's InferError
    probs = ops.parameter([1, 3], Type.f32, "p")
    model = Model([ops.multinomial(probs, ops.constant(np.int64(2)), "i64", True, False, 1, 2)], [probs])
    request = Core().compile_model(model, "REFERENCE", CONFIG).create_infer_request()
    with pytest.raises(InferError, match="negative"):
        request.infer([np.array([[0.5, -1.0, 0.5]], np.float32)])


def test_workers_end_with_their_compiled_model() -> None:
    compiled = Core().compile_model(_model(), "REFERENCE", CONFIG)
    compiled.create_infer_request().infer([np.ones((2, 8), np.float32)])
    processes = [w.process for w in compiled.runner._all]
    assert len(processes) == 2
    del compiled
    gc.collect()
    deadline = time.monotonic() + 10
    while any(p.poll() is None for p in processes) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert all(p.poll() is not None for p in processes)


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: THROUGHPUT gives one stream")
def test_the_throughput_hints_choose_worker_processes_started_on_first_use() -> None:
    core = Core()
    for hint, processes in (("LATENCY", False), ("THROUGHPUT", True), ("CUMULATIVE_THROUGHPUT", True)):
        compiled = core.compile_model(_model(), "REFERENCE", {P.PERFORMANCE_HINT: hint})
        assert compiled.get_property(PROCESS_STREAMS) is processes, hint
        assert (compiled.runner is not compiled.program) is processes, hint
    assert compiled.runner._all == []  # nothing started before the first inference
    request = compiled.create_infer_request()
    request.infer([np.ones((2, 8), np.float32)])
    assert len(compiled.runner._all) == 1
    program = core.compile_model(_model(), "REFERENCE").program
    assert np.array_equal(request.get_output_tensor(0).data, program.run([np.ones((2, 8), np.float32)], {})[0][0])
    # the user's choice wins; one stream never needs a process
    for config in ({P.PERFORMANCE_HINT: "THROUGHPUT", PROCESS_STREAMS: False},
                   {P.PERFORMANCE_HINT: "THROUGHPUT", P.NUM_STREAMS: 1}):
        compiled = core.compile_model(_model(), "REFERENCE", config)
        assert compiled.get_property(PROCESS_STREAMS) is False and compiled.runner is compiled.program
    assert core.get_property("REFERENCE", PROCESS_STREAMS) is False


def test_a_device_derived_from_reference_keeps_threads_under_the_hint() -> None:
    """Its own code (wrapped kernels, requests) lives in its process, not in a worker built from the IR."""
    from reference_plugin.plugin import ReferencePlugin

    class Derived(ReferencePlugin):
        device_name = "REFDERIVED"

    core = Core([Derived], discover=False)
    compiled = core.compile_model(_model(), "REFDERIVED", {P.PERFORMANCE_HINT: "THROUGHPUT"})
    assert compiled.get_property(PROCESS_STREAMS) is False and compiled.runner is compiled.program


def test_api_suites_pass_with_stream_workers(tmp_path: Path) -> None:
    """A slice of the API suites (callbacks, cancel, state, counters, threads) against REFERENCE
    with REFERENCE_PROCESS_STREAMS on by default (tests/plugins/process_streams_device.py). The
    whole API suite passes too (503 tests, ~2.5 min with -n 2): too long for CI."""
    import ovconform.suites

    suites = Path(ovconform.suites.__file__).parent
    device = Path(__file__).parents[1] / "plugins" / "process_streams_device.py"
    modules = ["test_infer_request_callback.py", "test_infer_request_cancellation.py", "test_infer_request_state.py",
               "test_infer_request_perf_counters.py", "test_infer_request_multithreading.py"]
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", f"--plugin={device}",
                           "--ovconform-report-dir", str(tmp_path / "rep"), *[str(suites / m) for m in modules]],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "REFPROC" in proc.stdout and " failed" not in proc.stdout
