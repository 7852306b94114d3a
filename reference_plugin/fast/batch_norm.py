"""batchnorm-blocks: BatchNormInference of f32/f64 data in float64 blocks that stay in cache.

The formula (:mod:`reference_plugin.ops.op_batch_norm_inference`) converts the whole tensor to
float64 and computes ``(x - mean) * scale + beta`` (``scale = gamma / sqrt(variance + eps)``)
with a new whole-tensor float64 temporary per operation, then rounds to the output type once:
five passes through memory over arrays twice the data's size. This route does the same
float64 operations, in the same order, on blocks of channel rows (:func:`.rows.map_row_blocks`,
on the run's intra-op threads when large), in one of three layouts:

* float32 data: each block is copied into a reused float64 work array, centred, scaled and
  shifted in place, and rounded into the output once;
* float64 data: the block's rows of the output are the work array (no copy in or out);
* rows shorter than :data:`SHORT_ROWS` (7x7 maps and smaller): the block is copied transposed
  into the work array, so each operation is one numpy loop over a block of channels per spatial
  position instead of one per channel row, and copied back transposed.

The output may be the data's own buffer (``write_into``: an in-place step, :mod:`.inplace`, after
a Convolution): each layout reads a block's rows of the data before it writes those rows of the
output, element for element where the output is the work array, and blocks are disjoint.

Not taken for float32 (numpy 2.4, ResNet-50 and MobileNet-v3 shapes against the copies: 0.64x to
0.97x on one thread): the mixed-type forms ``np.subtract(x_f32, mean, out=work)`` and
``np.add(work, beta, out=out_f32)``. numpy runs their casts through its ufunc buffer, which costs
more than the separate whole-block copies they save (the blocks stay in cache either way).

Bound: bit for bit (the same IEEE float64 operations on the same values, each element on its
own; numpy's ufuncs do not contract them). Applies to data of f32 or f64 with rank 2 or more
and :data:`MIN_ELEMENTS` elements or more, output of the same type, and per-channel inputs of
the data's channel count; everything else
(f16/bf16, a malformed input: the formula's error) keeps the formula.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from reference_plugin.fast import EXACT, kernel_route
from reference_plugin.fast.rows import map_row_blocks, row_buffer, work_rows
from reference_plugin.ops.op_batch_norm_inference import BatchNormInference1, BatchNormInference5

__all__ = ["BatchNormBlocks", "batch_norm_blocks"]

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
#: Smaller tensors keep the formula (its few whole-tensor passes stay in cache and cost less
#: than the blocks' calls).
MIN_ELEMENTS = 1 << 13
#: Rows (the elements of one channel) shorter than this are worked on transposed: numpy calls its
#: loop once per row for a row-by-column operation, and on rows of a few dozen elements those
#: calls cost more than the arithmetic; transposed, each call covers a whole block of channels.
#: Measured on f32 blocks against the row layout: 1.3x on 7x7 maps, 1.7x on 6x6, 2x to 6x on 5x5
#: down to 2x2; 0.8x on 8x8 and slower still on 14x14 (the transposed copies cost more there).
SHORT_ROWS = 50


Affine = tuple[np.ndarray, np.ndarray, np.ndarray]


def affine_rows(gamma: np.ndarray, beta: np.ndarray, mean: np.ndarray, variance: np.ndarray, eps: float,
                n: int) -> Affine:
    """``(mean, scale, beta)`` as float64 columns, one value per row of the ``(N*C, inner)``
    view of the data (``N`` copies of the channel values); ``scale`` as the formula computes it."""
    f64 = np.float64
    scale = np.asarray(gamma, f64) / np.sqrt(np.asarray(variance, f64) + eps)
    m, s, b = (np.tile(np.asarray(v, f64), n)[:, None] for v in (mean, scale, beta))
    return m, s, b


def batch_norm_blocks(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, mean: np.ndarray,
                      variance: np.ndarray, eps: float, affine: Affine | None = None,
                      out: np.ndarray | None = None) -> np.ndarray:
    """The formula's BatchNormInference of ``x`` ``(N, C, ...)`` (float32 or float64) over its
    channels, rounded to ``x``'s dtype; the per-channel inputs have shape ``(C,)``. ``affine``:
    their :func:`affine_rows` when the caller has them already. ``out``: a C-contiguous array of
    ``x``'s shape and dtype to write the result to, possibly ``x`` itself (each block of rows of
    ``x`` is read, into the work array or element by element into the same elements of ``out``,
    before those rows of ``out`` are written), else a new array."""
    n, c = x.shape[:2]
    inner = math.prod(x.shape[2:])
    m, s, b = affine if affine is not None else affine_rows(gamma, beta, mean, variance, eps, n)
    rows = np.ascontiguousarray(x).reshape(n * c, inner)
    result = np.empty(x.shape, x.dtype) if out is None else _checked_out(out, x)
    out = result.reshape(n * c, inner)  # (a view: out is C-contiguous)
    if not out.size:
        return result

    def short_rows(start: int, stop: int) -> None:  # rows of < SHORT_ROWS elements: worked on transposed
        work = work_rows(inner, stop - start)
        np.copyto(work, rows[start:stop].T)
        np.subtract(work, m[start:stop, 0], out=work)
        np.multiply(work, s[start:stop, 0], out=work)
        np.add(work, b[start:stop, 0], out=work)
        np.copyto(out[start:stop].T, work, casting="same_kind")

    def in_out(start: int, stop: int) -> None:  # float64 data: the output's own rows are the work array
        block = out[start:stop]
        with row_buffer(inner):
            np.subtract(rows[start:stop], m[start:stop], out=block)
            np.multiply(block, s[start:stop], out=block)
            np.add(block, b[start:stop], out=block)

    def through_work(start: int, stop: int) -> None:  # float32 data: through a float64 work array
        work = work_rows(stop - start, inner)
        np.copyto(work, rows[start:stop])
        with row_buffer(inner):
            np.subtract(work, m[start:stop], out=work)
            np.multiply(work, s[start:stop], out=work)
            np.add(work, b[start:stop], out=work)
        np.copyto(out[start:stop], work, casting="same_kind")

    block = short_rows if inner < SHORT_ROWS else in_out if x.dtype == np.float64 else through_work
    map_row_blocks(block, n * c, inner)
    return result


def _checked_out(out: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``out`` when it can take the result for ``x`` in place (C-contiguous, writable, of ``x``'s
    shape and dtype), else ValueError (a reshape of anything else would write a copy)."""
    if not (out.flags.c_contiguous and out.flags.writeable and out.shape == x.shape and out.dtype == x.dtype):
        raise ValueError(f"out must be a writable C-contiguous {x.dtype} array of shape {list(x.shape)}; got "
                         f"{out.dtype} {list(out.shape)} (C-contiguous {out.flags.c_contiguous}, writable "
                         f"{out.flags.writeable})")
    return out


def _frozen(a: object) -> bool:
    """Whether no array in ``a``'s chain of bases is writeable (its values cannot change)."""
    while isinstance(a, np.ndarray):
        if a.flags.writeable:
            return False
        a = a.base
    return True


@kernel_route("batchnorm-blocks", (BatchNormInference1, BatchNormInference5), EXACT,
              "f32/f64 data of rank 2 or more with output of its own type")
class BatchNormBlocks(BatchNormInference1):
    """BatchNormInference taking :func:`batch_norm_blocks` where it applies. The per-channel
    values of the last run are kept with the arrays they came from when those are read-only down
    to their base: a program passes its constants' same arrays every run, so they are computed once."""

    _last: tuple[tuple[np.ndarray, ...], int, Affine] | None = None

    def _run(self, *arrays: np.ndarray) -> tuple[np.ndarray, ...]:
        if not self._applies(arrays):
            return super()._run(*arrays)
        return (self._blocks(arrays, None),)

    def write_into(self, arrays: list[np.ndarray], out: np.ndarray) -> bool:
        """In-place steps (:mod:`.inplace`): what :meth:`_run` computes written into ``out`` (the
        data's buffer, or any C-contiguous array of the result's shape and dtype) when this
        route applies (True), else nothing written (False: run the kernel)."""
        if not self._applies(arrays):
            return False
        self._blocks(arrays, out)
        return True

    def _applies(self, arrays: Sequence[np.ndarray]) -> bool:
        x = arrays[self.order.index("data")]
        return (x.dtype in _FLOATS and x.ndim >= 2 and x.size >= MIN_ELEMENTS
                and self.out_types[0].to_dtype() == x.dtype
                and all(a.dtype == x.dtype for a in arrays) and all(d == x.dtype for d in self.in_dtypes)
                and all(a.shape == (x.shape[1],) for k, a in zip(self.order, arrays, strict=True) if k != "data"))

    def _blocks(self, arrays: Sequence[np.ndarray], out: np.ndarray | None) -> np.ndarray:
        v = dict(zip(self.order, arrays, strict=True))
        x = v["data"]
        params = (v["gamma"], v["beta"], v["mean"], v["variance"])
        last = self._last
        if (last is not None and last[1] == x.shape[0] and all(a is b for a, b in zip(last[0], params, strict=True))
                and all(map(_frozen, params))):
            affine = last[2]
        else:
            affine = affine_rows(*params, self.eps, x.shape[0])
            self._last = (params, x.shape[0], affine)
        if out is None:
            return batch_norm_blocks(x, *params, self.eps, affine)
        return batch_norm_blocks(x, *params, self.eps, affine, out=out)
