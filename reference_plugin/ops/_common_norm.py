"""Shared pieces of the "norm" family kernels: float64 computation and index inputs.

Floating-point kernels compute in float64 and round once to the output type (f16/bf16 included);
index inputs (axes, counts) that are not build-time constants are read at run time and checked,
so a bad value is an InferError naming the node and the value. Row-wise float32 fast routes
(Softmax, MVN) share :func:`map_row_blocks`, :func:`work_rows` and :class:`row_buffer`.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np

from ovconform.ir import Node, Type
from reference_plugin._parallel import BLOCK_BYTES, SPLIT_MIN, map_parts, threads
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import int_list, normalize_axes
from reference_plugin.ops._common_types import from_compute, to_compute


def to_f64(x: np.ndarray, t: Type) -> np.ndarray:
    """``x`` stored as ``t`` as float64."""
    return np.asarray(to_compute(x, t), dtype=np.float64)


def store_float(values: np.ndarray, t: Type) -> np.ndarray:
    """Round float64 results once to the floating-point type ``t``."""
    return from_compute(np.asarray(values, dtype=np.float64), t)


def mean_variance(x: np.ndarray, axes: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Mean and population variance of ``x`` over ``axes`` (kept as size-1 dims)."""
    mean = np.mean(x, axis=axes, keepdims=True)
    centred = x - mean
    return centred, np.mean(centred * centred, axis=axes, keepdims=True)


def trailing_rows(shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, int] | None:
    """``(rows, n)``: ``shape`` seen as rows of the ``n`` elements its trailing ``axes`` hold,
    when ``axes`` are exactly the last ``len(axes)`` axes (sorted, non-negative) and neither
    count is 0; else None."""
    first = len(shape) - len(axes)
    if not axes or tuple(axes) != tuple(range(first, len(shape))):
        return None
    n, rows = math.prod(shape[first:]), math.prod(shape[:first])
    return (rows, n) if rows and n else None


R = TypeVar("R")

#: Float64 elements in one block of row-wise work (:func:`map_row_blocks`): its work array and
#: a few passes over it stay in the L2 cache.
ROW_BLOCK_ELEMENTS = BLOCK_BYTES // 8


def map_row_blocks(fn: Callable[[int, int], R], rows: int, n: int) -> list[R]:
    """``fn(start, stop)`` over contiguous blocks of ``rows`` rows of ``n`` elements, in order:
    blocks of at most :data:`ROW_BLOCK_ELEMENTS` (at least one row), split over the run's
    intra-op threads (:mod:`reference_plugin._parallel`) when each gets
    :data:`~reference_plugin._parallel.SPLIT_MIN` elements. ``fn`` must write disjoint rows only."""
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

    Blocks of up to :data:`ROW_BLOCK_ELEMENTS` share one array per thread, kept between calls:
    a fresh one would cost the page faults of a new mapping on every call (512 KiB: ~15 us, a
    tenth of a Softmax over 64K elements). Its contents are garbage; the next call on the same
    thread overwrites them, so nothing returned may alias it.
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
    operand through the buffer: measured 1.9x (128 rows of 256 float64) and 1.4x (512 rows of 128)
    faster.
    Results are the same either way; only the iteration changes.
    """

    __slots__ = ("size", "saved")

    def __init__(self, n: int) -> None:
        self.size = min(np.getbufsize(), max(16, n - n % 16))
        self.saved = 0

    def __enter__(self) -> None:
        self.saved = np.setbufsize(self.size)

    def __exit__(self, *exc: object) -> None:
        np.setbufsize(self.saved)


class AxesOp(OpRun):
    """A kernel whose input 1 holds axes (constant at build time or read at run time)."""

    axes_input = 1

    def __init__(self, node: Node) -> None:
        super().__init__(node)
        const = self.const_input(self.axes_input)
        self.const_axes = None if const is None else int_list(const)

    def axes(self, given: np.ndarray, rank: int) -> tuple[int, ...]:
        values = self.const_axes if self.const_axes is not None else int_list(given)
        return tuple(sorted(normalize_axes(values, rank, "axes")))


#: Most elements a generating kernel (Range, Eye, OneHot) produces at run time.
MAX_OUTPUT_ELEMENTS = 1 << 26


def scalar(value: np.ndarray) -> np.generic:
    """The single value of a scalar or one-element input."""
    flat = np.asarray(value).reshape(-1)
    if flat.size != 1:
        raise ValueError(f"expected a scalar or a one-element tensor; got shape {list(np.shape(value))}")
    return flat[0]
