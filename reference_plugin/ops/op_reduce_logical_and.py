"""ReduceLogicalAnd-1: logical AND over ``axes`` (over no elements: True)."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_reduce import ReduceOp


@register_op("ReduceLogicalAnd", since=1)
class ReduceLogicalAnd(ReduceOp):
    def reduce(self, x: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
        return np.asarray(np.all(x, axis=axes, keepdims=keepdims))
