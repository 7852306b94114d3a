"""DeformablePSROIPooling-1 (float32 arithmetic, as the spec's reference).

A ROI ``[batch, x1, y1, x2, y2]`` (corners rounded half away from zero) spans
``[round(x1) * s - 0.5, (round(x2) + 1) * s - 0.5]`` (s = spatial_scale), at least 0.1 wide,
likewise y; it is split into group_size x group_size bins. Output (r, c, i, j) reads input
channel ``(c * group_size + i) * group_size + j``; with offsets, the bin's top-left corner moves
by ``trans_std * offsets[r, 2k, pi, pj] * roi_width`` in x and ``trans_std * offsets[r, 2k + 1, pi,
pj] * roi_height`` in y, where k = c // (output_dim / num_classes) and ``pi = i * part_size //
group_size`` (likewise pj). The bin's spatial_bins_y x spatial_bins_x sub-bins start at
``corner + k * bin_size / bins``; one outside ``[-0.5, size - 0.5]`` is skipped, the others are
clamped to the map and sampled bilinearly; the output is their mean (0 when none is left). A
negative batch id gives zeros; one of N or more is an InferError.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import round_half_away, store, to_compute

F32 = np.float32


def _sample(fmap: np.ndarray, ys: np.ndarray, xs: np.ndarray, chans: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sum and count of the valid sub-bin samples; ys/xs [C, g, g, by, bx], chans [C, g, g]."""
    _, h, w = fmap.shape
    valid = (ys >= -0.5) & (ys <= F32(h) - F32(0.5)) & (xs >= -0.5) & (xs <= F32(w) - F32(0.5))
    ys = np.clip(ys, F32(0), F32(h - 1))
    xs = np.clip(xs, F32(0), F32(w - 1))
    top, bottom = np.floor(ys).astype(np.int64), np.ceil(ys).astype(np.int64)
    left, right = np.floor(xs).astype(np.int64), np.ceil(xs).astype(np.int64)
    dx, dy = (xs - left).astype(F32), (ys - top).astype(F32)
    ch = np.broadcast_to(chans[..., None, None], ys.shape)
    tl, tr = fmap[ch, top, left], fmap[ch, top, right]
    bl, br = fmap[ch, bottom, left], fmap[ch, bottom, right]
    upper = tl + (tr - tl) * dx
    lower = bl + (br - bl) * dx
    value = upper + (lower - upper) * dy
    return np.where(valid, value, F32(0)).sum(axis=(-2, -1), dtype=F32), valid.sum(axis=(-2, -1))


@register_op("DeformablePSROIPooling", since=1)
class DeformablePSROIPooling(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        a = node.attrs
        self.dim, self.group = a["output_dim"], a["group_size"]
        self.scale, self.trans = F32(a["spatial_scale"]), F32(a["trans_std"])
        self.bins = (a["spatial_bins_y"], a["spatial_bins_x"])
        self.part: int = a["part_size"]

    def _run(self, maps: np.ndarray, rois: np.ndarray, offsets: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        et = self.in_types[0]
        fmaps = to_compute(maps, et).astype(F32)
        boxes = to_compute(rois, self.in_types[1]).astype(F32)
        offs = to_compute(offsets, self.in_types[2]).astype(F32) if offsets is not None else None
        g = self.group
        out = np.zeros((boxes.shape[0], self.dim, g, g), F32)
        chans = (np.arange(self.dim)[:, None, None] * g + np.arange(g)[None, :, None]) * g + np.arange(g)[None, None, :]
        for r, roi in enumerate(boxes):
            batch = int(roi[0])
            if batch < 0:
                continue
            if batch >= fmaps.shape[0]:
                raise self.fail(f"ROI {r} has batch id {roi[0]}; allowed [0, {fmaps.shape[0] - 1}] (or negative).")
            out[r] = self._pool(fmaps[batch], roi, None if offs is None else offs[r], chans)
        return (store(out, et),)

    def _pool(self, fmap: np.ndarray, roi: np.ndarray, off: np.ndarray | None, chans: np.ndarray) -> np.ndarray:
        g, (by, bx) = self.group, self.bins
        x1 = F32(round_half_away(roi[1])) * self.scale - F32(0.5)
        y1 = F32(round_half_away(roi[2])) * self.scale - F32(0.5)
        x2 = (F32(round_half_away(roi[3])) + F32(1)) * self.scale - F32(0.5)
        y2 = (F32(round_half_away(roi[4])) + F32(1)) * self.scale - F32(0.5)
        width, height = max(x2 - x1, F32(0.1)), max(y2 - y1, F32(0.1))
        bin_w, bin_h = width / F32(g), height / F32(g)
        grid = np.arange(g, dtype=F32)
        corner_x = np.broadcast_to(x1 + grid[None, None, :] * bin_w, (self.dim, g, g)).astype(F32)
        corner_y = np.broadcast_to(y1 + grid[None, :, None] * bin_h, (self.dim, g, g)).astype(F32)
        if off is not None:
            classes = off.shape[0] // 2
            cls = (np.arange(self.dim) // (self.dim // classes))[:, None, None]
            part = np.arange(g) * self.part // g
            pi, pj = part[None, :, None], part[None, None, :]
            dx = off[2 * cls, pi, pj] * self.trans
            dy = off[2 * cls + 1, pi, pj] * self.trans
            corner_x = (corner_x + dx * width).astype(F32)
            corner_y = (corner_y + dy * height).astype(F32)
        sub_w, sub_h = bin_w / F32(bx), bin_h / F32(by)
        ys = corner_y[..., None, None] + np.arange(by, dtype=F32)[:, None] * sub_h
        xs = corner_x[..., None, None] + np.arange(bx, dtype=F32)[None, :] * sub_w
        ys, xs = np.broadcast_arrays(ys.astype(F32), xs.astype(F32))
        total, count = _sample(fmap, ys, xs, chans)
        return np.where(count > 0, total / np.maximum(count, 1).astype(F32), F32(0)).astype(F32)
