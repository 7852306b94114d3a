"""LRN-1: ``x / (bias + alpha / size**len(axes) * sqr_sum)**beta``, where ``sqr_sum`` sums ``x**2``
over the window ``[max(0, i - (size - 1) // 2), min(dim, i + (size - 1) // 2 + 1))`` along each
of the axes (the spec's ``size / 2`` for odd sizes; an even size gives the same symmetric window
of ``size - 1`` elements, as OpenVINO's reference does). Float64, rounded once.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._common_norm import AxesOp, store_float, to_f64


def window_sum(values: np.ndarray, axis: int, half: int) -> np.ndarray:
    """Sum of ``values`` over ``[i - half, i + half]`` along ``axis`` (clipped at the edges)."""
    n = values.shape[axis]
    cum = np.cumsum(values, axis=axis)
    zero = np.zeros_like(np.take(cum, [0], axis=axis))
    cum = np.concatenate([zero, cum], axis=axis)  # cum[k] = sum of the first k values
    idx = np.arange(n)
    hi = np.minimum(idx + half + 1, n)
    lo = np.maximum(idx - half, 0)
    return np.take(cum, hi, axis=axis) - np.take(cum, lo, axis=axis)


@register_op("LRN", since=1)
class LRN(AxesOp):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.alpha: float = self.attr("alpha")
        self.beta: float = self.attr("beta")
        self.bias: float = self.attr("bias")
        self.size: int = self.attr("size")

    def _run(self, x: np.ndarray, axes: np.ndarray) -> tuple[np.ndarray, ...]:
        values = to_f64(x, self.in_types[0])
        over = self.axes(axes, x.ndim)
        sqr = values * values
        for axis in over:
            sqr = window_sum(sqr, axis, (self.size - 1) // 2)
        scale = self.alpha / float(self.size) ** len(over)
        y = values / np.power(self.bias + scale * sqr, self.beta)
        return (store_float(y, self.out_types[0]),)
