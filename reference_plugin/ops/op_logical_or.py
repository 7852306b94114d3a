"""LogicalOr-1: elementwise ``a or b`` over booleans."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_binary import BinaryOp


@register_op("LogicalOr", since=1)
class LogicalOr(BinaryOp):
    def compute(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.logical_or(x, y)
