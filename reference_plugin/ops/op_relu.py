"""Relu-1 (IR ``ReLU``): elementwise ``max(x, 0)``; NaN stays NaN."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_unary import UnaryOp


@register_op("Relu", since=1)
class Relu(UnaryOp):
    transcendental = False

    def compute(self, x: np.ndarray) -> np.ndarray:
        return np.maximum(x, np.zeros((), x.dtype))
