"""Gelu-2 (erf form) and Gelu-7 (``approximation_mode`` ERF or TANH).

ERF: ``0.5 * x * (1 + erf(x / sqrt(2)))``. TANH: ``0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x**3)))``.
Computed in float64 for every float type (``single_precision = False``) and rounded once: in
float32 the rounding of ``x / sqrt(2)`` alone moves the negative tail by up to ``x**2`` ulp.
(REFERENCE's programs compute the ERF form of float32 values in float32 with their own erfc,
within 8 ulp of this: :mod:`reference_plugin.fast.gelu`.)
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
    single_precision = False
    #: False: the ERF form (Gelu-2 has no other).
    tanh_mode = False

    def compute(self, x: np.ndarray) -> np.ndarray:
        if self.tanh_mode:
            return 0.5 * x * (1.0 + np.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)))
        return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


@register_op("Gelu", since=7)
class Gelu7(Gelu2):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.tanh_mode = str(self.attr("approximation_mode")).upper() == "TANH"
