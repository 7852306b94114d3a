"""reference_plugin/fast/parallel.py: groups in order, errors raised after every group ended, the
thread count scoped to one run, numpy's error state quiet on the pool's threads."""

from __future__ import annotations

import threading
import time
import warnings
from collections.abc import Sequence

import numpy as np
import pytest

from reference_plugin.fast import parallel


def test_groups_are_contiguous_in_order_and_run_on_several_threads() -> None:
    seen: list[str] = []

    def fn(group: Sequence[int]) -> list[int]:
        seen.append(threading.current_thread().name)
        time.sleep(0.01)
        return list(group)

    parts = parallel.map_parts(fn, range(10), 3)
    assert [x for p in parts for x in p] == list(range(10)) and len(parts) == 3
    assert threading.current_thread().name in seen
    assert parallel.map_parts(fn, range(10), 1) == [list(range(10))]
    assert parallel.map_parts(fn, [7], 4) == [[7]]  # never more groups than items


def test_an_error_in_a_pool_group_is_raised_after_every_group_finished() -> None:
    finished: list[int] = []

    def fn(group: Sequence[int]) -> None:
        if group[0] != 0:
            raise ValueError(f"group from {group[0]}")
        time.sleep(0.05)
        finished.append(group[0])

    with pytest.raises(ValueError, match="group from"):
        parallel.map_parts(fn, range(4), 2)
    assert finished == [0]


def test_threads_are_scoped_to_using() -> None:
    assert parallel.threads() == 1
    with parallel.using(2):
        inner = parallel.threads()
        in_groups = parallel.map_parts(lambda g: parallel.threads(), range(2), 2)
        after = parallel.threads()
    assert parallel.threads() == 1
    assert inner == after == min(2, parallel.os.cpu_count() or 1)
    assert in_groups == [1, 1]  # no group splits again, on the caller's thread or the pool's


def test_pool_threads_ignore_floating_point_warnings() -> None:
    big = np.full(4, 1000.0, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="ignore"):
            out = parallel.map_parts(lambda g: np.exp(big), range(4), 2)
    assert all(np.isinf(o).all() for o in out)


@pytest.mark.skipif(not hasattr(parallel.os, "fork"), reason="needs fork")
def test_a_forked_child_gets_its_own_pool() -> None:
    """The parent's pool threads do not survive fork(): a child splitting work must not wait on them."""
    import os

    assert parallel.map_parts(lambda g: list(g), range(4), 2) == [[0, 1], [2, 3]]  # the parent's pool exists
    pid = os.fork()
    if pid == 0:  # the child: exit 0 only when the split completes
        code = 1
        try:
            done = threading.Event()
            threading.Thread(target=lambda: (parallel.map_parts(lambda g: list(g), range(4), 2), done.set()),
                             daemon=True).start()
            code = 0 if done.wait(10) else 3
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_shared_items_go_to_exactly_one_thread_and_a_slow_thread_takes_fewer() -> None:
    taken: dict[str, list[int]] = {}
    lock = threading.Lock()

    def fn(items: object) -> int:
        name = threading.current_thread().name
        count = 0
        for item in items:  # type: ignore[attr-defined]
            if name != threading.main_thread().name:
                time.sleep(0.02)  # the pool's thread is slow
            with lock:
                taken.setdefault(name, []).append(item)
            count += 1
        return count

    counts = parallel.map_shared(fn, list(range(40)), 2)
    assert sorted(x for items in taken.values() for x in items) == list(range(40)) and sum(counts) == 40
    assert counts[0] > counts[1]  # the caller's (fast) thread took more
    assert parallel.map_shared(lambda items: list(items), [1, 2, 3], 1) == [[1, 2, 3]]


def test_a_group_whose_pool_thread_never_starts_runs_on_the_caller() -> None:
    """Every pool thread is busy (as when another runtime's thread spins on their cores): the call
    does not wait for them, it runs the groups they did not start itself, in order."""
    release = threading.Event()
    pool = parallel._executor()
    blockers = [pool.submit(release.wait, 30) for _ in range(pool._max_workers)]
    try:
        seen: list[str] = []

        def fn(group: Sequence[int]) -> list[int]:
            seen.append(threading.current_thread().name)
            return list(group)

        start = time.perf_counter()
        parts = parallel.map_parts(fn, range(9), 3)
        assert time.perf_counter() - start < 5
        assert parts == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
        assert set(seen) == {threading.current_thread().name}
    finally:
        release.set()
        for b in blockers:
            b.result(timeout=30)
