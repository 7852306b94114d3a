"""Abs-1: elementwise absolute value (integers wrap: abs(-128) is -128 in i8; unsigned unchanged)."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_unary import UnaryOp


@register_op("Abs", since=1)
class Abs(UnaryOp):
    transcendental = False

    def compute(self, x: np.ndarray) -> np.ndarray:
        return np.abs(x)
