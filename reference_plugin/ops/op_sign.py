"""Sign-1: elementwise -1 for negative, 0 for zero, 1 for positive values, in the input's type
(unsigned: 0 or 1; NaN stays NaN, per spec)."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_unary import UnaryOp


@register_op("Sign", since=1)
class Sign(UnaryOp):
    transcendental = False

    def compute(self, x: np.ndarray) -> np.ndarray:
        return np.sign(x)
