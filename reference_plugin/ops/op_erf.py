"""Erf-1: elementwise Gauss error function (vectorised; see ``_common_unary.erf`` for its error)."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_unary import UnaryOp, erf


@register_op("Erf", since=1)
class Erf(UnaryOp):
    def compute(self, x: np.ndarray) -> np.ndarray:
        return erf(x)
