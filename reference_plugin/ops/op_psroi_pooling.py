"""PSROIPooling-1 (position-sensitive ROI pooling; positions in float32 as the spec's reference code).

* ``average``: the ROI corners are rounded (halves away from zero) and scaled:
  ``start = round(x_1) * scale``, ``end = (round(x_2) + 1) * scale``; the box is split into
  group_size² bins, bin (i, j) covering ``[floor(start + j * bin), ceil(start + (j + 1) * bin))``
  (clipped to the map), and output ``[r, o, i, j]`` is the mean of input channel
  ``(o * group_size + i) * group_size + j`` over the bin.
* ``bilinear``: the corners times ``scale`` are normalized coordinates; the box is split into
  spatial_bins_y x spatial_bins_x sub-boxes, and output ``[r, o, i, j]`` averages over the
  sub-boxes (b_y, b_x) a bilinear sample of input channel ``(b_y * spatial_bins_x + b_x) *
  output_dim + o`` at ``x = j * w_scale + x_b * (W - 1)`` (``w_scale = bin_w * (W - 1) /
  (group_size - 1)``; the sub-box centre when group_size = 1), likewise y; a sample at or past
  the map's far edge adds 0.

Cases keep ROIs inside the map (negative positions are undefined in the reference code); a batch
id outside ``[0, N)`` is an InferError.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import round_half_away, store, to_compute

F32 = np.float32


@register_op("PSROIPooling", since=1)
class PSROIPooling(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        a = node.attrs
        self.dim, self.group, self.scale = a["output_dim"], a["group_size"], F32(a["spatial_scale"])
        self.bins = (a["spatial_bins_y"], a["spatial_bins_x"])
        self.mode: str = a["mode"]

    def _run(self, maps: np.ndarray, rois: np.ndarray) -> tuple[np.ndarray, ...]:
        et = self.in_types[0]
        values = to_compute(maps, et).astype(np.float64)
        boxes = to_compute(rois, self.in_types[1]).astype(F32)
        out = np.zeros((boxes.shape[0], self.dim, self.group, self.group))
        for r, box in enumerate(boxes):
            batch = int(box[0])
            if not 0 <= batch < maps.shape[0]:
                raise self.fail(f"ROI {r} has batch id {box[0]}; allowed [0, {maps.shape[0] - 1}].")
            fn = self._average if self.mode == "average" else self._bilinear
            out[r] = fn(values[batch], box[1:])
        return (store(out, et),)

    def _average(self, fmap: np.ndarray, box: np.ndarray) -> np.ndarray:
        g, (_, h, w) = self.group, fmap.shape
        x1, y1, x2, y2 = (F32(round_half_away(v)) for v in box)
        start_w, start_h = x1 * self.scale, y1 * self.scale
        bin_w = (F32(x2 + 1) * self.scale - start_w) / F32(g)
        bin_h = (F32(y2 + 1) * self.scale - start_h) / F32(g)
        channels = fmap.reshape(self.dim, g, g, h, w)
        out = np.zeros((self.dim, g, g))
        for i in range(g):
            h0 = min(int(np.floor(start_h + F32(i) * bin_h)), h - 1)
            h1 = min(int(np.ceil(start_h + F32(i + 1) * bin_h)), h)
            for j in range(g):
                w0 = min(int(np.floor(start_w + F32(j) * bin_w)), w - 1)
                w1 = min(int(np.ceil(start_w + F32(j + 1) * bin_w)), w)
                out[:, i, j] = channels[:, i, j, h0:h1, w0:w1].mean(axis=(1, 2))
        return out

    def _points(self, start: F32, bin_size: F32, size: int, index: int) -> np.ndarray:
        lo = start + F32(index) * bin_size
        if self.group == 1:
            return np.array([(lo + lo + bin_size) * F32(size - 1) / F32(2)], F32)
        step = bin_size * F32(size - 1) / F32(self.group - 1)
        return np.arange(self.group, dtype=F32) * step + lo * F32(size - 1)

    def _bilinear(self, fmap: np.ndarray, box: np.ndarray) -> np.ndarray:
        (by, bx), (_, h, w) = self.bins, fmap.shape
        x1, y1, x2, y2 = (v * self.scale for v in box)
        bin_w, bin_h = (x2 - x1) / F32(bx), (y2 - y1) / F32(by)
        channels = fmap.reshape(by, bx, self.dim, h, w)
        total = np.zeros((self.dim, self.group, self.group))
        for sy in range(by):
            ys = self._points(y1, bin_h, h, sy)
            for sx in range(bx):
                xs = self._points(x1, bin_w, w, sx)
                total += self._sample(channels[sy, sx], ys, xs)
        return total / (by * bx)

    @staticmethod
    def _sample(fmap: np.ndarray, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
        _, h, w = fmap.shape
        valid = (ys < h)[:, None] & (xs < w)[None, :]
        ys_c, xs_c = np.clip(ys, 0, h - 1), np.clip(xs, 0, w - 1)
        top, left = np.floor(ys_c).astype(np.int64), np.floor(xs_c).astype(np.int64)
        bottom = np.minimum(np.ceil(ys_c).astype(np.int64), h - 1)
        right = np.minimum(np.ceil(xs_c).astype(np.int64), w - 1)
        dy = (ys_c - top).astype(np.float64)[:, None]
        dx = (xs_c - left).astype(np.float64)[None, :]
        tl, tr = fmap[:, top[:, None], left[None, :]], fmap[:, top[:, None], right[None, :]]
        bl, br = fmap[:, bottom[:, None], left[None, :]], fmap[:, bottom[:, None], right[None, :]]
        upper = tl + (tr - tl) * dx
        return np.where(valid, upper + (bl + (br - bl) * dx - upper) * dy, 0.0)
