"""Intra-op threads: one inference's large elementwise work split over the stream's cores.

A stream gets ``cores // streams`` cores (:mod:`.blas`): BLAS uses them inside a
matmul, and the block-wise elementwise code (chains, the unary-blocks route) uses them through
:func:`map_shared` (threads take blocks from one shared counter) or :func:`map_parts`
(contiguous groups of blocks), on the calling thread and on
a process-wide pool of ``cores - 1`` threads. numpy releases the GIL inside each ufunc loop, so
large blocks overlap well and small blocks do not, hence the sizes below.

The number of threads is set for the duration of one run (:func:`using`, a context variable, so
a pool thread itself never splits further) and is 1 unless the run asks for more. The values
are the same whatever the split: each block is computed by the same code on the same elements.
"""

from __future__ import annotations

import contextvars
import itertools
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, TypeVar

import numpy as np

__all__ = ["BLOCK_BYTES", "SPLIT_MIN", "map_parts", "map_shared", "threads", "using"]

T = TypeVar("T")
R = TypeVar("R")


def _l2_bytes() -> int:
    """The L2 cache of CPU 0 in bytes (Linux sysfs), 1 MiB where it cannot be read."""
    try:
        with open("/sys/devices/system/cpu/cpu0/cache/index2/size") as f:
            text = f.read().strip().upper()
    except OSError:
        return 1 << 20
    scale = {"K": 1 << 10, "M": 1 << 20}.get(text[-1:], 1)
    try:
        return int(text.rstrip("KM")) * scale
    except ValueError:
        return 1 << 20


#: Bytes of one block of block-wise elementwise work: a quarter of the L2 cache (a formula's
#: few temporaries stay in it), between 128 KiB and 1 MiB. Chains, whose members work in place
#: on one block, take twice this (:mod:`.chains`). Small blocks lose on two threads:
#: each numpy call hands the GIL over, and a hand-over costs tens of microseconds.
BLOCK_BYTES = min(1 << 20, max(128 << 10, _l2_bytes() // 4))
#: Fewest elements per thread worth splitting one kernel's work for (unary-blocks,
#: row-wise Softmax/MVN): handing work to the pool wakes a thread, which on a busy machine costs
#: more than a smaller kernel's whole run.
SPLIT_MIN = 1 << 17

#: Logical CPUs (os.cpu_count() reads /sys on every call; this is read once).
_CPUS = os.cpu_count() or 1
_threads: contextvars.ContextVar[int] = contextvars.ContextVar("reference_intra_op_threads", default=1)
_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None


def threads() -> int:
    """Threads the current run may use for its elementwise blocks (1 outside a run)."""
    return _threads.get()


@contextmanager
def using(n: int) -> Iterator[None]:
    """Let the code inside (one run, on this thread) split its block-wise work over ``n`` threads."""
    token = _threads.set(max(1, min(n, _CPUS)))
    try:
        yield
    finally:
        _threads.reset(token)


def _forget_pool() -> None:
    """In a forked child: the parent's pool threads do not exist there, so start a new pool."""
    global _pool, _lock
    _pool, _lock = None, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max(1, _CPUS - 1), thread_name_prefix="reference-intra-op")
        return _pool


def _quiet(fn: Callable[[Sequence[T]], R], group: Sequence[T]) -> R:
    with np.errstate(all="ignore"):  # numpy's error state is per thread; the run's is "ignore"
        return fn(group)


def map_parts(fn: Callable[[Sequence[T]], R], items: Sequence[T], n: int | None = None) -> list[R]:
    """``fn`` over ``n`` (default :func:`threads`) contiguous groups of ``items``, in order.

    The first group runs on the calling thread, the others on the pool, each with one thread
    (no nested splitting); an exception in any group is raised here after every group has
    finished (no group outlives the call). A group whose pool thread has not started by the time
    the calling thread is done with its own is taken back and run on the calling thread: on a
    core another runtime's thread is spinning on (OpenVINO's workers, another library's BLAS),
    a woken pool thread may wait a whole scheduler slice before it runs, and the call would wait
    with it. The values do not change: each group is computed by the same code either way.
    """
    n = min(threads() if n is None else n, len(items))
    if n <= 1:
        return [fn(items)]
    bounds = [len(items) * i // n for i in range(n + 1)]
    groups = [items[bounds[i]:bounds[i + 1]] for i in range(n)]
    pool = _executor()
    futures: list[Future[Any]] = [pool.submit(_quiet, fn, g) for g in groups[1:]]
    token = _threads.set(1)  # a group never splits again (the pool's threads are busy with the others)
    taken: dict[int, Any] = {}
    try:
        first = fn(groups[0])
        for i, f in enumerate(futures):
            if f.cancel():  # its pool thread has not started it: run it here instead of waiting
                taken[i] = _quiet(fn, groups[i + 1])
    finally:
        _threads.reset(token)
        for f in futures:
            f.cancel()  # the caller failed: groups not started are dropped, started ones finish
        errors = [f.exception() for f in futures if not f.cancelled()]  # waits for every started group
    for error in errors:
        if error is not None:
            raise error
    return [first, *(taken[i] if i in taken else f.result() for i, f in enumerate(futures))]


def map_shared(fn: Callable[[Iterable[T]], R], items: Sequence[T], n: int | None = None) -> list[R]:
    """``fn`` on ``n`` (default :func:`threads`) threads at once, each given an iterator that
    hands out ``items`` one at a time from one shared counter, so a thread slowed down (by another
    process's thread spinning on its core, say) simply takes fewer items; one result per thread.
    Every item goes to exactly one thread, in no fixed order: ``fn`` must not depend on it."""
    n = min(threads() if n is None else n, len(items))
    if n <= 1:
        return [fn(items)]
    counter = itertools.count()  # next() on it is atomic under the GIL

    def claim() -> Iterator[T]:
        while (i := next(counter)) < len(items):
            yield items[i]

    return map_parts(lambda _: fn(claim()), range(n), n)
