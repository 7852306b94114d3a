"""softmax-f32: Softmax of f32 tensors in float64 without per-row maxima.

The formula (:mod:`reference_plugin.ops.op_softmax`) shifts each row by its maximum, in float64.
Softmax does not depend on the shift, so this route takes one scalar for the whole tensor: its
maximum (along the last axis: none while the maximum is within ±300, where ``exp`` cannot
overflow); the per-row maxima and their broadcast passes are gone. Along the last axis, blocks of
rows (:func:`.rows.map_row_blocks`) are copied into a reused float64 work array (f32 → float64
is exact, and so is the difference of two f32 values), exponentiated in place, summed per row
(einsum) and multiplied by the float64 ``1/sum`` straight into the f32 output: one rounding.
A row whose sum is below ``e**-600`` (its maximum lies ~600 or more below the shift, where
``exp`` would reach float64's subnormals) and a tensor holding NaN or ±inf take the formula
instead, so the results there (NaN rows, all ``-inf`` rows) are exactly the formula's.

Bound: 1 ulp (a last-bit difference of the float64 intermediates may flip one rounding).
Applies to f32 input and output of at least :data:`FAST_MIN` elements, rank >= 1.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from reference_plugin.fast import kernel_route, ulp
from reference_plugin.fast.rows import map_row_blocks, row_buffer, work_rows
from reference_plugin.ops.op_softmax import Softmax1, Softmax8

if TYPE_CHECKING:
    from ovconform.ir import Node

__all__ = ["FAST_MIN", "SOFTMAX_ULP", "SoftmaxF32", "softmax_f32"]

SOFTMAX_ULP = 1
#: Smallest row sum of ``exp(x - shift)`` the route accepts: a term it holds below float64's
#: normal range (exp(-708.4)) is then below exp(-108) of the row's total, so it rounds to 0 in
#: f32 either way.
_MIN_ROW_SUM = math.exp(-600.0)
#: Largest |max(x)| for which the route takes exp(x) unshifted (one pass less): every term is
#: then at most exp(300), so a row sum overflows only past 1e178 elements.
_NO_SHIFT = 300.0
#: Fewest elements for the route: below, its fixed cost loses to the formula.
FAST_MIN = 4096


def softmax_f32(x: np.ndarray, axis: int) -> np.ndarray | None:
    """Softmax of the float32 array ``x`` along ``axis`` (rank >= 1), computed in float64 and
    rounded once to float32; None when a row needs the formula (see the module docstring)."""
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


@kernel_route("softmax-f32", (Softmax1, Softmax8), ulp(SOFTMAX_ULP),
              f"f32 input and output of at least {FAST_MIN} elements, every value finite")
class SoftmaxF32(Softmax1):
    """Softmax taking :func:`softmax_f32` for f32 tensors where it applies."""

    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.f32 = self.t.name == "f32" and self.out_t.name == "f32"

    def softmax(self, x: np.ndarray, axis: int) -> np.ndarray:
        if self.f32 and x.ndim > 0 and x.size >= FAST_MIN:
            fast = softmax_f32(x, axis)
            if fast is not None:
                return fast
        return super().softmax(x, axis)
