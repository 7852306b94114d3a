"""ExtractImagePatches-3: patches of ``sizes`` taken every ``strides`` with dilation ``rates`` from
an NCHW image, laid out along the channel axis: ``out[n, (kh * sizes[1] + kw) * C + c, oh, ow] =
x[n, c, oh * strides[0] + kh * rates[0] - pad_top, ow * strides[1] + kw * rates[1] - pad_left]``,
zero outside the image. ``valid`` pads nothing; ``same_upper``/``same_lower`` pad
``(ceil(in / stride) - 1) * stride + rate * (size - 1) + 1 - in`` in total (when positive), the odd
extra element at the end (same_upper) or at the start (same_lower)."""

from __future__ import annotations

import numpy as np

from ovconform.ir import Dimension, Node
from ovconform.opset._movement._patches import patches_out_dim
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun


def pad_begin(size: int, k: int, s: int, r: int, auto_pad: str) -> int:
    if auto_pad == "valid":
        return 0
    total = (-(-size // s) - 1) * s + r * (k - 1) + 1 - size
    if total <= 0:
        return 0
    return (total + 1) // 2 if auto_pad == "same_lower" else total // 2


@register_op("ExtractImagePatches", since=3)
class ExtractImagePatches(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.sizes, self.strides, self.rates = node.attrs["sizes"], node.attrs["strides"], node.attrs["rates"]
        self.auto_pad: str = node.attrs["auto_pad"]

    def _positions(self, size: int, axis: int) -> tuple[np.ndarray, int]:
        k, s, r = self.sizes[axis], self.strides[axis], self.rates[axis]
        out = patches_out_dim(Dimension(size), k, s, r, self.auto_pad).get_length()
        start = np.arange(out) * s - pad_begin(size, k, s, r, self.auto_pad)
        return start[None, :] + (np.arange(k) * r)[:, None], out  # [k, out]

    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        if x.ndim != 4:
            raise self.fail(f"data has shape {list(x.shape)}; it must be NCHW (rank 4).")
        n, c, h, w = x.shape
        rows, oh = self._positions(h, 0)
        cols, ow = self._positions(w, 1)
        kh, kw = self.sizes
        inside = ((rows >= 0) & (rows < h))[:, :, None, None] & ((cols >= 0) & (cols < w))[None, None, :, :]
        src = x[:, :, np.clip(rows, 0, max(h - 1, 0))[:, :, None, None], np.clip(cols, 0, max(w - 1, 0))[None, None]]
        src = np.where(inside, src, np.zeros((), x.dtype))  # [n, c, kh, oh, kw, ow]
        out = src.transpose(0, 2, 4, 1, 3, 5).reshape(n, kh * kw * c, oh, ow)
        return (np.ascontiguousarray(out),)
