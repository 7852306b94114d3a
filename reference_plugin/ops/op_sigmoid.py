"""Sigmoid-1: elementwise ``1 / (1 + e ** -x)``.

Computed as written (compute precision: see UnaryOp). It needs no branch: for x < 0, e ** -x is
large and 1 / (1 + e ** -x) keeps its relative accuracy; e ** -x overflows to infinity only
below x = -88.72 in float32 (-709.8 in float64), where the result, 0, replaces values under
2.9e-39 (5e-309), already in the subnormal range. Measured: 3 ulp from the float64 formula over
[-88, 88] (tests/reference/test_kernel_accuracy.py).
The spec allows floating-point types only; for integer inputs this kernel gives what OpenVINO's
reference (and CPU) compute, ``1 / (1 + (T)exp(-x))`` in integer arithmetic: 1 for x > 0, else 0.
"""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_unary import UnaryOp


def sigmoid(x: np.ndarray) -> np.ndarray:
    """``1 / (1 + exp(-x))`` of a float array, in its dtype (the caller ignores the overflow
    warning of exp, see the module docstring)."""
    return np.asarray(1 / (1 + np.exp(-np.asarray(x))))


@register_op("Sigmoid", since=1)
class Sigmoid(UnaryOp):
    float_run_is_base = True  # _run below differs only for integer inputs

    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        if self.t.is_integral_number():
            return ((x > 0).astype(x.dtype),)
        return super()._run(x)

    def compute(self, x: np.ndarray) -> np.ndarray:
        return sigmoid(x)
