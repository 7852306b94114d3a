"""Softmax-1 (``axis`` >= 0) and Softmax-8 (negative ``axis`` counts from the end).

``exp(x - max) / sum(exp(x - max))`` along ``axis``, ``max`` the row's maximum (so ``exp`` never
overflows), computed in float64 for every element type and rounded once to the output type.
(REFERENCE's programs take a faster float64 route for f32 tensors, within 1 ulp of this:
:mod:`reference_plugin.fast.softmax`.)
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import normalize_axis
from reference_plugin.ops._common_types import from_compute, to_compute


def softmax(x: np.ndarray, axis: int) -> np.ndarray:
    """Softmax of ``x`` along ``axis`` in ``x``'s dtype, shifted by each row's max."""
    e = np.exp(x - np.maximum.reduce(x, axis=axis, keepdims=True))
    return e / np.add.reduce(e, axis=axis, keepdims=True)


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
        return (self.softmax(x, axis),)

    def softmax(self, x: np.ndarray, axis: int) -> np.ndarray:
        """The output for the input ``x`` (as stored) along the normalised ``axis``."""
        values = to_compute(x, self.t).astype(np.float64)
        y = softmax(values.reshape(1), 0).reshape(()) if x.ndim == 0 else softmax(values, axis)
        return from_compute(y, self.out_t)


@register_op("Softmax", since=8)
class Softmax8(Softmax1):
    """Softmax-8: ``axis`` may be negative."""
