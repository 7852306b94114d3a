"""HSwish-4: ``x * min(max(x + 3, 0), 6) / 6`` (compute precision: see UnaryOp)."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_unary import UnaryOp


@register_op("HSwish", since=4)
class HSwish(UnaryOp):
    def compute(self, x: np.ndarray) -> np.ndarray:
        return x * np.minimum(np.maximum(x + 3.0, 0.0), 6.0) / 6.0
