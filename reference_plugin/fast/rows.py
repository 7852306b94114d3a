"""Row-wise work in blocks, for the float32 Softmax and MVN routes (:mod:`.softmax`, :mod:`.mvn`).

A tensor reduced over its trailing axes is a stack of rows; :func:`map_row_blocks` hands
contiguous blocks of rows to a function, on the run's intra-op threads when the work is large
enough; :func:`work_rows` gives a float64 work array from the thread's one work buffer
(:func:`workspace`, which the convolution's lowered rows share); and :class:`row_buffer` shortens
numpy's ufunc buffer for row-by-scalar operations.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np

from reference_plugin.fast.parallel import BLOCK_BYTES, SPLIT_MIN, map_parts, threads

__all__ = ["ROW_BLOCK_ELEMENTS", "WORKSPACE_BYTES", "map_row_blocks", "row_buffer", "trailing_rows", "work_rows",
           "workspace", "workspace_bytes"]

R = TypeVar("R")

#: Float64 elements in one block of row-wise work (:func:`map_row_blocks`): its work array and
#: a few passes over it stay in the L2 cache.
ROW_BLOCK_ELEMENTS = BLOCK_BYTES // 8


def trailing_rows(shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, int] | None:
    """``(rows, n)``: ``shape`` seen as rows of the ``n`` elements its trailing ``axes`` hold,
    when ``axes`` are exactly the last ``len(axes)`` axes (sorted, non-negative) and neither
    count is 0; else None."""
    first = len(shape) - len(axes)
    if not axes or tuple(axes) != tuple(range(first, len(shape))):
        return None
    n, rows = math.prod(shape[first:]), math.prod(shape[:first])
    return (rows, n) if rows and n else None


def map_row_blocks(fn: Callable[[int, int], R], rows: int, n: int) -> list[R]:
    """``fn(start, stop)`` over contiguous blocks of ``rows`` rows of ``n`` elements, in order:
    blocks of at most :data:`ROW_BLOCK_ELEMENTS` (at least one row), split over the run's
    intra-op threads (:mod:`.parallel`) when each gets :data:`~.parallel.SPLIT_MIN` elements.
    ``fn`` must write disjoint rows only."""
    per_block = max(1, ROW_BLOCK_ELEMENTS // max(1, n))
    parts = min(threads(), rows)
    if parts > 1 and rows * n >= parts * SPLIT_MIN:
        per_block = min(per_block, -(-rows // parts))
    else:
        parts = 1

    def run(starts: Sequence[int]) -> list[R]:
        return [fn(start, min(start + per_block, rows)) for start in starts]

    return [r for group in map_parts(run, range(0, rows, per_block), parts) for r in group]


#: Bytes of the work buffer a thread keeps between calls (:func:`workspace`): the row-wise
#: routes' float64 blocks (:data:`ROW_BLOCK_ELEMENTS`) and the convolution's lowered rows
#: (``reference_plugin.fast.convolution``) fit.
WORKSPACE_BYTES = 2 * BLOCK_BYTES

_work = threading.local()


def workspace(shape: tuple[int, ...], dtype: np.dtype | type) -> np.ndarray:
    """An uninitialised ``shape`` array of ``dtype`` in this thread's one work buffer, kept
    between calls and shared by every user (the row-wise routes' work arrays, the convolution's
    lowered rows): half :data:`WORKSPACE_BYTES` (every row-wise block, Swish's pair, a float32
    elementwise chunk fits), the whole of it from the first request that needs more (the lowered
    rows); a larger request gets a fresh array. Two sizes only: a buffer grown step by step left
    each smaller one as a hole in the heap. Each user kept its own buffer before, so a thread
    held the sum of them; now it holds the largest.

    Its contents are garbage, and the next call on the same thread hands out the same memory:
    a caller must be done with the array before it calls anything that asks for a workspace
    (none of the users calls another while it holds one), and nothing returned may alias it.
    """
    dtype = np.dtype(dtype)
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes > WORKSPACE_BYTES:
        return np.empty(shape, dtype)
    buf: np.ndarray | None = getattr(_work, "buf", None)
    if buf is None or buf.nbytes < nbytes:
        _work.buf = None  # the smaller buffer goes before the larger one is made
        half = WORKSPACE_BYTES // 2
        buf = _work.buf = np.empty(half if nbytes <= half else WORKSPACE_BYTES, np.uint8)
    return buf[:nbytes].view(dtype).reshape(shape)


def workspace_bytes() -> int:
    """Bytes of this thread's work buffer (0 before its first :func:`workspace`)."""
    buf: np.ndarray | None = getattr(_work, "buf", None)
    return 0 if buf is None else buf.nbytes


def work_rows(rows: int, n: int) -> np.ndarray:
    """A float64 ``(rows, n)`` work array for one block of :func:`map_row_blocks`.

    Blocks of up to :data:`ROW_BLOCK_ELEMENTS` take it from the thread's :func:`workspace` (a
    fresh array would cost the page faults of a new mapping on every call); larger ones get a
    fresh array. Its contents are garbage; the next call on the same thread overwrites them, so
    nothing returned may alias it.
    """
    if rows * n > ROW_BLOCK_ELEMENTS:
        return np.empty((rows, n), np.float64)
    return workspace((rows, n), np.float64)


class row_buffer:  # noqa: N801 - used as a context manager, like numpy's errstate
    """``with row_buffer(n):`` ufuncs use a buffer no longer than a row of ``n`` elements (a
    multiple of 16, at least 16, at most numpy's current size; restored on exit).

    For an op between C-contiguous rows and one value per row (``rows * scale[:, None]``) numpy
    then runs its loop on each row in place, where a longer buffer makes it copy the stride-0
    operand through the buffer. Results are the same either way; only the iteration changes.
    """

    __slots__ = ("saved", "size")

    def __init__(self, n: int) -> None:
        self.size = min(np.getbufsize(), max(16, n - n % 16))
        self.saved = 0

    def __enter__(self) -> None:
        self.saved = np.setbufsize(self.size)

    def __exit__(self, *exc: object) -> None:
        np.setbufsize(self.saved)
