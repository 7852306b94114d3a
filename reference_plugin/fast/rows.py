"""Row-wise work in blocks, for the float32 Softmax and MVN routes (:mod:`.softmax`, :mod:`.mvn`).

A tensor reduced over its trailing axes is a stack of rows; :func:`map_row_blocks` hands
contiguous blocks of rows to a function, on the run's intra-op threads when the work is large
enough; :func:`work_rows` gives each thread one float64 work array it keeps between calls; and
:class:`row_buffer` shortens numpy's ufunc buffer for row-by-scalar operations.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np

from reference_plugin.fast.parallel import BLOCK_BYTES, SPLIT_MIN, map_parts, threads

__all__ = ["ROW_BLOCK_ELEMENTS", "map_row_blocks", "row_buffer", "trailing_rows", "work_rows"]

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


_work = threading.local()


def work_rows(rows: int, n: int) -> np.ndarray:
    """A float64 ``(rows, n)`` work array for one block of :func:`map_row_blocks`.

    Blocks of up to :data:`ROW_BLOCK_ELEMENTS` share one array per thread, kept between calls
    (a fresh one would cost the page faults of a new mapping on every call). Its contents are
    garbage; the next call on the same thread overwrites them, so nothing returned may alias it.
    """
    size = rows * n
    if size > ROW_BLOCK_ELEMENTS:
        return np.empty((rows, n), np.float64)
    buf = getattr(_work, "buf", None)
    if buf is None:
        buf = _work.buf = np.empty(ROW_BLOCK_ELEMENTS, np.float64)
    return buf[:size].reshape(rows, n)


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
