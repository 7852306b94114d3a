"""Exp-1: elementwise ``e ** x`` (integer inputs: rounded to nearest)."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_unary import UnaryOp


@register_op("Exp", since=1)
class Exp(UnaryOp):
    def compute(self, x: np.ndarray) -> np.ndarray:
        return np.exp(x)
