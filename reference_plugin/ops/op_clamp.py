"""Clamp-1: elementwise clip to [min, max].

Float types clip with the bounds in the compute type (NaN stays NaN). Integer types use
ceil(min) and floor(max) (per spec), each limited to the type's range; the reference's rule
``x < lo ? lo : (x > hi ? hi : x)`` is kept even when rounding makes lo > hi.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._common_unary import UnaryOp


@register_op("Clamp", since=1)
class Clamp(UnaryOp):
    transcendental = False

    def __init__(self, node: Node) -> None:
        super().__init__(node)
        lo: float | int = float(self.attr("min"))
        hi: float | int = float(self.attr("max"))
        if self.t.is_integral_number():
            info = np.iinfo(self.t.to_dtype())
            lo, hi = _int_bound(lo, math.ceil, info), _int_bound(hi, math.floor, info)
        dtype = np.dtype(np.float32) if self.t.name in ("f16", "bf16") else self.t.to_dtype()
        self.lo, self.hi = np.array(lo, dtype), np.array(hi, dtype)

    def compute(self, x: np.ndarray) -> np.ndarray:
        return np.where(x < self.lo, self.lo, np.where(x > self.hi, self.hi, x))


def _int_bound(value: float, rounding: Callable[[float], int], info: np.iinfo) -> int:
    """``rounding(value)`` limited to the integer type's range (infinities go to its ends)."""
    if math.isnan(value):
        raise ValueError(f"a Clamp bound of NaN has no integer value for {info.dtype}.")
    if math.isinf(value):
        return int(info.min) if value < 0 else int(info.max)
    return min(max(rounding(value), int(info.min)), int(info.max))
