"""ReduceProd-1: product over ``axes`` (over no elements: 1).

Floats multiply in float64 and round once to the output type; integers multiply in int64/uint64
and wrap to the type (the low bits of a wrapped product do not depend on where it wrapped).
"""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_reduce import ReduceOp
from reference_plugin.ops._common_types import accumulate_dtype, store


@register_op("ReduceProd", since=1)
class ReduceProd(ReduceOp):
    def reduce(self, x: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
        acc = accumulate_dtype(self.t)
        return store(np.asarray(np.prod(x, axis=axes, keepdims=keepdims, dtype=acc)), self.out_t)
