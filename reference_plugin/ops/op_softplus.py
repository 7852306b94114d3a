"""SoftPlus-4: ``ln(1 + e ** x)`` as ``logaddexp(0, x)`` (compute precision: see UnaryOp).

The spec's switch to the identity above a type-dependent threshold (for numerical stability)
changes nothing here: above it ``ln(1 + e ** x)`` rounds to ``x`` in the output type anyway.
"""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_unary import UnaryOp


@register_op("SoftPlus", since=4)
class SoftPlus(UnaryOp):
    def compute(self, x: np.ndarray) -> np.ndarray:
        return np.logaddexp(0.0, x)
