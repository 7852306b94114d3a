"""ExperimentalDetectronROIFeatureExtractor-6: ROIAlign over a feature pyramid (float32).

Each ROI ``(x0, y0, x1, y1)`` goes to level ``floor(2 + log2(sqrt(w * h) / 224))`` (``w = x1 - x0``,
``h = y1 - y0``), clamped to the L levels, as the spec's formula; OpenVINO's reference code fills
in what the spec leaves out: ``log2(sqrt(w * h) / 224 + 1e-6)``, and a ROI of no area (w * h <= 0)
goes to no level, its features 0. On its level (spatial scale ``1 / pyramid_scales[l]``), ROIAlign
as Detectron's: the region starts at ``x0 * scale - offset`` (offset 0.5 when ``aligned``, else 0)
and is at least 1 x 1; ``output_size`` x ``output_size`` bins of ``sampling_ratio`` (0:
``ceil(region / output_size)``) samples per axis, bilinear, averaged (see :mod:`._common_detect`).
Output 0 holds the features in the order of the input ROIs, output 1 the ROIs: OpenVINO's
reference code and OpenVINO CPU return the input ROIs as they are (the spec's "reordered according
to their mapping to the pyramid levels" gives no order within a level; with the features in input
order the ROIs that go with them are the input's).
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_detect import F32, Space, pool_region
from reference_plugin.ops._common_types import store, to_compute


def pyramid_levels(rois: np.ndarray, levels: int) -> np.ndarray:
    """The level of each ROI (float32 as OpenVINO's reference code), ``levels`` for no area."""
    w, h = rois[:, 2] - rois[:, 0], rois[:, 3] - rois[:, 1]
    area = (w * h).astype(F32)
    with np.errstate(all="ignore"):
        scaled = (np.sqrt(np.maximum(area, F32(0))) / F32(224)).astype(F32)
        level = np.floor(np.log2(scaled + F32(1e-6)).astype(F32) + F32(2))
    level = np.clip(np.nan_to_num(level, nan=0.0, neginf=0.0), 0, levels - 1).astype(np.int64)
    return np.where(area > 0, level, levels)


@register_op("ExperimentalDetectronROIFeatureExtractor", since=6)
class ExperimentalDetectronROIFeatureExtractor(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        a = node.attrs
        self.size: int = a["output_size"]
        self.ratio: int = a["sampling_ratio"]
        self.scales = [F32(1) / F32(s) for s in a["pyramid_scales"]]
        self.offset = F32(0.5) if a["aligned"] else F32(0)

    def _space(self, box: np.ndarray, scale: F32) -> Space:
        x0, y0, x1, y1 = (v * scale - self.offset for v in box)
        return Space(F32(x0), F32(y0), F32(max(x1 - x0, F32(1))), F32(max(y1 - y0, F32(1))))

    def _run(self, rois: np.ndarray, *pyramid: np.ndarray) -> tuple[np.ndarray, ...]:
        et = self.in_types[0]
        boxes = to_compute(rois, et).astype(F32)
        maps = [to_compute(level, et).astype(F32) for level in pyramid]
        channels = maps[0].shape[1]
        if any(m.shape[1] != channels for m in maps):
            raise self.fail(f"the pyramid levels have {[m.shape[1] for m in maps]} channels; they must be equal.")
        out = np.zeros((boxes.shape[0], channels, self.size, self.size), F32)
        for r, level in enumerate(pyramid_levels(boxes, len(maps))):
            if level < len(maps):
                space = self._space(boxes[r], self.scales[level])
                out[r] = pool_region(maps[level][0], space, (self.size, self.size), self.ratio, "avg")
        return store(out, et), store(boxes, et)
