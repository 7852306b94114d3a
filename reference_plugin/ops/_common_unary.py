"""Shared pieces of the unary elementwise kernels: the UnaryOp base and a vectorised erf."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from numpy.polynomial import chebyshev as _cheb

from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import (
    compute_float_dtype,
    float_to_int,
    from_compute,
    round_half_away,
    to_compute,
)

if TYPE_CHECKING:
    from ovconform.ir import Node


class UnaryOp(OpRun):
    """Elementwise op of one input; subclasses implement ``compute``.

    ``transcendental`` kernels compute in :func:`compute_float_dtype` (float32 for f32/f16/bf16
    with numpy's SIMD functions, float64 for f64 and integer inputs; ``single_precision = False``
    keeps a kernel in float64 where float32 loses too much, e.g. Mish) and round once to the
    output type (floats) or, for integer inputs, round half away from zero and convert (the
    spec's "rounded to the nearest integer" for integer element types). The float32 error bound
    per op is measured in tests/reference/test_kernel_accuracy.py. Other kernels compute in the
    input's compute dtype (integers natively, wrapping on overflow as C does).
    """

    transcendental: ClassVar[bool] = True
    single_precision: ClassVar[bool] = True
    #: True when a subclass's ``_run`` differs from this one only for non-float inputs (Sigmoid).
    float_run_is_base: ClassVar[bool] = False

    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.t = self.in_types[0]
        self.out_t = self.out_types[0]

    def compute_dtype(self) -> np.dtype:
        """The dtype ``compute`` gets a float input in (see the class docstring)."""
        return compute_float_dtype(self.t) if self.single_precision else np.dtype(np.float64)

    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        if not self.transcendental:
            return (from_compute(self.compute(to_compute(x, self.t)), self.out_t),)
        y = self.compute(to_compute(x, self.t).astype(self.compute_dtype(), copy=False))
        if self.out_t.is_integral_number():
            return (float_to_int(round_half_away(y), self.out_t.to_dtype()),)
        return (from_compute(y, self.out_t),)

    def compute(self, x: np.ndarray) -> np.ndarray:
        raise NotImplementedError(f"{type(self).__name__} does not implement compute")


# -- erf -------------------------------------------------------------------------------------
# Chebyshev interpolants built once at import (math.erf/erfc at the Chebyshev nodes only):
# erf(x)/x on [0, 2] (degree 28) and erfcx(x) = exp(x*x) * erfc(x) on [2, 6] (degree 32);
# |x| >= 6 gives ±1 (erfc(6) < 2.2e-17). Max absolute error against math.erf over a dense grid
# of [-7, 7]: 2.8e-15 (tests check <= 1e-14).

def _interpolate(fn: Callable[[float], float], lo: float, hi: float, deg: int) -> np.ndarray:
    nodes = np.cos(np.pi * (np.arange(deg + 1) + 0.5) / (deg + 1))
    xs = 0.5 * (hi - lo) * nodes + 0.5 * (hi + lo)
    ys = np.array([fn(float(v)) for v in xs])
    return _cheb.chebfit(nodes, ys, deg)


_ERF_SMALL = _interpolate(lambda v: math.erf(v) / v if v else 2.0 / math.sqrt(math.pi), 0.0, 2.0, 28)
_ERFCX_MID = _interpolate(lambda v: math.erfc(v) * math.exp(v * v), 2.0, 6.0, 32)


def erf(x: np.ndarray) -> np.ndarray:
    """Vectorised erf in float64 (max absolute error about 3e-15; NaN stays NaN)."""
    x = np.asarray(x, dtype=np.float64)
    a = np.abs(x)
    out = np.where(np.isnan(a), np.nan, 1.0)
    small = a < 2.0
    mid = (a >= 2.0) & (a < 6.0)
    xs = a[small]
    out[small] = xs * _cheb.chebval(xs - 1.0, _ERF_SMALL)
    xm = a[mid]
    out[mid] = 1.0 - np.exp(-xm * xm) * _cheb.chebval((xm - 4.0) / 2.0, _ERFCX_MID)
    return np.copysign(out, x)
