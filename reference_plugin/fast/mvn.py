"""mvn-f32-rows: MVN of f32 data over its trailing axes (LayerNorm; MVN-1's default axes).

The formula (:mod:`reference_plugin.ops.op_mvn`) computes in float64 with numpy's reductions
over whole-tensor temporaries. This route does the same float64 arithmetic block by block:
blocks of rows (:func:`.rows.map_row_blocks`) are copied into a reused float64 work array, row
sums (einsum) and sums of squares (vecdot) need no temporaries, centring and the multiply by the
float64 reciprocal of the denominator run in place, and the f32 output is rounded once.

Bound: 1 ulp; where ``x - mean`` cancels (``|y|`` under 2**-12 of the row's largest ``|y|``) the
bound is :data:`MVN_ABS` times that largest ``|y|`` instead: there a last-bit difference between
the two float64 means (n·2**-53 of ``max|x|``) is many ulp of a tiny result. Applies to f32 input
and output reduced over exactly its trailing axes; other axes and types keep the formula.
"""

from __future__ import annotations

import numpy as np

from reference_plugin.fast import kernel_route, ulp
from reference_plugin.fast.rows import map_row_blocks, row_buffer, trailing_rows, work_rows
from reference_plugin.ops.op_mvn import MVN1, MVN6, MVNFormula

__all__ = ["MVN_ABS", "MVN_ULP", "MVNRowsF32", "mvn_rows_f32"]

MVN_ULP = 1
#: Where ``x - mean`` cancels: the bound relative to the row's largest ``|y|``.
MVN_ABS = 2.0 ** -32


def mvn_rows_f32(x: np.ndarray, axes: tuple[int, ...], normalize_variance: bool, eps: float,
                 inside: bool) -> np.ndarray | None:
    """The formula's MVN of the float32 array ``x`` rounded to float32, when ``axes`` are its
    trailing axes (else None): float64 work arrays of blocks of rows."""
    shape = trailing_rows(x.shape, axes)
    if shape is None:
        return None
    n = shape[1]
    data = np.ascontiguousarray(x).reshape(shape)
    out = np.empty(shape, np.float32)

    def block(start: int, stop: int) -> None:
        rows = work_rows(stop - start, n)
        np.copyto(rows, data[start:stop])
        mean = np.einsum("ij->i", rows)
        mean /= n
        with row_buffer(n):
            np.subtract(rows, mean[:, None], out=rows)
            if normalize_variance:
                var = _row_dots(rows)
                var /= n
                denom = np.sqrt(var + eps) if inside else np.sqrt(var) + eps
                np.multiply(rows, np.reciprocal(denom)[:, None], out=rows)
        out[start:stop] = rows

    map_row_blocks(block, shape[0], n)
    return out.reshape(x.shape)


def _row_dots(rows: np.ndarray) -> np.ndarray:
    """Each row's dot product with itself (numpy 2's vecdot, else einsum)."""
    vecdot = getattr(np, "vecdot", None)
    return vecdot(rows, rows) if vecdot is not None else np.einsum("ij,ij->i", rows, rows)


@kernel_route("mvn-f32-rows", (MVN1, MVN6), ulp(MVN_ULP, f"{MVN_ABS:g} of the row's largest |y| where "
                                                        "x - mean cancels"),
              "f32 input and output reduced over exactly its trailing axes")
class MVNRowsF32(MVNFormula):
    """MVN taking :func:`mvn_rows_f32` for f32 data over its trailing axes."""

    def normalized(self, x: np.ndarray, axes: tuple[int, ...], normalize: bool, eps: float,
                   inside: bool) -> np.ndarray:
        if x.dtype == np.float32 and self.out_types[0].name == "f32":
            fast = mvn_rows_f32(x, axes, normalize, eps, inside)
            if fast is not None:
                return fast
        return super().normalized(x, axes, normalize, eps, inside)
