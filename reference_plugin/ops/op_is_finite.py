"""IsFinite-10: boolean ``x is neither NaN nor ±inf`` of a floating-point input."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import to_compute


@register_op("IsFinite", since=10)
class IsFinite(OpRun):
    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        return (np.isfinite(to_compute(x, self.in_types[0])),)
