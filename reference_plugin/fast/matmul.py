"""matmul-few-rows: a float product of few rows with a constant 2D B, computed transposed.

The formula (:mod:`reference_plugin.ops.op_mat_mul`) is ``np.matmul(A, B)``. When A has at most
:data:`FEW_ROWS` rows (all batch dims included) and B is a constant 2D float matrix, this route
computes ``(Bᵀ · Aᵀ)ᵀ``: OpenBLAS splits and packs a tall-skinny product better. Bᵀ is a view of
the constant (OpenBLAS reads a transposed operand in place), so the kernel holds no copy of the
weights (a 1.1B decoder's 4.4 GB). Each output element is the same dot product, summed in another
order.

Bound: the accumulation bound with factor 8 (each product within ``4·e·sqrt(K)·sum|a·b|`` of
the exact sum). Applies to float MatMul nodes whose B is a 2D constant and ``transpose_a`` false.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from reference_plugin.fast import accumulation, kernel_route
from reference_plugin.ops._common_types import store, to_compute
from reference_plugin.ops.op_mat_mul import MatMul

if TYPE_CHECKING:
    from ovconform.ir import Node

__all__ = ["FEW_ROWS", "MatMulFewRows"]

#: Most rows of A (batch dims included) for the transposed product with a constant B.
FEW_ROWS = 16


@kernel_route("matmul-few-rows", (MatMul,), accumulation(8),
              f"float A of at most {FEW_ROWS} rows (batch dims included), B a 2D constant, transpose_a false")
class MatMulFewRows(MatMul):
    """MatMul computing few rows of A against a constant B as ``(Bᵀ · Aᵀ)ᵀ``."""

    def __init__(self, node: Node) -> None:
        super().__init__(node)
        b = self.const_input(1)
        #: Bᵀ of a constant 2D float B (after transpose_b): for f32 weights a view, never a copy.
        self.b_t: np.ndarray | None = None
        if b is not None and b.ndim == 2 and self.t.is_real():
            y = to_compute(b, self.t).astype(self.acc, copy=False)
            self.b_t = y if self.transpose_b else y.T

    def _run(self, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, ...]:
        bt = self.b_t
        if bt is not None and a.ndim >= 2 and not self.transpose_a and a.shape[-1] == bt.shape[1] \
                and a.size <= FEW_ROWS * bt.shape[1]:
            x = to_compute(a, self.t).astype(self.acc, copy=False)
            rows = np.matmul(bt, x.reshape(-1, bt.shape[1]).T).T
            out = np.ascontiguousarray(rows).reshape(*x.shape[:-1], bt.shape[0])
            return (store(out, self.out_t),)
        return super()._run(a, b)
