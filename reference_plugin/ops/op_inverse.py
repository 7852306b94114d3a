"""Inverse-14: the inverse of each square matrix (``[..., M, M]``), of its transpose when
``adjoint``; LU with partial pivoting (numpy's LAPACK gesv) in float64. A singular matrix is an
error (the spec leaves the result undefined)."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import from_compute, to_compute


@register_op("Inverse", since=14)
class Inverse(OpRun):
    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
            raise self.fail(f"input shape {list(x.shape)} is not a batch of square matrices [..., M, M].")
        a = to_compute(x, self.in_types[0]).astype(np.float64)
        if self.attr("adjoint"):
            a = np.swapaxes(a, -1, -2)
        try:
            inv = np.linalg.inv(a) if a.size else a.copy()
        except np.linalg.LinAlgError:
            raise self.fail("a matrix is singular; it has no inverse.") from None
        return (from_compute(inv, self.out_types[0]),)
