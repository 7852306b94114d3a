"""ReduceLogicalOr-1: logical OR over ``axes`` (over no elements: False)."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_reduce import ReduceOp


@register_op("ReduceLogicalOr", since=1)
class ReduceLogicalOr(ReduceOp):
    def reduce(self, x: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
        return np.asarray(np.any(x, axis=axes, keepdims=keepdims))
