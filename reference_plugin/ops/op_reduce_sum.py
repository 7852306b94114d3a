"""ReduceSum-1: sum over ``axes`` (floats accumulate in float64; integers wrap to the type)."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_reduce import ReduceOp
from reference_plugin.ops._common_types import accumulate_dtype, store


@register_op("ReduceSum", since=1)
class ReduceSum(ReduceOp):
    def reduce(self, x: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
        total = np.sum(x, axis=axes, keepdims=keepdims, dtype=accumulate_dtype(self.t))
        return store(np.asarray(total), self.out_t)
