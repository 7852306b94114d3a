"""LogicalAnd-1: elementwise ``a and b`` over booleans."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_binary import BinaryOp


@register_op("LogicalAnd", since=1)
class LogicalAnd(BinaryOp):
    def compute(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.logical_and(x, y)
