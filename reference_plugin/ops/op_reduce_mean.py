"""ReduceMean-1: mean over ``axes``.

Floats accumulate in float64 (the mean of no elements is NaN). Integers take the exact sum and
divide truncating toward zero (C integer division), then wrap to the type; the mean of no
elements is 0.
"""

from __future__ import annotations

import math

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_intdiv import trunc_divide
from reference_plugin.ops._common_reduce import ReduceOp
from reference_plugin.ops._common_types import accumulate_dtype, store


@register_op("ReduceMean", since=1)
class ReduceMean(ReduceOp):
    def reduce(self, x: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
        acc = accumulate_dtype(self.t)
        total = np.asarray(np.sum(x, axis=axes, keepdims=keepdims, dtype=acc))
        count = math.prod(x.shape[a] for a in axes)
        if acc.kind == "f":
            return store(total / count if count else np.full(total.shape, np.nan), self.out_t)
        if count == 0:
            return store(np.zeros(total.shape, acc), self.out_t)
        return store(trunc_divide(total, np.asarray(count, acc)), self.out_t)
