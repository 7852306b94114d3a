"""LogicalNot-1: elementwise ``not x`` over booleans."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_unary import UnaryOp


@register_op("LogicalNot", since=1)
class LogicalNot(UnaryOp):
    transcendental = False

    def compute(self, x: np.ndarray) -> np.ndarray:
        return np.logical_not(x)
