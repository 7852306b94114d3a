"""Sigmoid-1: elementwise ``1 / (1 + e ** -x)``, numerically stable for large |x|.

``exp(min(x, 0)) / (1 + exp(-|x|))`` is 1 / (1 + e) for x >= 0 and e / (1 + e) for x < 0 (e the
exponential of -|x|), so no exponential overflows and no element branches (compute precision:
see UnaryOp).
The spec allows floating-point types only; for integer inputs this kernel gives what OpenVINO's
reference (and CPU) compute, ``1 / (1 + (T)exp(-x))`` in integer arithmetic: 1 for x > 0, else 0.
"""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_unary import UnaryOp


def stable_sigmoid(x: np.ndarray) -> np.ndarray:
    """``exp(min(x, 0)) / (1 + exp(-|x|))``: 1 / (1 + e**-x) for x >= 0 and e**x / (1 + e**x) below,
    with no exponential overflowing and no per-element branch (np.where over random signs is ten
    times slower than the arithmetic)."""
    denominator = np.exp(np.negative(np.abs(x)))
    denominator += 1
    return np.exp(np.minimum(x, 0)) / denominator


@register_op("Sigmoid", since=1)
class Sigmoid(UnaryOp):
    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        if self.t.is_integral_number():
            return ((x > 0).astype(x.dtype),)
        return super()._run(x)

    def compute(self, x: np.ndarray) -> np.ndarray:
        return stable_sigmoid(x)
