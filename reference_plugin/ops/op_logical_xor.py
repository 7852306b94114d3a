"""LogicalXor-1: elementwise ``a xor b`` over booleans."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_binary import BinaryOp


@register_op("LogicalXor", since=1)
class LogicalXor(BinaryOp):
    def compute(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.logical_xor(x, y)
