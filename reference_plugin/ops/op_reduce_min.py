"""ReduceMin-1: minimum over ``axes`` (NaN propagates; over no elements: the type's highest value)."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_reduce import ReduceOp
from reference_plugin.ops._common_types import lowest, store


@register_op("ReduceMin", since=1)
class ReduceMin(ReduceOp):
    def reduce(self, x: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
        if self.t.is_real():  # float types are symmetric: highest == -lowest
            init = x.dtype.type(-lowest(self.t))
        else:
            init = x.dtype.type(np.iinfo(x.dtype).max)
        return store(np.asarray(np.min(x, axis=axes, keepdims=keepdims, initial=init)), self.out_t)
