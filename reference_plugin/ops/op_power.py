"""Power-1: elementwise ``a ** b``.

Floats compute in float64 and round once to the output type. Integers are exact with C-style
wrap-around for non-negative exponents; a negative exponent gives the truncated quotient
``1 / a ** -b``: 1 for a == 1, ±1 for a == -1 (by the exponent's parity), 0 otherwise (also for
a == 0, where C's ``pow`` would overflow).
"""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_binary import BinaryOp


@register_op("Power", since=1)
class Power(BinaryOp):
    def compute(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        if x.dtype.kind == "f":
            return np.power(x.astype(np.float64), y.astype(np.float64))
        if x.dtype.kind == "u":
            return np.power(x, y)
        return _signed_int_power(x, y)


def _signed_int_power(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    negative = y < 0
    positive_part = np.power(x, np.where(negative, 0, y).astype(y.dtype))
    odd = (y % 2) != 0
    reciprocal = np.where(x == 1, 1, np.where(x == -1, np.where(odd, -1, 1), 0)).astype(x.dtype)
    return np.where(negative, reciprocal, positive_part)
