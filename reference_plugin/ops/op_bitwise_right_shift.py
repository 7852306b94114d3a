"""BitwiseRightShift-15: elementwise ``a >> b`` over integers (arithmetic for signed types, logical
for unsigned; see :mod:`reference_plugin.ops.op_bitwise_left_shift` for the counts the spec leaves
undefined)."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops.op_bitwise_left_shift import ShiftOp


@register_op("BitwiseRightShift", since=15)
class BitwiseRightShift(ShiftOp):
    def shift(self, a: np.ndarray, count: np.ndarray, big: np.ndarray) -> np.ndarray:
        # shifting by bits - 1 and then once more gives the "all bits out" result for big counts
        shifted = np.right_shift(a, count.astype(a.dtype))
        return np.where(big, np.right_shift(shifted, np.ones((), a.dtype)), shifted)
