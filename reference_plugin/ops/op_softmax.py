"""Softmax-1 (``axis`` >= 0) and Softmax-8 (negative ``axis`` counts from the end).

Stable: ``exp(x - shift) / sum`` along ``axis``. Every element type but f32 computes it in
float64 with ``shift`` = the row's max and rounds once to the output type (:func:`softmax`).

f32 takes a faster route with the same float64 arithmetic (:func:`softmax_f32`). Softmax does
not depend on the shift, so it is one scalar for the whole tensor: that max (along the last
axis: none while the max is within ±300, where ``exp`` cannot overflow); per-row maxima and
their broadcast passes are gone. Along the last axis, blocks of rows
(:func:`~reference_plugin.ops._common_norm.map_row_blocks`) are copied into a reused float64
work array (f32 → float64 is exact, and so is the difference of two f32 values), exponentiated
in place, summed per row (einsum) and multiplied by the
float64 ``1/sum`` straight into the f32 output: one rounding. A row whose sum is below
``e**-600`` (its max lies ~600 or more below the shift, where ``exp`` would reach float64's
subnormals) and a tensor holding NaN or ±inf take the row-max route instead, so the results
there (NaN rows, all ``-inf`` rows) are exactly the float64 ones.

Accuracy against the row-max float64 result rounded once (tests/reference/test_kernel_accuracy_norm.py):
bound 1 ulp (a last-bit difference of the float64 intermediates may flip one rounding);
measured 0 ulp on random, large (±1e4), offset, tiny, equal-valued, masked (``-inf``/-1e30)
and far-apart rows. Speed on (1, 4, 128, 128) along the last axis: 0.40 ms → 0.22 ms per call
in the attention anchor's bench (direct calls: 0.75 → 0.17 ms, the old one paying page faults
for its four float64 temporaries).
"""

from __future__ import annotations

import math

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import normalize_axis
from reference_plugin.ops._common_norm import map_row_blocks, row_buffer, work_rows
from reference_plugin.ops._common_types import from_compute, to_compute

#: Smallest row sum of ``exp(x - shift)`` the f32 route accepts: a term it holds below
#: float64's normal range (exp(-708.4)) is then below exp(-108) of the row's total, so it
#: rounds to 0 in f32 either way.
_MIN_ROW_SUM = math.exp(-600.0)
#: Largest |max(x)| for which the f32 route takes exp(x) unshifted (one pass less): every term is
#: then at most exp(300), so a row sum overflows only past 1e178 elements.
_NO_SHIFT = 300.0
#: Fewest elements for the f32 route: below, its fixed cost loses (8x10: 18.5 us against 8.6 us).
_FAST_MIN = 4096


def softmax(x: np.ndarray, axis: int) -> np.ndarray:
    """Softmax of ``x`` along ``axis`` in ``x``'s dtype, shifted by each row's max."""
    e = x - np.maximum.reduce(x, axis=axis, keepdims=True)
    np.exp(e, out=e)
    e /= np.add.reduce(e, axis=axis, keepdims=True)
    return e


def softmax_f32(x: np.ndarray, axis: int) -> np.ndarray | None:
    """Softmax of the float32 array ``x`` along ``axis`` (rank >= 1), computed in float64 and
    rounded once to float32; None when a row needs the row-max route (see the module doc)."""
    if x.size == 0:
        return None
    shift = np.max(x)
    if not np.isfinite(shift):
        return None
    if axis != x.ndim - 1:
        e = np.empty(x.shape, np.float64)
        np.subtract(x, np.float64(shift), out=e)
        np.exp(e, out=e)
        sums = np.add.reduce(e, axis=axis, keepdims=True)
        if not sums.min() >= _MIN_ROW_SUM:
            return None
        np.multiply(e, np.reciprocal(sums), out=e)
        return e.astype(np.float32)
    n = x.shape[-1]
    rows = np.ascontiguousarray(x).reshape(-1, n)
    out = np.empty(rows.shape, np.float32)
    shift64 = np.float64(shift) if abs(shift) > _NO_SHIFT else None

    def block(start: int, stop: int) -> bool:
        e = work_rows(stop - start, n)
        np.copyto(e, rows[start:stop])
        if shift64 is not None:
            np.subtract(e, shift64, out=e)
        np.exp(e, out=e)
        sums = np.einsum("ij->i", e)
        if not sums.min() >= _MIN_ROW_SUM:
            return False
        with row_buffer(n):
            np.multiply(e, np.reciprocal(sums)[:, None], out=out[start:stop])
        return True

    return out.reshape(x.shape) if all(map_row_blocks(block, rows.shape[0], n)) else None


@register_op("Softmax", since=1)
class Softmax1(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.axis: int = self.attr("axis")
        self.t, self.out_t = self.in_types[0], self.out_types[0]
        self.f32 = self.t.name == "f32" and self.out_t.name == "f32"

    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        axis = normalize_axis(self.axis, x.ndim, "attribute 'axis'")
        if self.since == 1 and self.axis < 0:
            raise self.fail(f"attribute 'axis'={self.axis} is negative; Softmax-1 needs 0 <= axis < rank.")
        if self.f32 and x.ndim > 0 and x.size >= _FAST_MIN:
            fast = softmax_f32(x, axis)
            if fast is not None:
                return (fast,)
        values = to_compute(x, self.t).astype(np.float64)
        y = softmax(values.reshape(1), 0).reshape(()) if x.ndim == 0 else softmax(values, axis)
        return (from_compute(y, self.out_t),)


@register_op("Softmax", since=8)
class Softmax8(Softmax1):
    """Softmax-8: ``axis`` may be negative."""
