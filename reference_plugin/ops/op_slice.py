"""Slice-8: python slicing ``data[start:stop:step]`` on ``axes`` (default 0..len(start)-1):
negative start/stop count from the end, out-of-range values clamp, a negative step walks
backwards, axes not named are taken whole."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_layout import IndexInputsOp, slice_index


@register_op("Slice", since=8)
class Slice(IndexInputsOp):
    INDEX_PORTS = (1, 2, 3, 4)

    def _run(self, data: np.ndarray, start: np.ndarray, stop: np.ndarray, step: np.ndarray,
             axes: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        index = slice_index(data.shape, self.ints(1, start), self.ints(2, stop), self.ints(3, step),
                            None if axes is None else self.ints(4, axes))
        return (np.ascontiguousarray(data[index]),)
