"""ReduceMin-1: minimum over ``axes`` (NaN propagates).

Over no elements (a reduced dim of size 0) the result is min's identity where the type has one:
+inf for every floating-point type, and the type's highest value for integers — what OpenVINO's
reference code does (``numeric_limits<T>::has_infinity ? infinity() : max()``). OpenVINO CPU gives
f32's largest finite value there instead (a recorded deviation, ``tests/reference/openvino_deviations.py``).
"""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_reduce import ReduceOp
from reference_plugin.ops._common_types import store


@register_op("ReduceMin", since=1)
class ReduceMin(ReduceOp):
    def reduce(self, x: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
        init = x.dtype.type(np.inf) if self.t.is_real() else x.dtype.type(np.iinfo(x.dtype).max)
        return store(np.asarray(np.min(x, axis=axes, keepdims=keepdims, initial=init)), self.out_t)
