"""ErfInv-17: elementwise inverse of the Gauss error function: ``y`` with ``erf(y) = x``.

The spec's domain rules: ``erfinv(0) = 0`` (the sign of zero kept), ``erfinv(±1) = ±inf``, NaN for
``|x| > 1`` (±inf included) and for NaN. Inside (-1, 1) the value is computed in float64: a start
from Winitzki's closed form (relative error about 2e-3), then four Halley steps on
``erf(y) - x`` for ``|x| <= 0.5`` and on ``erfc(y) - (1 - |x|)`` above (``1 - |x|`` is exact
there, so the tail keeps its relative accuracy), with libm's erf and erfc; the result is rounded
once to the element type.
"""

from __future__ import annotations

import math

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_unary import UnaryOp

_ERF = np.frompyfunc(math.erf, 1, 1)
_ERFC = np.frompyfunc(math.erfc, 1, 1)
_A = 0.147  # Winitzki's constant
_HALLEY_STEPS = 4


def erfinv(x: np.ndarray) -> np.ndarray:
    """The inverse error function in float64, with the spec's values at ±1 and outside [-1, 1]."""
    x = np.asarray(x, dtype=np.float64)
    a = np.abs(x)
    out = np.where(a == 1.0, np.copysign(np.inf, x), np.nan)
    inside = a < 1.0  # NaN and |x| > 1 stay NaN
    xs, s = a[inside], np.copysign(1.0, x[inside])
    ln = np.log1p(-xs * xs)
    t = 2.0 / (math.pi * _A) + ln / 2.0
    y = np.sqrt(np.maximum(np.sqrt(t * t - ln / _A) - t, 0.0))
    y = np.where(xs < 1e-3, xs * (math.sqrt(math.pi) / 2.0) * (1.0 + math.pi * xs * xs / 12.0), y)
    tail = xs > 0.5
    w = 1.0 - xs  # exact for xs in (0.5, 1)
    for _ in range(_HALLEY_STEPS):
        slope = (2.0 / math.sqrt(math.pi)) * np.exp(-y * y)
        f = np.where(tail, -(_ERFC(y).astype(np.float64) - w), _ERF(y).astype(np.float64) - xs)
        y = y - f / (slope + y * f)  # Halley's step for erf(y) = x (f'' = -2 y f')
    out[inside] = s * y
    return np.where(x == 0.0, x, out)  # erfinv(±0) = ±0


@register_op("ErfInv", since=17)
class ErfInv(UnaryOp):
    single_precision = False

    def compute(self, x: np.ndarray) -> np.ndarray:
        return erfinv(x)
