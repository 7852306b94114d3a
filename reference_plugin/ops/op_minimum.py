"""Minimum-1: elementwise minimum (NaN propagates)."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_binary import BinaryOp


@register_op("Minimum", since=1)
class Minimum(BinaryOp):
    def compute(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.minimum(x, y)
