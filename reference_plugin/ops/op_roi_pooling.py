"""ROIPooling-2 (positions computed in float32, as the spec's reference code does for f32).

* ``max``: the ROI corners times ``spatial_scale`` are rounded (halves away from zero); the ROI
  spans ``max(end - start + 1, 1)`` pixels per axis, split into ``pooled`` bins: bin i covers
  ``[floor(i * size / pooled), ceil((i + 1) * size / pooled))`` from the ROI start, clipped to the
  map; each output is the bin's maximum, 0 for an empty bin.
* ``bilinear``: the ROI corners are normalized ([0, 1]); output (i, j) samples the map at
  ``y = y_1 * (H - 1) + i * (y_2 - y_1) * (H - 1) / (pooled_h - 1)`` (the last row exactly at
  ``y_2 * (H - 1)``; the centre when pooled_h = 1), likewise x, by bilinear interpolation; a sample
  outside ``[0, H - 1] x [0, W - 1]`` is 0.

A batch id outside ``[0, N)`` is an InferError.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import round_half_away, store, to_compute

F32 = np.float32


def max_bins(start: int, end: int, pooled: int, size: int) -> list[tuple[int, int]]:
    length = max(end - start + 1, 1)
    bin_size = F32(length) / F32(pooled)
    out = []
    for i in range(pooled):
        lo = int(np.floor(F32(i) * bin_size)) + start
        hi = int(np.ceil(F32(i + 1) * bin_size)) + start
        out.append((min(max(lo, 0), size), min(max(hi, 0), size)))
    return out


def bilinear_points(lo: F32, hi: F32, pooled: int, size: int) -> np.ndarray:
    extent = (hi - lo) * F32(size - 1)
    if pooled == 1:
        return np.array([F32(0.5) * (lo + hi) * F32(size - 1)], F32)
    scale = extent / F32(pooled - 1)
    pts = np.arange(pooled, dtype=F32) * scale + lo * F32(size - 1)
    pts[-1] = F32(size - 1) * hi
    return pts


@register_op("ROIPooling", since=2)
class ROIPooling(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.pooled = (node.attrs["pooled_h"], node.attrs["pooled_w"])
        self.scale = F32(node.attrs["spatial_scale"])
        self.method: str = node.attrs["method"]

    def _run(self, maps: np.ndarray, rois: np.ndarray) -> tuple[np.ndarray, ...]:
        et = self.in_types[0]
        values = to_compute(maps, et).astype(np.float64)
        boxes = to_compute(rois, self.in_types[1]).astype(F32)
        n, c, h, w = maps.shape
        out = np.zeros((boxes.shape[0], c, *self.pooled))
        for r, box in enumerate(boxes):
            batch = int(box[0])
            if not 0 <= batch < n:
                raise self.fail(f"ROI {r} has batch id {box[0]}; allowed [0, {n - 1}].")
            fn = self._max if self.method == "max" else self._bilinear
            out[r] = fn(values[batch], box[1:])
        return (store(out, et),)

    def _max(self, fmap: np.ndarray, box: np.ndarray) -> np.ndarray:
        x1, y1, x2, y2 = (int(round_half_away(v * self.scale)) for v in box)
        out = np.zeros((fmap.shape[0], *self.pooled))
        for i, (h0, h1) in enumerate(max_bins(y1, y2, self.pooled[0], fmap.shape[1])):
            for j, (w0, w1) in enumerate(max_bins(x1, x2, self.pooled[1], fmap.shape[2])):
                if h1 > h0 and w1 > w0:
                    out[:, i, j] = fmap[:, h0:h1, w0:w1].max(axis=(1, 2))
        return out

    def _bilinear(self, fmap: np.ndarray, box: np.ndarray) -> np.ndarray:
        _, h, w = fmap.shape
        ys = bilinear_points(box[1], box[3], self.pooled[0], h)
        xs = bilinear_points(box[0], box[2], self.pooled[1], w)
        valid = ((ys >= 0) & (ys <= h - 1))[:, None] & ((xs >= 0) & (xs <= w - 1))[None, :]
        ys_c, xs_c = np.clip(ys, 0, h - 1), np.clip(xs, 0, w - 1)
        top, left = np.floor(ys_c).astype(np.int64), np.floor(xs_c).astype(np.int64)
        bottom = np.minimum(np.ceil(ys_c).astype(np.int64), h - 1)
        right = np.minimum(np.ceil(xs_c).astype(np.int64), w - 1)
        dy = (ys_c - top).astype(np.float64)[:, None]
        dx = (xs_c - left).astype(np.float64)[None, :]
        tl, tr = fmap[:, top[:, None], left[None, :]], fmap[:, top[:, None], right[None, :]]
        bl, br = fmap[:, bottom[:, None], left[None, :]], fmap[:, bottom[:, None], right[None, :]]
        upper = tl + (tr - tl) * dx
        lower = bl + (br - bl) * dx
        return np.where(valid, upper + (lower - upper) * dy, 0.0)
