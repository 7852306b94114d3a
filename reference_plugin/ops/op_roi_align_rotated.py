"""ROIAlignRotated-15: average of bilinear samples per bin of a rotated box (see :mod:`._common_detect`).

A ROI ``(cx, cy, w, h, angle)`` has centre ``(cx * spatial_scale - 0.5, cy * spatial_scale - 0.5)``
and size ``(w * spatial_scale, h * spatial_scale)`` (no minimum); the sampling space
``[-w/2, w/2] x [-h/2, h/2]`` is rotated by ``angle`` radians counter-clockwise (clockwise with
``clockwise_mode``): ``y' = y cos - x sin + cy``, ``x' = y sin + x cos + cx``. A batch index outside
``[0, N)`` is an InferError.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_detect import F32, Space, pool_region
from reference_plugin.ops._common_types import store, to_compute
from reference_plugin.ops.op_roi_align import check_batches


@register_op("ROIAlignRotated", since=15)
class ROIAlignRotated(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        a = node.attrs
        self.pooled = (a["pooled_h"], a["pooled_w"])
        self.ratio: int = a["sampling_ratio"]
        self.scale = F32(a["spatial_scale"])
        self.clockwise: bool = a["clockwise_mode"]

    def _space(self, box: np.ndarray) -> Space:
        cx, cy = box[0] * self.scale - F32(0.5), box[1] * self.scale - F32(0.5)
        width, height = box[2] * self.scale, box[3] * self.scale
        angle = -box[4] if self.clockwise else box[4]
        cos, sin = F32(np.cos(angle)), F32(np.sin(angle))
        return Space(F32(-width / F32(2)), F32(-height / F32(2)), F32(width), F32(height),
                     (F32(cx), F32(cy), cos, sin))

    def _run(self, maps: np.ndarray, rois: np.ndarray, indices: np.ndarray) -> tuple[np.ndarray, ...]:
        et = self.in_types[0]
        values = to_compute(maps, et).astype(F32)
        boxes = to_compute(rois, self.in_types[1]).astype(F32)
        if boxes.shape[0] != indices.shape[0]:
            raise self.fail(f"{boxes.shape[0]} ROIs but {indices.shape[0]} batch indices; they must match.")
        check_batches(self, indices, maps.shape[0])
        out = np.zeros((boxes.shape[0], maps.shape[1], *self.pooled), F32)
        for r, box in enumerate(boxes):
            out[r] = pool_region(values[int(indices[r])], self._space(box), self.pooled, self.ratio)
        return (store(out, et),)
