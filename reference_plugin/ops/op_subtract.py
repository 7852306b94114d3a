"""Subtract-1: elementwise ``a - b`` (integers wrap)."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_binary import BinaryOp


@register_op("Subtract", since=1)
class Subtract(BinaryOp):
    def compute(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.subtract(x, y)
