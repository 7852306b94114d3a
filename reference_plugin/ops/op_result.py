"""Result-1: a model output. It returns a copy, so outputs never alias inputs, constants or state."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun


@register_op("Result", since=1)
class Result(OpRun):
    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        return (np.array(x, copy=True),)
