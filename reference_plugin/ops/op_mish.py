"""Mish-4: ``x * tanh(ln(1 + e ** x))``, computed in float64 (float32 would be 10 ulp off)."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_unary import UnaryOp


@register_op("Mish", since=4)
class Mish(UnaryOp):
    single_precision = False

    def compute(self, x: np.ndarray) -> np.ndarray:
        return x * np.tanh(np.logaddexp(0.0, x))
