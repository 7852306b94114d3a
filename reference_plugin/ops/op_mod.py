"""Mod-1: elementwise remainder with the sign of the dividend (C ``fmod``, truncated division).

Floats: ``fmod`` (x mod 0 is NaN); integers raise InferError on a zero divisor.
"""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_binary import BinaryOp
from reference_plugin.ops._common_intdiv import check_nonzero_divisor


@register_op("Mod", since=1)
class Mod(BinaryOp):
    def compute(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        if x.dtype.kind in "iu":
            check_nonzero_divisor(y)
        return np.fmod(x, y)
