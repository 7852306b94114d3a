"""Atanh-4 (``ov::op::v3::Atanh``, opset4): elementwise inverse hyperbolic tangent (±inf at ±1, NaN outside [-1, 1]).

Float types compute as UnaryOp describes and round once to the output type; integer inputs give the
result rounded to the nearest integer (halves away from zero), as the other transcendental
kernels do.
"""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_unary import UnaryOp


@register_op("Atanh", since=4)
class Atanh(UnaryOp):
    def compute(self, x: np.ndarray) -> np.ndarray:
        return np.arctanh(x)
