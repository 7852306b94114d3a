"""Gelu-2 (erf form) and Gelu-7 (``approximation_mode`` ERF or TANH).

ERF: 0.5 * x * (1 + erf(x / sqrt(2))). TANH: 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x**3))).
Computes in float64.
"""

from __future__ import annotations

import math

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._common_unary import UnaryOp, erf

_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


@register_op("Gelu", since=2)
class Gelu2(UnaryOp):
    def compute(self, x: np.ndarray) -> np.ndarray:
        return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


@register_op("Gelu", since=7)
class Gelu7(Gelu2):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.tanh_mode = str(self.attr("approximation_mode")).upper() == "TANH"

    def compute(self, x: np.ndarray) -> np.ndarray:
        if not self.tanh_mode:
            return super().compute(x)
        return 0.5 * x * (1.0 + np.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)))
