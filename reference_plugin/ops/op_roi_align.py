"""ROIAlign-3/9: average or max of bilinear samples per bin (see :mod:`._common_detect`).

A ROI ``(x1, y1, x2, y2)`` maps to the sampling space ``(x1 + a) * spatial_scale - b`` (likewise
the other corners) with ``(a, b) = (0, 0)`` for asymmetric (the only ROIAlign-3 mode), ``(0, 0.5)``
for half_pixel_for_nn and ``(0.5, 0.5)`` for half_pixel; asymmetric regions are at least 1 x 1.
A batch index outside ``[0, N)`` is an InferError.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_detect import F32, Space, pool_region
from reference_plugin.ops._common_types import store, to_compute

_OFFSETS = {"asymmetric": (F32(0), F32(0)), "half_pixel_for_nn": (F32(0), F32(-0.5)),
            "half_pixel": (F32(0.5), F32(-0.5))}


def check_batches(op: OpRun, indices: np.ndarray, n: int) -> None:
    bad = (indices < 0) | (indices >= n)
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        raise op.fail(f"batch index {int(indices[r])} of ROI {r} is out of range; allowed [0, {n - 1}].")


@register_op("ROIAlign", since=3)
class ROIAlign(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        a = node.attrs
        self.pooled = (a["pooled_h"], a["pooled_w"])
        self.ratio: int = a["sampling_ratio"]
        self.scale = F32(a["spatial_scale"])
        self.mode: str = a["mode"]
        self.aligned: str = a.get("aligned_mode", "asymmetric")

    def _space(self, box: np.ndarray) -> Space:
        src, dst = _OFFSETS[self.aligned]
        x1, y1, x2, y2 = ((v + src) * self.scale + dst for v in box.astype(F32))
        width, height = x2 - x1, y2 - y1
        if self.aligned == "asymmetric":
            width, height = max(width, F32(1)), max(height, F32(1))
        return Space(F32(x1), F32(y1), F32(width), F32(height))

    def _run(self, maps: np.ndarray, rois: np.ndarray, indices: np.ndarray) -> tuple[np.ndarray, ...]:
        et = self.in_types[0]
        values = to_compute(maps, et).astype(F32)
        boxes = to_compute(rois, self.in_types[1]).astype(F32)
        if boxes.shape[0] != indices.shape[0]:
            raise self.fail(f"{boxes.shape[0]} ROIs but {indices.shape[0]} batch indices; they must match.")
        check_batches(self, indices, maps.shape[0])
        out = np.zeros((boxes.shape[0], maps.shape[1], *self.pooled), F32)
        for r, box in enumerate(boxes):
            out[r] = pool_region(values[int(indices[r])], self._space(box), self.pooled, self.ratio, self.mode)
        return (store(out, et),)
