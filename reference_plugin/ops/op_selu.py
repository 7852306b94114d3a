"""Selu-1: ``lambda * (x if x > 0 else alpha * (e ** x - 1))``; alpha and lambda hold one element each.

Computed in float64 and rounded once to the output type.
"""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import from_compute, to_compute
from reference_plugin.ops.op_swish import scalar


@register_op("Selu", since=1)
class Selu(OpRun):
    def _run(self, x: np.ndarray, alpha: np.ndarray, lam: np.ndarray) -> tuple[np.ndarray, ...]:
        t = self.in_types[0]
        a, scale = scalar(to_compute(alpha, t), "alpha"), scalar(to_compute(lam, t), "lambda")
        v = to_compute(x, t).astype(np.float64)
        y = scale * np.where(v > 0, v, a * np.expm1(np.minimum(v, 0.0)))
        return (from_compute(y, self.out_types[0]),)
