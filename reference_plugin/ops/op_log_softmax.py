"""LogSoftmax-5: ``x - max(x) - log(sum(exp(x - max(x))))`` along ``axis`` (negative counts from
the end; a rank-0 input takes 0 or -1 and gives 0), in float64, rounded once to the output type."""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import normalize_axis
from reference_plugin.ops._common_types import from_compute, to_compute


def log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


@register_op("LogSoftmax", since=5)
class LogSoftmax(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.axis: int = self.attr("axis")
        self.t, self.out_t = self.in_types[0], self.out_types[0]

    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        values = to_compute(x, self.t).astype(np.float64)
        if x.ndim == 0:
            if self.axis not in (0, -1):
                raise self.fail(f"attribute 'axis'={self.axis} is out of range for a rank-0 input; allowed: 0 or -1.")
            return (from_compute(log_softmax(values.reshape(1), 0).reshape(()), self.out_t),)
        axis = normalize_axis(self.axis, x.ndim, "attribute 'axis'")
        return (from_compute(log_softmax(values, axis), self.out_t),)
