"""Tanh-1: elementwise tanh (integer inputs: rounded to nearest, per spec)."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_unary import UnaryOp


@register_op("Tanh", since=1)
class Tanh(UnaryOp):
    def compute(self, x: np.ndarray) -> np.ndarray:
        return np.tanh(x)
