"""MatMul-1: batched matrix product with numpy broadcasting of the batch dims.

``transpose_a``/``transpose_b`` swap the two innermost dims of an input of rank >= 2; a 1D
input is not transposed (a 1D A is a row vector, a 1D B a column vector, and the added unit dim
is removed from the result). Floats multiply on BLAS in :func:`compute_float_dtype` (sgemm for
f32/f16/bf16, dgemm for f64); integers accumulate in int64 (then wrap).
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import accumulate_dtype, compute_float_dtype, store, to_compute


@register_op("MatMul", since=1)
class MatMul(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.transpose_a: bool = self.attr("transpose_a")
        self.transpose_b: bool = self.attr("transpose_b")
        self.t, self.out_t = self.in_types[0], self.out_types[0]
        self.acc = compute_float_dtype(self.t) if self.t.is_real() else accumulate_dtype(self.t)

    def _run(self, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, ...]:
        x = to_compute(a, self.t).astype(self.acc, copy=False)
        y = to_compute(b, self.t).astype(self.acc, copy=False)
        if self.transpose_a and x.ndim >= 2:
            x = np.swapaxes(x, -1, -2)
        if self.transpose_b and y.ndim >= 2:
            y = np.swapaxes(y, -1, -2)
        if x.ndim == 0 or y.ndim == 0:
            raise self.fail(f"inputs must have rank >= 1; got shapes {list(a.shape)} and {list(b.shape)}.")
        if x.shape[-1] != y.shape[-2 if y.ndim >= 2 else 0]:
            raise self.fail(f"inner dims do not match: A {list(a.shape)} (transpose_a={self.transpose_a}) and "
                            f"B {list(b.shape)} (transpose_b={self.transpose_b}).")
        return (store(np.asarray(np.matmul(x, y)), self.out_t),)
