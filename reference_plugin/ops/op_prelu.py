"""PRelu-1 (IR ``PReLU``): ``x if x >= 0 else slope * x``.

Slope broadcasting per spec: a 1-D slope whose length equals data's dim 1 (the channels) is
applied per channel; any other slope broadcasts onto data by numpy rules (the output keeps
data's shape). Computed in float64 and rounded once; NaN stays NaN.
"""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import from_compute, to_compute


def align_slope(slope: np.ndarray, data_shape: tuple[int, ...]) -> np.ndarray:
    """``slope`` reshaped/broadcast to ``data_shape`` (ValueError when it fits neither rule)."""
    if slope.ndim == 1 and len(data_shape) >= 2 and slope.shape[0] == data_shape[1]:
        slope = slope.reshape((1, slope.shape[0]) + (1,) * (len(data_shape) - 2))
    try:
        if np.broadcast_shapes(slope.shape, data_shape) == tuple(data_shape):
            return np.broadcast_to(slope, data_shape)
    except ValueError:
        pass
    raise ValueError(f"slope shape {list(slope.shape)} fits data shape {list(data_shape)} neither per "
                     "channel (a 1-D slope of data's dim 1) nor by numpy broadcasting onto data.")


@register_op("PRelu", since=1)
class PRelu(OpRun):
    def _run(self, x: np.ndarray, slope: np.ndarray) -> tuple[np.ndarray, ...]:
        t = self.in_types[0]
        v = to_compute(x, t).astype(np.float64)
        s = align_slope(to_compute(slope, t).astype(np.float64), x.shape)
        return (from_compute(np.where(v < 0, s * v, v), self.out_types[0]),)
