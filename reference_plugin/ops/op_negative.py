"""Negative-1: elementwise ``-x`` (integers wrap, unsigned too: -1 in u8 is 255)."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_unary import UnaryOp


@register_op("Negative", since=1)
class Negative(UnaryOp):
    transcendental = False

    def compute(self, x: np.ndarray) -> np.ndarray:
        return np.negative(x)
