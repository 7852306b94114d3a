"""GRN-1: ``x / sqrt(sum(x**2 over dim 1) + bias)`` for data of rank 2..4, in float64, rounded once."""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_norm import store_float, to_f64


@register_op("GRN", since=1)
class GRN(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.bias: float = float(np.float32(self.attr("bias")))  # a C++ float in OpenVINO

    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        if not 2 <= x.ndim <= 4:
            raise self.fail(f"data has rank {x.ndim}; GRN needs rank 2, 3 or 4.")
        values = to_f64(x, self.in_types[0])
        norm = np.sqrt(np.sum(values * values, axis=1, keepdims=True) + self.bias)
        return (store_float(values / norm, self.out_types[0]),)
