"""Elu-1: ``x if x > 0 else alpha * (e ** x - 1)`` with the ``alpha`` attribute (compute precision: see UnaryOp)."""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._common_unary import UnaryOp


@register_op("Elu", since=1)
class Elu(UnaryOp):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.alpha = float(self.attr("alpha"))

    def compute(self, x: np.ndarray) -> np.ndarray:
        return np.where(x > 0, x, self.alpha * np.expm1(np.minimum(x, 0.0)))
