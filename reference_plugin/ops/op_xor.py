"""Xor-1 (``ov::op::v0::Xor``, opset1): elementwise ``a xor b`` over booleans, as LogicalXor-1."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_binary import BinaryOp


@register_op("Xor", since=1)
class Xor(BinaryOp):
    def compute(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.logical_xor(x, y)
