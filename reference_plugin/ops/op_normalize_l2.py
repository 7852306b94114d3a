"""NormalizeL2-1: ``x / sqrt(eps_mode(sum(x**2 over axes), eps))``, eps_mode ``add`` (``+``) or
``max``. Empty axes: each element divided by itself — 1 for non-zero elements, 0 for zeros (the
spec's particular case). Computed in float64, rounded once."""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._common_norm import AxesOp, store_float, to_f64


@register_op("NormalizeL2", since=1)
class NormalizeL2(AxesOp):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.eps: float = float(np.float32(self.attr("eps")))  # a C++ float in OpenVINO
        self.add = self.attr("eps_mode") == "add"

    def _run(self, x: np.ndarray, axes: np.ndarray) -> tuple[np.ndarray, ...]:
        values = to_f64(x, self.in_types[0])
        reduce_over = self.axes(axes, x.ndim)
        if not reduce_over:
            return (store_float(np.where(values != 0, 1.0, 0.0), self.out_types[0]),)
        squares = np.sum(values * values, axis=reduce_over, keepdims=True)
        norm = np.sqrt(squares + self.eps if self.add else np.maximum(squares, self.eps))
        return (store_float(values / norm, self.out_types[0]),)
