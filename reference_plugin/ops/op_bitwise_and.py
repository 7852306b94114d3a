"""BitwiseAnd-13: elementwise ``a & b`` (logical and for boolean) over integer or boolean data."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_binary import BinaryOp


@register_op("BitwiseAnd", since=13)
class BitwiseAnd(BinaryOp):
    def compute(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.bitwise_and(x, y)
