"""ReduceMax-1: maximum over ``axes`` (NaN propagates; over no elements: the type's lowest value)."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_reduce import ReduceOp
from reference_plugin.ops._common_types import lowest, store


@register_op("ReduceMax", since=1)
class ReduceMax(ReduceOp):
    def reduce(self, x: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
        init = x.dtype.type(lowest(self.t))
        return store(np.asarray(np.max(x, axis=axes, keepdims=keepdims, initial=init)), self.out_t)
