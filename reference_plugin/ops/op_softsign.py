"""SoftSign-9: ``x / (1 + |x|)`` (compute precision: see UnaryOp)."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_unary import UnaryOp


@register_op("SoftSign", since=9)
class SoftSign(UnaryOp):
    def compute(self, x: np.ndarray) -> np.ndarray:
        return x / (1.0 + np.abs(x))
