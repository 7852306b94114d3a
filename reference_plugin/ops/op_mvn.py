"""MVN-2 (the spec page "MVN-1"; first in opset2) and MVN-6: mean-variance normalisation.

``y = x - mean(x)`` over the reduction axes; with ``normalize_variance`` it is divided by
``sqrt(var + eps)`` (MVN-1, and MVN-6 ``INSIDE_SQRT``) or ``sqrt(var) + eps`` (MVN-6
``OUTSIDE_SQRT``), ``var`` the population variance over the same axes. MVN-1 reduces over
``reduction_axes`` (negative counts from the end), or when that is absent over dims 1..
(``across_channels``) or 2.. of the data.
Computed in float64, rounded once. Over no axis each element is its own mean (``x - x = 0``).

f32 data normalised over its trailing axes (LayerNorm; MVN-1's default axes) takes a faster
route with the same float64 arithmetic (:func:`mvn_rows_f32`): blocks of rows
(:func:`~reference_plugin.ops._common_norm.map_row_blocks`) are copied into a reused float64 work
array, row sums (einsum) and sums of squares (vecdot) need no temporaries, centring and the
multiply by the float64 reciprocal of the denominator run in place, and the f32 output is
rounded once. Accuracy against the plain float64 result rounded once
(tests/reference/test_kernel_accuracy_norm.py): bound 1 ulp, measured 0 ulp on random, offset
(mean/std up to 5e3), 1e30, float32-max, 1e-30 and constant rows; where ``x - mean`` cancels to
a tiny ``y`` the bound is 2**-32 of the row's largest ``|y|`` (the two float64 means may differ
in their last bit). Speed on (1, 128, 256) over axis -1: 0.18 ms → 0.12 ms per call in the
attention anchor's bench, 0.10 → 0.055 ms called directly. Other axes and types take :func:`mvn`.
"""

from __future__ import annotations

import numpy as np

from ovconform.errors import ValidationError
from ovconform.ir import Node, Type
from ovconform.opset._norm import mvn1_axes
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_norm import (
    AxesOp,
    map_row_blocks,
    mean_variance,
    row_buffer,
    store_float,
    to_f64,
    trailing_rows,
    work_rows,
)


def mvn(x: np.ndarray, axes: tuple[int, ...], normalize_variance: bool, eps: float, inside: bool) -> np.ndarray:
    centred, var = mean_variance(x, axes)
    if not normalize_variance:
        return centred
    return centred / (np.sqrt(var + eps) if inside else np.sqrt(var) + eps)


def mvn_rows_f32(x: np.ndarray, axes: tuple[int, ...], normalize_variance: bool, eps: float,
                 inside: bool) -> np.ndarray | None:
    """:func:`mvn` of the float32 array ``x`` rounded to float32, when ``axes`` are its trailing
    axes (else None): float64 work arrays of blocks of rows (:func:`map_row_blocks`)."""
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


def _run_mvn(x: np.ndarray, t: Type, out_t: Type, axes: tuple[int, ...], normalize: bool, eps: float,
             inside: bool) -> np.ndarray:
    if t.name == "f32" and out_t.name == "f32":
        fast = mvn_rows_f32(x, axes, normalize, eps, inside)
        if fast is not None:
            return fast
    return store_float(mvn(to_f64(x, t), axes, normalize, eps, inside), out_t)


@register_op("MVN", since=2)
class MVN1(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.eps: float = self.attr("eps")
        self.across: bool = self.attr("across_channels")
        self.normalize: bool = self.attr("normalize_variance")
        self.reduction_axes: list[int] | None = self.attr("reduction_axes")

    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        try:
            axes = mvn1_axes(x.ndim, self.across, self.reduction_axes)
        except ValidationError as e:
            raise self.fail(str(e)) from None
        return (_run_mvn(x, self.in_types[0], self.out_types[0], tuple(axes), self.normalize, self.eps, True),)


@register_op("MVN", since=6)
class MVN6(AxesOp):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.eps: float = float(np.float32(self.attr("eps")))  # a C++ float in OpenVINO
        self.normalize: bool = self.attr("normalize_variance")
        self.inside = str(self.attr("eps_mode")).upper() == "INSIDE_SQRT"

    def _run(self, x: np.ndarray, axes: np.ndarray) -> tuple[np.ndarray, ...]:
        return (_run_mvn(x, self.in_types[0], self.out_types[0], self.axes(axes, x.ndim), self.normalize,
                         self.eps, self.inside),)
