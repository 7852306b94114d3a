"""SquaredDifference-1: elementwise ``(a - b) ** 2`` (integers wrap)."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_binary import BinaryOp


@register_op("SquaredDifference", since=1)
class SquaredDifference(BinaryOp):
    def compute(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.square(np.subtract(x, y))
