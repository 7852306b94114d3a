"""Sqrt-1: elementwise square root (integer inputs: rounded to nearest, as the reference does)."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_unary import UnaryOp


@register_op("Sqrt", since=1)
class Sqrt(UnaryOp):
    def compute(self, x: np.ndarray) -> np.ndarray:
        return np.sqrt(x)
