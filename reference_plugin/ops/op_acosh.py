"""Acosh-4 (``ov::op::v3::Acosh``, opset4): elementwise inverse hyperbolic cosine (NaN below 1).

Float types compute as UnaryOp describes and round once to the output type; integer inputs give the
result rounded to the nearest integer (halves away from zero), as the other transcendental
kernels do.
"""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_unary import UnaryOp


@register_op("Acosh", since=4)
class Acosh(UnaryOp):
    def compute(self, x: np.ndarray) -> np.ndarray:
        return np.arccosh(x)
