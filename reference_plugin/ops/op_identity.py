"""Identity-16: a copy of the input (any element type; bf16 bit patterns kept as they are)."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun


@register_op("Identity", since=16)
class Identity(OpRun):
    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        return (x.copy(),)
