"""Sin-1: elementwise sine.

Float types compute as UnaryOp describes and round once to the output type; integer inputs give the
result rounded to the nearest integer (halves away from zero), as the other transcendental
kernels do.
"""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_unary import UnaryOp


@register_op("Sin", since=1)
class Sin(UnaryOp):
    def compute(self, x: np.ndarray) -> np.ndarray:
        return np.sin(x)
