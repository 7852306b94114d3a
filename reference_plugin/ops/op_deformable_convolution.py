"""DeformableConvolution-1/8 (float32 compute; f64 in float64).

Output (n, o, oy, ox) sums, over the input channels c of o's group and the kernel taps
k = (ky, kx), ``filters[o, c, ky, kx] * mask[n, g(c) * K + k, oy, ox] * sample(c, y, x)`` at
``y = oy * stride - pad_begin + ky * dilation + offsets[n, g(c) * 2K + 2k, oy, ox]`` and
``x = ... + offsets[n, g(c) * 2K + 2k + 1, oy, ox]``, where g(c) = c // (C_IN / deformable_group)
and the mask is 1 when absent. ``sample`` is bilinear:

* ``bilinear_interpolation_pad`` false (always in version 1): a point outside ``[0, H) x [0, W)``
  gives 0; inside, the corners ``floor``/``ceil`` are clamped to the map;
* true: a point whose truncation lies outside ``[0, H) x [0, W)`` gives 0; the four corners
  ``floor``, ``floor + 1`` count as 0 outside the map.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from ovconform.opset._window import resolve_pads
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import compute_float_dtype, store, to_compute


def sample(img: np.ndarray, y: np.ndarray, x: np.ndarray, pad: bool) -> np.ndarray:
    """Bilinear samples of ``img`` [C, H, W] at points y, x ([...]) -> [C, ...]."""
    _, h, w = img.shape
    if pad:
        valid = (np.trunc(x) > -1) & (np.trunc(x) < w) & (np.trunc(y) > -1) & (np.trunc(y) < h)
        y1, x1 = np.floor(y).astype(np.int64), np.floor(x).astype(np.int64)
        y2, x2 = y1 + 1, x1 + 1
    else:
        valid = (x >= 0) & (x < w) & (y >= 0) & (y < h)
        y1 = np.maximum(np.floor(y), 0).astype(np.int64)
        x1 = np.maximum(np.floor(x), 0).astype(np.int64)
        y2 = np.minimum(np.ceil(y), h - 1).astype(np.int64)
        x2 = np.minimum(np.ceil(x), w - 1).astype(np.int64)
    dy, dx = (y - y1).astype(img.dtype), (x - x1).astype(img.dtype)

    def corner(yi: np.ndarray, xi: np.ndarray) -> np.ndarray:
        inside = (yi >= 0) & (yi < h) & (xi >= 0) & (xi < w)
        return np.where(inside, img[:, np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)], 0)

    one = img.dtype.type(1)
    value = ((one - dx) * (one - dy) * corner(y1, x1) + (one - dx) * dy * corner(y2, x1)
             + dx * (one - dy) * corner(y1, x2) + dx * dy * corner(y2, x2))
    return np.where(valid & np.isfinite(y) & np.isfinite(x), value, 0).astype(img.dtype)


@register_op("DeformableConvolution", since=1)
class DeformableConvolution(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        a = node.attrs
        self.attrs = dict(a)
        self.group: int = a["group"]
        self.dgroup: int = a["deformable_group"]
        self.pad: bool = a.get("bilinear_interpolation_pad", False)
        self.t = self.in_types[0]
        self.dtype = compute_float_dtype(self.t)

    def _run(self, data: np.ndarray, offsets: np.ndarray, filters: np.ndarray,
             mask: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        x = to_compute(data, self.t).astype(self.dtype)
        off = to_compute(offsets, self.t).astype(self.dtype)
        wts = to_compute(filters, self.t).astype(self.dtype)
        n, c_in, h, w = x.shape
        c_out, _, kh, kw = wts.shape
        oh, ow = off.shape[2:]
        a = self.attrs
        pb, _ = resolve_pads([h, w], [kh, kw], a["strides"], a["dilations"], a["auto_pad"], a["pads_begin"],
                             a["pads_end"])
        taps = kh * kw
        oy = np.arange(oh) * a["strides"][0] - pb[0]
        ox = np.arange(ow) * a["strides"][1] - pb[1]
        ky = (np.arange(kh) * a["dilations"][0]).repeat(kw)
        kx = np.tile(np.arange(kw) * a["dilations"][1], kh)
        base_y = (oy[None, :, None] + ky[:, None, None]).astype(self.dtype)  # [K, OH, 1]
        base_x = (ox[None, None, :] + kx[:, None, None]).astype(self.dtype)  # [K, 1, OW]
        per_dg = c_in // self.dgroup
        out = np.zeros((n, c_out, oh, ow), self.dtype)
        for b in range(n):
            cols = np.empty((c_in, taps, oh, ow), self.dtype)
            for g in range(self.dgroup):
                d_off = off[b, g * 2 * taps:(g + 1) * 2 * taps]
                ys, xs = base_y + d_off[0::2], base_x + d_off[1::2]
                values = sample(x[b, g * per_dg:(g + 1) * per_dg], ys, xs, self.pad)
                if mask is not None:
                    values = values * to_compute(mask, self.t).astype(self.dtype)[b, g * taps:(g + 1) * taps]
                cols[g * per_dg:(g + 1) * per_dg] = values
            out[b] = self._convolve(cols, wts)
        return (store(out, self.out_types[0]),)

    def _convolve(self, cols: np.ndarray, wts: np.ndarray) -> np.ndarray:
        c_in, taps, oh, ow = cols.shape
        c_out = wts.shape[0]
        cg, og = c_in // self.group, c_out // self.group
        cols = cols.reshape(self.group, cg * taps, oh * ow)
        wg = wts.reshape(self.group, og, cg * taps)
        return np.matmul(wg, cols).reshape(c_out, oh, ow)
