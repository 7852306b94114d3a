"""SegmentMax-16: the maximum of each segment of rows of ``data``; ``segment_ids`` (sorted,
non-negative, one per row) names each row's segment.

The output has ``num_segments`` rows (the input when given, else ``max(segment_ids) + 1``); a
segment without rows holds 0 (``fill_mode="zero"``) or the lowest finite value of the data type
(``"lowest"``, ``numeric_limits<T>::lowest()``: -65504 for f16). Rows whose segment is not below
``num_segments`` are left out. NaN propagates; f16/bf16 compare in f32.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import int_list
from reference_plugin.ops._common_types import from_compute, lowest, to_compute


@register_op("SegmentMax", since=16)
class SegmentMax16(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.fill = 0 if node.attrs["fill_mode"] == "zero" else lowest(self.in_types[0])

    def _run(self, data: np.ndarray, segment_ids: np.ndarray, *num_segments: np.ndarray) -> tuple[np.ndarray, ...]:
        ids = segment_ids.astype(np.int64).reshape(-1)
        if data.ndim == 0 or segment_ids.ndim != 1 or len(ids) != data.shape[0]:
            raise self.fail(f"segment_ids {list(segment_ids.shape)} must be 1D with one value per row of data "
                            f"{list(data.shape)}.")
        if np.any(ids < 0) or np.any(np.diff(ids) < 0):
            raise self.fail(f"segment_ids {ids.tolist()} must be non-negative and sorted in non-decreasing order.")
        count = int_list(num_segments[0])[0] if num_segments else (int(ids[-1]) + 1 if len(ids) else 0)
        if count < 0:
            raise self.fail(f"num_segments={count} must be non-negative.")
        t = self.in_types[0]
        values = to_compute(data, t)
        keep = ids < count
        out = np.full((count, *data.shape[1:]), -np.inf if values.dtype.kind == "f" else lowest(t), values.dtype)
        np.maximum.at(out, ids[keep], values[keep])
        filled = np.bincount(ids[keep], minlength=count) > 0
        out[~filled] = self.fill
        return (from_compute(out, t),)
