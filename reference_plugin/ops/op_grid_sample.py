"""GridSample-9 over NCHW data, following OpenVINO's reference implementation of the spec.

Each grid pair (x, y) in [-1, 1] is denormalized in float32: ``(v + 1) * (size - 1) / 2`` with
``align_corners`` (-1 and 1 are the centres of the border pixels), else ``((v + 1) * size - 1) / 2``.
``nearest`` rounds to the nearest pixel (halves to even); ``bilinear`` weighs the 2x2 neighbours
and ``bicubic`` the 4x4 neighbours (cubic convolution, A = -0.75). Neighbours outside the image
read as zero (``zeros``), as the nearest border pixel (``border``) or as the pixel mirrored back
into the image (``reflection``: about the edges for align_corners=false, about the border pixels'
centres otherwise). Interpolation runs in float64; integer data is rounded to nearest and stored
with C semantics.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import round_half_away, store, to_compute


def denormalize(v: np.ndarray, size: int, align: bool) -> np.ndarray:
    f = np.float32
    v = v.astype(f)
    return (v + f(1)) * f(size - 1) / f(2) if align else ((v + f(1)) * f(size) - f(1)) / f(2)


def pad_index(i: np.ndarray, size: int, mode: str, align: bool) -> tuple[np.ndarray, np.ndarray]:
    """(in-range index, validity) for integer positions ``i`` along an axis of ``size``."""
    if mode == "zeros":
        valid = (i >= 0) & (i < size)
        return np.clip(i, 0, size - 1), valid
    if mode == "border":
        return np.clip(i, 0, size - 1), np.ones(i.shape, bool)
    if align:
        period = 1 if size == 1 else 2 * (size - 1)
        r = np.abs(i) % period
        r = np.where(r >= size, period - r, r)
    else:
        r = np.mod(i, 2 * size)
        r = np.where(r >= size, 2 * size - 1 - r, r)
    return r, np.ones(i.shape, bool)


def cubic_coeffs(r: np.ndarray, a: float = -0.75) -> list[np.ndarray]:
    return [((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
            ((a + 2) * r - (a + 3)) * r * r + 1,
            ((a + 2) * (1 - r) - (a + 3)) * (1 - r) * (1 - r) + 1,
            ((a * (2 - r) - 5 * a) * (2 - r) + 8 * a) * (2 - r) - 4 * a]


@register_op("GridSample", since=9)
class GridSample(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.align: bool = node.attrs["align_corners"]
        self.mode: str = node.attrs["mode"]
        self.padding: str = node.attrs["padding_mode"]

    def _sample(self, values: np.ndarray, yi: np.ndarray, xi: np.ndarray) -> np.ndarray:
        """values [N, H, W, C] at integer positions [N, Ho, Wo] -> [N, Ho, Wo, C] (padding applied)."""
        _, h, w, _ = values.shape
        y, vy = pad_index(yi, h, self.padding, self.align)
        x, vx = pad_index(xi, w, self.padding, self.align)
        n = np.arange(values.shape[0])[:, None, None]
        return values[n, y, x] * (vy & vx)[..., None]

    def _run(self, data: np.ndarray, grid: np.ndarray) -> tuple[np.ndarray, ...]:
        et = self.in_types[0]
        values = to_compute(data, et).astype(np.float64).transpose(0, 2, 3, 1)
        g = to_compute(grid, self.in_types[1])
        y = denormalize(g[..., 1], data.shape[2], self.align).astype(np.float64)
        x = denormalize(g[..., 0], data.shape[3], self.align).astype(np.float64)
        if self.mode == "nearest":
            out = self._sample(values, np.rint(y).astype(np.int64), np.rint(x).astype(np.int64))
        else:
            y0, x0 = np.floor(y), np.floor(x)
            dy, dx = (y - y0)[..., None], (x - x0)[..., None]
            y0, x0 = y0.astype(np.int64), x0.astype(np.int64)
            if self.mode == "bilinear":
                q0 = (1 - dx) * self._sample(values, y0, x0) + dx * self._sample(values, y0, x0 + 1)
                q1 = (1 - dx) * self._sample(values, y0 + 1, x0) + dx * self._sample(values, y0 + 1, x0 + 1)
                out = dy * q1 + (1 - dy) * q0
            else:
                cy, cx = cubic_coeffs(dy), cubic_coeffs(dx)
                out = sum(cy[j] * sum(cx[i] * self._sample(values, y0 - 1 + j, x0 - 1 + i) for i in range(4))
                          for j in range(4))
        out = out.transpose(0, 3, 1, 2)
        if not et.is_real():
            out = round_half_away(out)
        return (store(np.ascontiguousarray(out), et),)
