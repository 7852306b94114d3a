"""BitwiseNot-13: elementwise ``~x`` over integer data (two's complement), ``not x`` for boolean."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_unary import UnaryOp


@register_op("BitwiseNot", since=13)
class BitwiseNot(UnaryOp):
    transcendental = False

    def compute(self, x: np.ndarray) -> np.ndarray:
        return np.invert(x)
