"""Task executors, the streams executor and the executor manager (ovconform/contract/executors.py)."""

from __future__ import annotations

import gc
import logging
import threading
import weakref

import pytest

from ovconform.contract.executors import (
    ExecutorManager,
    ImmediateExecutor,
    StreamsExecutor,
    StreamsExecutorConfig,
    get_executor_manager,
)
from ovconform.errors import OVConformError, ValidationError

pytestmark = pytest.mark.timeout(30)
JOIN = 10.0


def _threads(prefix: str) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith(prefix)]


def test_immediate_executor_runs_on_the_calling_thread() -> None:
    seen = []
    ImmediateExecutor().run(lambda: seen.append(threading.get_ident()))
    assert seen == [threading.get_ident()]


def test_streams_executor_runs_tasks_on_its_own_named_threads() -> None:
    ex = StreamsExecutor(StreamsExecutorConfig("t_named", streams=1))
    done, seen = threading.Event(), []
    ex.run(lambda: (seen.append(threading.current_thread().name), done.set()))
    assert done.wait(JOIN)
    assert seen == ["t_named_s0"]
    ex.shutdown()


def test_threads_start_on_first_use() -> None:
    ex = StreamsExecutor(StreamsExecutorConfig("t_lazy", streams=2, threads_per_stream=2))
    assert _threads("t_lazy") == []
    ex.run_and_wait([lambda: None])
    assert len(_threads("t_lazy")) == 4  # streams x threads_per_stream
    ex.shutdown()
    assert _threads("t_lazy") == []


def test_two_streams_run_two_tasks_at_the_same_time() -> None:
    ex = StreamsExecutor(StreamsExecutorConfig("t_two", streams=2))
    barrier = threading.Barrier(2, timeout=JOIN)
    ex.run_and_wait([barrier.wait, barrier.wait])  # deadlocks (timeout) with a single stream
    ex.shutdown()


def test_one_stream_keeps_fifo_order() -> None:
    ex = StreamsExecutor(StreamsExecutorConfig("t_fifo", streams=1))
    order: list[int] = []
    ex.run_and_wait([lambda i=i: order.append(i) for i in range(50)])
    assert order == list(range(50))
    ex.shutdown()


def test_run_and_wait_reraises_the_first_error() -> None:
    ex = StreamsExecutor(StreamsExecutorConfig("t_err", streams=2))

    def boom() -> None:
        raise ValueError("task failed")

    with pytest.raises(ValueError, match="task failed"):
        ex.run_and_wait([boom, lambda: None])
    ex.shutdown()


def test_a_raising_task_is_logged_and_the_thread_survives(caplog: pytest.LogCaptureFixture) -> None:
    ex = StreamsExecutor(StreamsExecutorConfig("t_survive", streams=1))
    done = threading.Event()

    def boom() -> None:
        raise RuntimeError("lost task")

    with caplog.at_level(logging.ERROR, logger="ovconform.executors"):
        ex.run(boom)
        ex.run(done.set)
        assert done.wait(JOIN)
    assert "a task raised inside an executor" in caplog.text
    ex.shutdown()


def test_parallel_for_uses_the_threads_of_the_current_stream() -> None:
    ex = StreamsExecutor(StreamsExecutorConfig("t_pfor", streams=1, threads_per_stream=3))
    barrier = threading.Barrier(3, timeout=JOIN)
    names: set[str] = set()
    lock = threading.Lock()

    def body(i: int) -> None:
        if i < 3:
            barrier.wait()  # only passes if three threads run bodies at once
        with lock:
            names.add(threading.current_thread().name)

    ex.run_and_wait([lambda: ex.parallel_for(9, body)])
    assert names == {"t_pfor_s0", "t_pfor_s0_h1", "t_pfor_s0_h2"}
    ex.shutdown()


def test_parallel_for_outside_a_stream_runs_serially_and_reraises() -> None:
    ex = StreamsExecutor(StreamsExecutorConfig("t_serial", streams=1, threads_per_stream=2))
    seen: list[int] = []
    ex.parallel_for(4, seen.append)
    assert seen == [0, 1, 2, 3]

    def body(i: int) -> None:
        if i == 5:
            raise KeyError("bad index 5")

    with pytest.raises(KeyError, match="bad index 5"):
        ex.run_and_wait([lambda: ex.parallel_for(8, body)])
    ex.shutdown()


def test_stream_id_inside_and_outside() -> None:
    ex = StreamsExecutor(StreamsExecutorConfig("t_sid", streams=1))
    ids: list[int] = []
    ex.run_and_wait([lambda: ids.append(StreamsExecutor.get_stream_id())])
    assert ids == [0]
    assert StreamsExecutor.get_stream_id() == -1
    ex.shutdown()


def test_shutdown_finishes_queued_tasks_then_refuses_new_ones() -> None:
    ex = StreamsExecutor(StreamsExecutorConfig("t_stop", streams=1))
    gate, count = threading.Event(), []
    ex.run(lambda: gate.wait(JOIN))
    for _ in range(5):
        ex.run(lambda: count.append(1))
    gate.set()
    ex.shutdown(wait=True)
    assert len(count) == 5 and ex.is_shut_down
    with pytest.raises(OVConformError, match="'t_stop' is shut down"):
        ex.run(lambda: None)


def test_garbage_collected_executor_stops_its_threads() -> None:
    ex = StreamsExecutor(StreamsExecutorConfig("t_gc", streams=2))
    ex.run_and_wait([lambda: None])
    threads = _threads("t_gc")
    assert len(threads) == 2
    ref = weakref.ref(ex)
    del ex
    gc.collect()
    assert ref() is None
    for t in threads:
        t.join(JOIN)
        assert not t.is_alive()


@pytest.mark.parametrize("kwargs", [{"name": ""}, {"name": "x", "streams": 0},
                                    {"name": "x", "threads_per_stream": -1}, {"name": "x", "streams": True}])
def test_config_is_validated(kwargs: dict) -> None:
    with pytest.raises(ValidationError):
        StreamsExecutorConfig(**kwargs)


def test_config_threads_is_streams_times_threads_per_stream() -> None:
    assert StreamsExecutorConfig("x", 3, 2).threads == 6


def test_manager_shares_named_executors() -> None:
    m = ExecutorManager()
    assert m.get_executor("wait") is m.get_executor("wait")
    assert m.get_executor("wait") is not m.get_executor("other")
    assert m.names() == ["other", "wait"]
    m.clear()
    assert m.executors_number() == 0


def test_manager_shares_only_idle_streams_executors() -> None:
    m = ExecutorManager()
    cfg = StreamsExecutorConfig("t_idle", streams=1)
    a = m.get_idle_cpu_streams_executor(cfg)
    b = m.get_idle_cpu_streams_executor(cfg)
    assert a is not b and a.in_use and b.in_use
    a.release()
    assert m.get_idle_cpu_streams_executor(cfg) is a
    assert m.get_idle_cpu_streams_executor(StreamsExecutorConfig("t_idle", streams=2)) not in (a, b)
    assert m.executors_number() == 3


def test_manager_clear_stops_idle_executors_now_and_busy_ones_on_release() -> None:
    m = ExecutorManager()
    busy = m.get_idle_cpu_streams_executor(StreamsExecutorConfig("t_clear"))
    idle = m.get_idle_cpu_streams_executor(StreamsExecutorConfig("t_clear"))
    idle.release()
    named = m.get_executor("t_clear")
    other = m.get_executor("t_keep")
    m.clear("t_clear")
    assert idle.is_shut_down and named.is_shut_down and not busy.is_shut_down
    assert m.names() == ["t_keep"] and not other.is_shut_down
    busy.run_and_wait([lambda: None])  # still usable by its holder
    busy.release()
    assert busy.is_shut_down
    assert m.get_executor("t_clear") is not named  # a fresh one after clear
    m.clear()


def test_process_wide_manager_is_a_singleton() -> None:
    assert get_executor_manager() is get_executor_manager()
