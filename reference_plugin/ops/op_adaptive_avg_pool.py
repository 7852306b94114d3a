"""AdaptiveAvgPool-8: the mean of each adaptive bin (bin ``i`` of an axis of size ``H`` with ``O``
bins covers ``[floor(i·H/O), ceil((i+1)·H/O))``), one averaging matrix per spatial axis, in float64."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_advanced import adaptive_bins, int_values
from reference_plugin.ops._common_types import from_compute, to_compute


def bin_matrix(size: int, out: int) -> np.ndarray:
    """``(out, size)`` matrix averaging each bin."""
    start, end = adaptive_bins(size, out)
    h = np.arange(size)
    inside = (h[None, :] >= start[:, None]) & (h[None, :] < end[:, None])
    return inside / (end - start)[:, None]


@register_op("AdaptiveAvgPool", since=8)
class AdaptiveAvgPool(OpRun):
    def _run(self, x: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, ...]:
        out = int_values(sizes, x.ndim - 2, "output_shape")
        if min(out, default=1) <= 0 or min(x.shape[2:], default=1) <= 0:
            raise self.fail(f"output_shape {out} and data spatial dims {list(x.shape[2:])} must be positive.")
        y = to_compute(x, self.in_types[0]).astype(np.float64)
        for i, o in enumerate(out):
            axis = 2 + i
            y = np.moveaxis(np.tensordot(y, bin_matrix(x.shape[axis], o), axes=([axis], [1])), -1, axis)
        return (from_compute(y, self.out_types[0]),)
