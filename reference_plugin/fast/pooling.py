"""maxpool-separable and avgpool-separable: MaxPool's window maxima and AvgPool's window sums
folded axis by axis.

The formula (:func:`reference_plugin.ops.op_max_pool.window_max`) folds ``np.maximum`` over
each window's taps in row-major order, one pass over the output per tap (9 for 3x3). This route
folds separably: the last spatial axis first (one pass per kernel offset along it, over every
padded row), then each axis before it over the partial results, so overlapping windows share
the row folds (3x3 stride 1: 4 passes, not 9) and no window is copied.

Bound: bit for bit. The fold order of each window's elements is kept and ``np.maximum`` is
associative as numpy implements it, signed zeros (a tie returns the later operand) and NaNs
(the earlier NaN wins) included. Applies to every MaxPool (the indices output is unchanged).

**avgpool-separable**: the formula (:mod:`reference_plugin.ops.op_avg_pool`) sums each window of
the float64 padded input with numpy's ``sum`` over the window's two axes of a sliding-window
view, whose inner loops are a kernel row long (Inception-v2 spent a third of its time there).
numpy adds each window row left to right, then the row sums top to bottom; this route computes
the row sums once per padded row (:func:`window_row_sums`, shared by the vertically overlapping
windows) and adds them top to bottom, on blocks of channels that stay in cache, then divides by
the formula's own counts. Bound: bit for bit (the same float64 additions in the same order; a
window of ``-0`` sums to ``+0`` as numpy's does). Applies to float data and output, 2 spatial
dims, no dilation and kernels of 2 to 7 columns and at most 7 rows: where numpy would sum a row
of 8 or more pairwise, or iterate the windows in another order, the formula runs.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from ovconform.ir import Type
from reference_plugin.fast import EXACT, kernel_route
from reference_plugin.fast.parallel import BLOCK_BYTES, SPLIT_MIN, map_shared, threads
from reference_plugin.ops._common_types import from_compute, to_compute
from reference_plugin.ops._common_window import Plan, WindowSpec
from reference_plugin.ops.op_avg_pool import AvgPool1, AvgPool14, AvgPool16
from reference_plugin.ops.op_max_pool import MaxPool1, MaxPool8, MaxPool14

__all__ = ["SeparableAvgPool", "SeparableMaxPool", "fold_blocks", "fold_separably", "window_sums"]


def fold_separably(x: np.ndarray, spec: WindowSpec, plan: Plan, pad_value: float | int,
                   ufunc: np.ufunc = np.maximum) -> np.ndarray:
    """``ufunc`` (np.maximum or np.minimum) folded over every window of ``x`` padded with
    ``pad_value``, axis by axis (see the module docstring); a new array.

    Large inputs are folded in blocks of channels (:func:`fold_blocks`), each padded on its own
    into a cache-sized array and folded into its part of the output: every output element is
    the same fold of the same elements, and the padded copy and the partial folds never exist
    for the whole tensor (on a 64-channel 112x112 input they were 5 MiB, twice the output)."""
    if ufunc not in (np.maximum, np.minimum):
        raise ValueError(f"fold_separably folds np.maximum or np.minimum, not {ufunc!r}")
    return fold_blocks(x, spec, plan, pad_value, ufunc, BLOCK_BYTES)


def fold_blocks(x: np.ndarray, spec: WindowSpec, plan: Plan, pad_value: float | int, ufunc: np.ufunc,
                block_bytes: int) -> np.ndarray:
    """:func:`fold_separably` over blocks of the flattened ``N * C`` channels whose padded copy
    takes about ``block_bytes`` (at least one channel per block); the whole tensor at once when it
    fits in one. Blocks share the run's intra-op threads when the output is large."""
    rows = math.prod(x.shape[:2])
    padded = math.prod(s + b + e for s, b, e in zip(x.shape[2:], plan.pads_begin, plan.extra_end, strict=True))
    per_block = max(1, block_bytes // max(1, x.itemsize * padded))
    if per_block >= rows or x.ndim < 3:
        return _fold(x, spec, plan, pad_value, ufunc)
    flat = x.reshape(1, rows, *x.shape[2:])
    first = _fold(flat[:, :per_block], spec, plan, pad_value, ufunc)
    out = np.empty((1, rows, *first.shape[2:]), first.dtype)
    out[:, :per_block] = first
    del first

    def part(starts: Iterable[int]) -> None:
        for start in starts:
            out[:, start:start + per_block] = _fold(flat[:, start:start + per_block], spec, plan, pad_value, ufunc)

    map_shared(part, range(per_block, rows, per_block), threads() if out.size >= 2 * SPLIT_MIN else 1)
    return out.reshape(*x.shape[:2], *out.shape[2:])


def _fold(x: np.ndarray, spec: WindowSpec, plan: Plan, pad_value: float | int, ufunc: np.ufunc) -> np.ndarray:
    """The fold of :func:`fold_separably` over the whole of ``x``; a new array."""
    n = len(spec.kernel)
    acc = spec.padded(x, plan, pad_value)
    # the rows no window reaches (floor rounding's remainder) are left out of the first folds
    acc = acc[(slice(None), slice(None), *(slice(0, (o - 1) * s + dk)
                                           for o, s, dk in zip(plan.out, spec.strides, spec.dilated, strict=True)))]
    for axis in reversed(range(n)):
        k, d, o, s = spec.kernel[axis], spec.dilations[axis], plan.out[axis], spec.strides[axis]
        parts = [(slice(None),) * (2 + axis) + (slice(j * d, j * d + (o - 1) * s + 1, s),) for j in range(k)]
        if k == 1:
            acc = acc[parts[0]]
            continue
        folded = ufunc(acc[parts[0]], acc[parts[1]])
        for pick in parts[2:]:
            ufunc(folded, acc[pick], out=folded)
        acc = folded
    return acc if acc.base is None and acc is not x else acc.copy()


@kernel_route("maxpool-separable", (MaxPool1, MaxPool8, MaxPool14), EXACT, "every MaxPool")
class SeparableMaxPool(MaxPool1):
    """MaxPool computing its window maxima with :func:`fold_separably`."""

    def window_max(self, data: np.ndarray, plan: Plan) -> np.ndarray:
        return fold_separably(data, self.spec, plan, self.pad_value)


def window_sums(x: np.ndarray, spec: WindowSpec, plan: Plan, counts: np.ndarray | None = None,
                dtype: Any = np.float64) -> np.ndarray:
    """The float64 sum of every window of ``x`` ``(N, C, H, W)`` padded with zeros, in the
    formula's order (see the module docstring): ``(N, C, *plan.out)``. With ``counts`` (one
    divisor per output position) each block's sums are divided by them in float64 and stored
    rounded to ``dtype`` (a float dtype): the formula's average without a float64 array of the
    whole output."""
    n_batch, channels = x.shape[:2]
    rows = n_batch * channels
    (kh, kw), (sh, sw), (dh, dw), (oh, ow) = spec.kernel, spec.strides, spec.dilations, plan.out
    (pt, pl), (eb, er) = plan.pads_begin, plan.extra_end
    hp, wp = x.shape[2] + pt + eb, x.shape[3] + pl + er
    hp_used = (oh - 1) * sh + (kh - 1) * dh + 1  # rows some window reaches
    flat = x.reshape(rows, *x.shape[2:])
    out = np.empty((rows, oh, ow), dtype)
    per_block = max(1, BLOCK_BYTES // max(1, 8 * (hp * wp + hp_used * ow)))
    zero = np.zeros((), np.float64)
    direct = counts is None and out.dtype == np.float64

    def part(starts: Any) -> None:
        for start in starts:
            stop = min(start + per_block, rows)
            padded = np.zeros((stop - start, hp, wp), np.float64)
            padded[:, pt:pt + x.shape[2], pl:pl + x.shape[3]] = flat[start:stop]
            row_sums = window_row_sums(padded[:, :hp_used], kw, sw, dw, ow)
            total = out[start:stop] if direct else np.empty((stop - start, oh, ow), np.float64)
            np.add(zero, row_sums[:, 0:(oh - 1) * sh + 1:sh], out=total)  # (+0 first: a -0 sum is +0)
            for i in range(1, kh):
                total += row_sums[:, i * dh:i * dh + (oh - 1) * sh + 1:sh]
            if counts is not None:
                np.divide(total, counts, out=total)
            if not direct:
                np.copyto(out[start:stop], total, casting="same_kind")

    starts = range(0, rows, per_block)
    map_shared(part, starts, threads() if out.size >= 2 * SPLIT_MIN else 1)
    return out.reshape(n_batch, channels, oh, ow)


#: Output types :func:`~reference_plugin.ops._common_types.from_compute` stores with a plain cast.
_PLAIN = (Type.f32, Type.f64)


def window_row_sums(padded: np.ndarray, kw: int, sw: int, dw: int, ow: int) -> np.ndarray:
    """For every row of ``padded`` ``(..., W)``: the sums of the ``ow`` window rows of ``kw``
    elements (stride ``sw``, dilation ``dw``), added left to right; a new array."""
    acc = padded[..., 0:(ow - 1) * sw + 1:sw].copy()
    for j in range(1, kw):
        acc += padded[..., j * dw:j * dw + (ow - 1) * sw + 1:sw]
    return acc


@kernel_route("avgpool-separable", (AvgPool1, AvgPool14, AvgPool16), EXACT,
              "float data and output, 2 spatial dims, no dilation, kernels of 2-7 columns and 1-7 rows")
class SeparableAvgPool(AvgPool1):
    """AvgPool summing its windows with :func:`window_sums`; the counts are the formula's, kept
    per input shape."""

    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        spec = self.spec
        if not (x.ndim == 4 and len(spec.kernel) == 2 and 2 <= spec.kernel[1] < 8 and spec.kernel[0] < 8
                and spec.dilations == (1, 1) and self.t.is_real() and self.out_t.is_real()):
            return super()._run(x)
        plan = spec.plan(x.shape[2:])
        if any(p < 0 for p in (*plan.pads_begin, *plan.extra_end)):
            return super()._run(x)  # the formula's error
        counts = self._counts(x.shape[2:], plan)
        if counts is None:  # a window with no elements: the formula's where
            return super()._run(x)
        data = to_compute(x, self.t)
        if self.out_t in _PLAIN:  # the rounding to the output type is a plain cast: done block by block
            return (window_sums(data, spec, plan, counts, self.out_t.to_dtype()),)
        total = window_sums(data, spec, plan)
        np.divide(total, counts, out=total)
        return (from_compute(total, self.out_t),)

    def _counts(self, spatial: tuple[int, ...], plan: Plan) -> np.ndarray | None:
        """The formula's divisor per output position (None when some window is empty)."""
        cache: dict[tuple[int, ...], np.ndarray | None] = self.__dict__.setdefault("_count_cache", {})
        if spatial not in cache:
            if not self.exclude_pad and self.spec.has_padding(plan):
                count = np.full(plan.out, float(math.prod(self.spec.kernel)))
            else:
                ones = np.ones((1, 1, *spatial))
                count = self.spec.windows(ones, plan, 0).sum(axis=(-2, -1))[0, 0]
            cache[spatial] = count if bool(np.all(count > 0)) else None
        return cache[spatial]
