"""gelu-erf-f32: the ERF form of Gelu for float32 computation, in float32.

The formula (:mod:`reference_plugin.ops.op_gelu`) evaluates ``0.5 * x * (1 + erf(x / sqrt(2)))``
in float64. This route computes ``max(x, 0) - |x| * q`` with ``q = Phi(-|x|) = erfc(|x| / sqrt(2)) / 2``
in float32 (for x >= 0 that is ``x * (1 - q)``, below ``x * q``: the negative tail never
cancels and no branch is taken), with the classic Chebyshev-fitted erfc
``erfc(z) = t * exp(-z*z + P(t))``, ``t = 1 / (1 + z/2)``, ``P`` of degree 9 (Numerical Recipes'
erfcc, fractional error below 1.2e-7 for every z >= 0), and ``exp(-x*x/2)`` split as
``exp(-hi*hi/2) * exp(-lo*(hi + lo/2))`` (``|x| = hi + lo``, ``hi*hi`` exact) so the rounding of
``x*x`` does not reach the tail.

Bound: 8 ulp of the formula; where ``|x| >= 6.4`` the formula's own ``1 + erf`` cancels, and
there the bound is 1e-15 absolute instead. Special values as the formula gives them: +inf -> inf,
-inf -> NaN, NaN -> NaN (a negative input whose result underflows gives +0 where the formula
gives -0). Applies to the ERF form of f32, f16 and bf16 inputs (computed in float32, rounded
once to the output type); the TANH form and f64 keep the formula.
"""

from __future__ import annotations

import math

import numpy as np

from reference_plugin.fast import kernel_route, ulp
from reference_plugin.ops._common_types import compute_float_dtype
from reference_plugin.ops.op_gelu import Gelu2, Gelu7

__all__ = ["GELU_ULP", "GeluErfF32", "gelu_erf_f32"]

#: The route's bound against the formula, in ulp of the output type, where |x| < 6.4.
GELU_ULP = 8
_F = np.float32
#: P(t) of erfc(z) = t·exp(-z² + P(t)), highest degree first (Horner).
_ERFC_P = [_F(c) for c in (0.17087277, -0.82215223, 1.48851587, -1.13520398, 0.27886807, -0.18628806,
                            0.09678418, 0.37409196, 1.00002368, -1.26551223)]
_HIGH_BITS = np.int32(-4096)  # keeps sign, exponent and the top 11 stored mantissa bits
_X_END = _F(19.0)  # exp(-x²/2) is 0 in float32 well before |x| = 19


def gelu_erf_f32(x: np.ndarray) -> np.ndarray:
    """The ERF-form Gelu of a float32 array, computed in float32 (see the module docstring) as
    ``max(x, 0) - |x|·q``: for x >= 0 that is ``x·(1 - q)``, below ``x·q``, so no branch, blend
    or np.where is needed."""
    x = np.asarray(x, dtype=np.float32)
    if x.ndim == 0:  # scalar arithmetic would return numpy scalars, which take no out=
        return gelu_erf_f32(x.reshape(1)).reshape(())
    ax = np.abs(x)
    np.minimum(ax, _X_END, out=ax)  # beyond, q is 0 (and inf - inf never happens below)
    t = ax * _F(0.5 / math.sqrt(2.0))
    t += _F(1.0)
    np.divide(_F(1.0), t, out=t)  # t = 1 / (1 + z/2), z = |x|/√2
    p = t * _ERFC_P[0]
    p += _ERFC_P[1]
    for c in _ERFC_P[2:]:
        p *= t
        p += c
    hi = (ax.view(np.int32) & _HIGH_BITS).view(np.float32)
    lo = ax - hi
    cross = lo * _F(0.5)
    cross += hi
    cross *= lo
    p -= cross  # P(t) - (hi·lo + lo²/2), as lo·(hi + lo/2)
    q = hi * _F(-0.5)
    q *= hi  # -hi²/2, exact
    np.exp(q, out=q)
    np.exp(p, out=p)
    q *= p
    q *= t  # erfc(z) = 2·Phi(-|x|)
    q *= ax
    q *= _F(0.5)  # |x|·Phi(-|x|)
    y = np.maximum(x, _F(0.0))
    y -= q
    if not np.isfinite(x.min()):  # -inf gives NaN, as the formula's -inf * 0 does (one cheap reduction)
        y[x == -np.inf] = np.nan
    return y


@kernel_route("gelu-erf-f32", (Gelu2, Gelu7), ulp(GELU_ULP, "1e-15 absolute where |x| >= 6.4"),
              "the ERF form of f32, f16 and bf16 inputs")
class GeluErfF32(Gelu2):
    """Gelu computing its ERF form of float32 values with :func:`gelu_erf_f32`."""

    #: Arrays of the input's size alive at once (ax, t, p, hi, lo, cross, q, y): smaller blocks
    #: for unary-blocks (:meth:`.elementwise.BlockwiseUnary.chunk`).
    temporaries = 8

    def compute_dtype(self) -> np.dtype:
        """float32 for the ERF form of f32/f16/bf16 (numpy's SIMD float32 functions), the
        formula's float64 otherwise."""
        return np.dtype(np.float64) if self.tanh_mode else compute_float_dtype(self.t)

    def compute(self, x: np.ndarray) -> np.ndarray:
        if x.dtype == np.float32 and not self.tanh_mode:
            return gelu_erf_f32(x)
        return super().compute(x)
