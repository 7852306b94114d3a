"""BitwiseLeftShift-15: elementwise ``a << b`` over integers, and the ShiftOp base shared with
BitwiseRightShift-15.

The spec leaves a shift count that is negative or not below the type's bit width undefined.
The reference defines it: a negative count is an InferError naming it; a count of the bit width
or more shifts every bit out (left: 0; right: 0, or -1 for a negative signed value, as an
arithmetic shift does). Left shifts wrap modulo 2**N (signed overflow included, two's
complement); right shifts of signed values are arithmetic, of unsigned values logical.
"""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_binary import BinaryOp, broadcast_result_shape


class ShiftOp(BinaryOp):
    def _run(self, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, ...]:
        broadcast_result_shape(self.mode, (a.shape, b.shape))
        if self.t.is_signed() and b.size and int(b.min()) < 0:
            raise self.fail(f"shift count {int(b.min())} is negative; allowed: counts >= 0.")
        bits = a.dtype.itemsize * 8
        count = np.minimum(b, np.asarray(bits - 1, b.dtype))
        big = b >= bits
        return (np.asarray(self.shift(a, count, big)).astype(a.dtype, copy=False),)

    def shift(self, a: np.ndarray, count: np.ndarray, big: np.ndarray) -> np.ndarray:
        raise NotImplementedError(f"{type(self).__name__} does not implement shift")


@register_op("BitwiseLeftShift", since=15)
class BitwiseLeftShift(ShiftOp):
    def shift(self, a: np.ndarray, count: np.ndarray, big: np.ndarray) -> np.ndarray:
        shifted = np.left_shift(a, count.astype(a.dtype))
        return np.where(big, np.zeros((), a.dtype), shifted)
