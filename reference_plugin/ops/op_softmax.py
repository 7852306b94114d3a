"""Softmax-1 (``axis`` >= 0) and Softmax-8 (negative ``axis`` counts from the end).

Stable: exp(x - max(x)) / sum, computed in float64 and rounded once to the output type.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import normalize_axis
from reference_plugin.ops._common_types import from_compute, to_compute


def softmax(x: np.ndarray, axis: int) -> np.ndarray:
    shifted = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)


@register_op("Softmax", since=1)
class Softmax1(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.axis: int = self.attr("axis")
        self.t, self.out_t = self.in_types[0], self.out_types[0]

    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        axis = normalize_axis(self.axis, x.ndim, "attribute 'axis'")
        if self.since == 1 and self.axis < 0:
            raise self.fail(f"attribute 'axis'={self.axis} is negative; Softmax-1 needs 0 <= axis < rank.")
        values = to_compute(x, self.t).astype(np.float64)
        y = softmax(values.reshape(1), 0).reshape(()) if x.ndim == 0 else softmax(values, axis)
        return (from_compute(y, self.out_t),)


@register_op("Softmax", since=8)
class Softmax8(Softmax1):
    """Softmax-8: ``axis`` may be negative."""
