"""ReduceL2-4: ``sqrt(sum(x**2))`` over ``axes`` (over no elements: 0).

Floats compute in float64 and round once. Integers square and sum exactly in int64/uint64 (no
wrap for the tiny values of practice), take the float64 square root and truncate it toward
zero, as OpenVINO's reference assigns ``std::sqrt`` back to the integer type.
"""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_reduce import ReduceOp
from reference_plugin.ops._common_types import accumulate_dtype, store


@register_op("ReduceL2", since=4)
class ReduceL2(ReduceOp):
    def reduce(self, x: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
        acc = accumulate_dtype(self.t)
        wide = x.astype(acc)
        squares = np.sum(wide * wide, axis=axes, keepdims=keepdims, dtype=acc)
        return store(np.sqrt(np.asarray(squares).astype(np.float64)), self.out_t)
