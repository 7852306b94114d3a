"""Atan-1: elementwise arctangent.

Float types compute as UnaryOp describes and round once to the output type; integer inputs give the
result rounded to the nearest integer (halves away from zero), as the other transcendental
kernels do.
"""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_unary import UnaryOp


@register_op("Atan", since=1)
class Atan(UnaryOp):
    def compute(self, x: np.ndarray) -> np.ndarray:
        return np.arctan(x)
