"""Sigmoid-1: elementwise ``1 / (1 + e ** -x)``, numerically stable for large |x|.

One ``exp`` of ``-|x|`` serves both signs: for x >= 0 the result is 1 / (1 + e), for x < 0 it
is e / (1 + e), so no branch overflows and nothing is evaluated twice (compute precision: see UnaryOp).
The spec allows floating-point types only; for integer inputs this kernel gives what OpenVINO's
reference (and CPU) compute, ``1 / (1 + (T)exp(-x))`` in integer arithmetic: 1 for x > 0, else 0.
"""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_unary import UnaryOp


def stable_sigmoid(x: np.ndarray) -> np.ndarray:
    e = np.asarray(np.exp(-np.abs(x)))
    out = np.asarray(1.0 / (1.0 + e))
    np.multiply(out, e, out=out, where=x < 0)  # only the negative entries take the second form
    return out


@register_op("Sigmoid", since=1)
class Sigmoid(UnaryOp):
    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        if self.t.is_integral_number():
            return ((x > 0).astype(x.dtype),)
        return super()._run(x)

    def compute(self, x: np.ndarray) -> np.ndarray:
        return stable_sigmoid(x)
