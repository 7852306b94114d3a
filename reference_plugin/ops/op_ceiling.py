"""Ceiling-1: elementwise smallest integer not below ``x`` (integer inputs pass through unchanged;
NaN and ±inf stay as they are)."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_unary import UnaryOp


@register_op("Ceiling", since=1)
class Ceiling(UnaryOp):
    transcendental = False

    def compute(self, x: np.ndarray) -> np.ndarray:
        return x if x.dtype.kind in "iu" else np.ceil(x)
