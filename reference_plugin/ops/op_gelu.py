"""Gelu-2 (erf form) and Gelu-7 (``approximation_mode`` ERF or TANH).

ERF: 0.5 * x * (1 + erf(x / sqrt(2))). TANH: 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x**3))).
Precision as :class:`UnaryOp` describes. The ERF form in float32 avoids the cancellation of
``1 + erf`` in the negative tail by writing it through erfc: with ``z = |x| / sqrt(2)``,
``1 + erf(x/√2)`` is ``1 + erf(z)`` for x >= 0 and ``erfc(z)`` for x < 0, where erf(z) = z·P(z²)
for small z and erfc(z) = exp(-z²)·erfcx(z) beyond (Chebyshev interpolants of math.erf /
math.erfc built at import, evaluated by Clenshaw's recurrence in float32, and exp(-z²) without
rounding z²). The measured bound is
stated and checked in tests/reference/test_kernel_accuracy.py.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.polynomial import chebyshev as _cheb

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._common_unary import UnaryOp, erf

_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
#: erf(z) = z·P(z²) below _Z_SMALL (x >= 0) or _Z_SMALL_NEG (x < 0, where 1 - erf(z) cancels);
#: erfc(z) = exp(-z²)·erfcx(z) from there on (float32 exp(-z²) is 0 beyond z = 9.3).
_Z_SMALL, _Z_SMALL_NEG, _Z_END = 1.0, 0.5, 9.5


def _fit(fn, lo: float, hi: float, deg: int) -> np.ndarray:  # noqa: ANN001 - a float -> float function
    nodes = np.cos(np.pi * (np.arange(deg + 1) + 0.5) / (deg + 1))
    return _cheb.chebfit(nodes, [fn(0.5 * (hi - lo) * s + 0.5 * (hi + lo)) for s in nodes], deg).astype(np.float32)


def _erfcx(z: float) -> float:
    """exp(z²)·erfc(z), from the continued-fraction-free identity for moderate z (math.erfc
    underflows relative accuracy only beyond z ≈ 26, far outside the fitted range)."""
    return math.exp(z * z) * math.erfc(z)


#: erf(z)/z as a function of w = z² on [0, 1] (degree 7: fit error 4e-11); erfcx(z) = t·h(t)
#: with t = 2 / (2 + z), h on t's range for z in [0.5, 9.5] (degree 10: fit error 9e-11).
_ERF_OVER_Z = _fit(lambda w: math.erf(math.sqrt(w)) / math.sqrt(w) if w else 2 / math.sqrt(math.pi), 0.0, 1.0, 7)
_T_LO, _T_HI = 2 / (2 + _Z_END), 2 / (2 + _Z_SMALL_NEG)
_ERFCX_T = _fit(lambda t: _erfcx(2 / t - 2) / t, _T_LO, _T_HI, 10)
_HIGH_BITS = np.int32(-4096)  # keeps sign, exponent and the top 11 stored mantissa bits
_F = np.float32


def _clenshaw(s: np.ndarray, coef: np.ndarray) -> np.ndarray:
    """The Chebyshev series ``coef`` at ``s`` (in [-1, 1]) in the dtype of ``s`` (in place, no
    temporaries per term)."""
    b1, b2, tmp = np.zeros_like(s), np.zeros_like(s), np.empty_like(s)
    two_s = s + s
    for c in coef[:0:-1]:
        np.multiply(two_s, b1, out=tmp)
        np.subtract(tmp, b2, out=b2)
        b2 += c
        b1, b2 = b2, b1
    np.multiply(s, b1, out=tmp)
    tmp -= b2
    tmp += coef[0]
    return tmp


def _exp_minus_half_square(x: np.ndarray) -> np.ndarray:
    """exp(-x²/2) in float32 without the rounding of x² (x = high + low, high² exact)."""
    high = (x.view(np.int32) & _HIGH_BITS).view(np.float32)
    low = x - high
    return np.exp(-(_F(0.5) * high * high)) * np.exp(-(high * low + _F(0.5) * low * low))


def gelu_erf_f32(x: np.ndarray) -> np.ndarray:
    """The ERF-form Gelu of a float32 array, computed in float32 (see the module docstring).
    Both forms are evaluated over the whole array (clamped into their ranges) and blended
    arithmetically: np.where over random signs costs ten times the arithmetic."""
    x = np.asarray(x, dtype=np.float32)
    z = np.abs(x) * _F(1 / math.sqrt(2.0))
    negative = np.signbit(x).astype(np.float32)  # 1.0 where x < 0 (or -0.0)
    w = np.minimum(z * z, _F(1.0))
    erf_small = np.minimum(z, _F(1.0)) * _clenshaw(w * _F(2.0) - _F(1.0), _ERF_OVER_Z)
    t = _F(2.0) / (_F(2.0) + np.clip(z, _F(_Z_SMALL_NEG), _F(_Z_END)))
    s = (t * _F(2.0) - _F(_T_LO + _T_HI)) * _F(1.0 / (_T_HI - _T_LO))
    erfc = _exp_minus_half_square(np.clip(x, _F(-2 * _Z_END), _F(2 * _Z_END))) * (t * _clenshaw(s, _ERFCX_T))
    small = (z < _F(_Z_SMALL) - _F(_Z_SMALL - _Z_SMALL_NEG) * negative).astype(np.float32)
    via_erf = _F(1.0) + np.copysign(erf_small, x)  # 1 + erf(x/√2) for small |x|
    via_erfc = erfc + (_F(1.0) - negative) * (_F(2.0) - _F(2.0) * erfc)  # erfc for x < 0, 2 - erfc above
    one_plus = via_erfc + small * (via_erf - via_erfc)
    out = _F(0.5) * x
    out *= one_plus
    return out


@register_op("Gelu", since=2)
class Gelu2(UnaryOp):
    def compute(self, x: np.ndarray) -> np.ndarray:
        if x.dtype == np.float32:
            return gelu_erf_f32(x)
        return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


@register_op("Gelu", since=7)
class Gelu7(Gelu2):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.tanh_mode = str(self.attr("approximation_mode")).upper() == "TANH"

    def compute(self, x: np.ndarray) -> np.ndarray:
        if not self.tanh_mode:
            return super().compute(x)
        return 0.5 * x * (1.0 + np.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)))
