"""HardSigmoid-1: ``max(0, min(1, alpha * x + beta))`` with scalar alpha and beta, in float64."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import from_compute, to_compute
from reference_plugin.ops.op_swish import scalar


@register_op("HardSigmoid", since=1)
class HardSigmoid(OpRun):
    def _run(self, x: np.ndarray, alpha: np.ndarray, beta: np.ndarray) -> tuple[np.ndarray, ...]:
        t = self.in_types[0]
        a, b = scalar(to_compute(alpha, t), "alpha"), scalar(to_compute(beta, t), "beta")
        v = to_compute(x, t).astype(np.float64)
        return (from_compute(np.maximum(0.0, np.minimum(1.0, a * v + b)), self.out_types[0]),)
