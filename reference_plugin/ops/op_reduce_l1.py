"""ReduceL1-4: sum of absolute values over ``axes`` (over no elements: 0).

Floats accumulate in float64; integers take ``|x|`` in int64/uint64 (so ``|-128|`` of i8 is
128 before the sum) and the sum wraps to the type.
"""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_reduce import ReduceOp
from reference_plugin.ops._common_types import accumulate_dtype, store


@register_op("ReduceL1", since=4)
class ReduceL1(ReduceOp):
    def reduce(self, x: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
        acc = accumulate_dtype(self.t)
        total = np.sum(np.abs(x.astype(acc)), axis=axes, keepdims=keepdims, dtype=acc)
        return store(np.asarray(total), self.out_t)
