"""Load: 16 threads × 500 inferences across 4 asynchronous requests of one REFERENCE compiled model
(THROUGHPUT hint, so several streams run at once), with a completion callback on every request.

Threads take an idle request from a shared pool, give it inputs unique to (thread, iteration),
start it and wait; the callback copies the output. Checked: every one of the 8,000 outputs is
bit-identical to the same input run sequentially on one request; every run's callback was called
exactly once, with no error; the threads all finish within a deadline (no deadlock), and the pool
ends with its 4 requests idle.
"""

from __future__ import annotations

import queue
import threading
import time
from collections import Counter
from typing import Any

import numpy as np
import pytest

from ovconform import Core
from ovconform.suites import _models

THREADS, ITERATIONS, REQUESTS = 16, 500, 4
DEADLINE_S = 240.0


def _inputs(model: Any) -> dict[tuple[int, int], np.ndarray]:
    shape = tuple(model.input(0).get_shape())
    rng = np.random.default_rng(12)
    return {(t, i): rng.standard_normal(shape).astype(np.float32) for t in range(THREADS) for i in range(ITERATIONS)}


class Pool:
    """Four requests, each with a callback that files the output of the job it is running."""

    def __init__(self, compiled: Any) -> None:
        self.idle: queue.Queue[Any] = queue.Queue()
        self.job: dict[int, tuple[int, int]] = {}
        self.outputs: dict[tuple[int, int], np.ndarray] = {}
        self.calls: Counter[tuple[int, int]] = Counter()
        self.errors: list[Any] = []
        self.lock = threading.Lock()
        for _ in range(REQUESTS):
            request = compiled.create_infer_request()
            request.set_callback(self._callback_for(request))
            self.idle.put(request)

    def _callback_for(self, request: Any) -> Any:
        def callback(error: Any) -> None:
            key = self.job[id(request)]
            output = None if error is not None else np.array(request.get_output_tensor(0).data)
            with self.lock:
                self.calls[key] += 1
                if error is not None:
                    self.errors.append((key, error))
                else:
                    self.outputs[key] = output

        return callback

    def run(self, thread: int, inputs: dict[tuple[int, int], np.ndarray]) -> None:
        for i in range(ITERATIONS):
            request = self.idle.get(timeout=DEADLINE_S)
            try:
                self.job[id(request)] = (thread, i)
                request.start_async({0: inputs[(thread, i)]})
                request.wait()
            finally:
                self.idle.put(request)


@pytest.mark.timeout(300)
def test_16_threads_500_inferences_4_requests() -> None:
    core = Core()
    model = _models.build("relu")
    compiled = core.compile_model(model, "REFERENCE", {"PERFORMANCE_HINT": "THROUGHPUT"})
    inputs = _inputs(model)

    sequential = compiled.create_infer_request()
    start = time.perf_counter()
    want = {key: np.array(sequential.infer({0: x})[compiled.output()]) for key, x in inputs.items()}
    sequential_s = time.perf_counter() - start

    pool, failures = Pool(compiled), []

    def worker(t: int) -> None:
        try:
            pool.run(t, inputs)
        except BaseException as e:  # noqa: BLE001 - reported below
            failures.append((t, repr(e)))

    threads = [threading.Thread(target=worker, args=(t,), daemon=True) for t in range(THREADS)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join(max(0.0, DEADLINE_S - (time.perf_counter() - start)))
    loaded_s = time.perf_counter() - start
    stuck = [t.name for t in threads if t.is_alive()]
    assert not stuck, f"deadlock: {len(stuck)} thread(s) still running after {DEADLINE_S} s"
    assert failures == [] and pool.errors == []
    time.sleep(0.05)  # a late second callback would land here
    total = THREADS * ITERATIONS
    assert len(pool.calls) == total and set(pool.calls.values()) == {1}, Counter(pool.calls.values())
    wrong = [key for key, out in pool.outputs.items() if not np.array_equal(out, want[key])]
    assert not wrong and len(pool.outputs) == total, f"{len(wrong)} outputs differ from sequential, e.g. {wrong[:3]}"
    assert pool.idle.qsize() == REQUESTS
    print(f"load: {total} async inferences on {THREADS} threads x {REQUESTS} requests in {loaded_s:.2f} s "
          f"({total / loaded_s:.0f}/s); sequential {sequential_s:.2f} s ({total / sequential_s:.0f}/s)")
