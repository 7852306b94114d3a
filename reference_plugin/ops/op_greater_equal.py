"""GreaterEqual-1: elementwise ``a >= b`` (boolean output)."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_binary import BinaryOp


@register_op("GreaterEqual", since=1)
class GreaterEqual(BinaryOp):
    def compute(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.greater_equal(x, y)
