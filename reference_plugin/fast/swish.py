"""swish-blocks: Swish of f32/f64 data in float64 blocks that stay in cache.

The formula (:mod:`reference_plugin.ops.op_swish`) converts the whole tensor to float64 and
computes ``v / (1 + exp(-beta * v))`` with a new whole-tensor float64 temporary per operation:
five passes through memory over arrays twice the data's size (EfficientNet-B0 spends a third of
its time there). This route does the same float64 operations, in the same order, on blocks of
:data:`BLOCK` elements held in two float64 work arrays per thread, and rounds each block into
the output once; with intra-op threads (:mod:`.parallel`) large tensors share their blocks. The
output may be the data's own buffer (``write_into``: an in-place step, :mod:`.inplace`).

Bound: bit for bit (each element goes through the same IEEE float64 operations, and numpy's
``exp`` computes each element on its own). Applies to f32 or f64 data with output of its type;
f16/bf16 keep the formula.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from reference_plugin.fast import EXACT, kernel_route
from reference_plugin.fast.parallel import BLOCK_BYTES, SPLIT_MIN, map_shared, threads
from reference_plugin.fast.rows import workspace
from reference_plugin.ops._common_types import to_compute
from reference_plugin.ops.op_swish import Swish, scalar

__all__ = ["BLOCK", "SwishBlocks", "swish_blocks"]

#: Elements per block: the two float64 work arrays take :data:`~.parallel.BLOCK_BYTES`.
BLOCK = BLOCK_BYTES // 16
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _work_pair() -> tuple[np.ndarray, np.ndarray]:
    """Two float64 work arrays of :data:`BLOCK` elements in this thread's work buffer
    (:func:`~reference_plugin.fast.rows.workspace`, kept between calls)."""
    pair = workspace((2, BLOCK), np.float64)
    return pair[0], pair[1]


def swish_blocks(x: np.ndarray, beta: float, out: np.ndarray | None = None) -> np.ndarray:
    """The formula's ``x / (1 + exp(-beta * x))`` in float64, rounded to ``x``'s dtype: into
    ``out`` when given (a writable C-contiguous array of ``x``'s shape and dtype, possibly ``x``
    itself: each block is copied into the work array before its part of ``out`` is written),
    else into a new array."""
    flat = np.ascontiguousarray(x).reshape(-1)
    if out is None:
        result = np.empty(x.shape, x.dtype)
    elif out.flags.c_contiguous and out.flags.writeable and out.shape == x.shape and out.dtype == x.dtype:
        result = out
    else:
        raise ValueError(f"out must be a writable C-contiguous {x.dtype} array of shape {list(x.shape)}; got "
                         f"{out.dtype} {list(out.shape)}")
    out = result.reshape(-1)  # (a view)
    minus_b = -beta

    def part(starts: Iterable[int]) -> None:
        work_v, work_e = _work_pair()
        for start in starts:
            stop = min(start + BLOCK, flat.size)
            v, e = work_v[:stop - start], work_e[:stop - start]
            np.copyto(v, flat[start:stop])
            np.multiply(v, minus_b, out=e)
            np.exp(e, out=e)
            np.add(e, 1.0, out=e)
            np.divide(v, e, out=v)
            np.copyto(out[start:stop], v, casting="same_kind")

    n = threads() if flat.size >= 2 * SPLIT_MIN else 1
    map_shared(part, range(0, flat.size, BLOCK), n)
    return result


@kernel_route("swish-blocks", (Swish,), EXACT, "f32/f64 data with output of its own type")
class SwishBlocks(Swish):
    """Swish taking :func:`swish_blocks` for f32/f64 data."""

    def _run(self, x: np.ndarray, beta: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        if self._applies(x):
            return (swish_blocks(x, self._beta(beta)),)
        return super()._run(x, beta)

    def write_into(self, arrays: list[np.ndarray], out: np.ndarray) -> bool:
        """In-place steps (:mod:`.inplace`): what :meth:`_run` computes written into ``out`` (the
        data's buffer, or any C-contiguous array of the result's shape and dtype) when this
        route applies (True), else nothing written (False: run the kernel)."""
        x = arrays[0]
        if not self._applies(x) or (len(arrays) > 1 and arrays[1].size != 1):  # (a bad beta: the kernel's error)
            return False
        swish_blocks(x, self._beta(arrays[1] if len(arrays) > 1 else None), out)
        return True

    def _applies(self, x: np.ndarray) -> bool:
        return x.dtype in _FLOATS and self.in_dtypes[0] == x.dtype and self.out_types[0].to_dtype() == x.dtype

    def _beta(self, beta: np.ndarray | None) -> float:
        return 1.0 if beta is None else scalar(to_compute(beta, self.in_types[0]), "beta")
