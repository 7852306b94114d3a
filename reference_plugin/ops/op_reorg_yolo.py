"""ReorgYolo-2: Darknet's reorg. The input buffer is read as ``[N, C / s², H * s, W * s]`` and the
output buffer, written as ``[N, C, H, W]`` and then shaped ``[N, C * s², H / s, W / s]``, is
``out[n, c, h, w] = in[n, c % C', h * s + (c // C') // s, w * s + (c // C') % s]`` with
``C' = C / s²`` (the spec's reference code; C must be a multiple of s² here)."""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from ovconform.opset._detection._yolo import reorg_stride
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun


@register_op("ReorgYolo", since=2)
class ReorgYolo(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.s = reorg_stride(node)

    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        s = self.s
        n, c, h, w = x.shape
        if c % (s * s) or h % s or w % s:
            raise self.fail(f"data shape {list(x.shape)} needs C divisible by stride² = {s * s} and H, W divisible "
                            f"by the stride {s}.")
        view = x.reshape(n, c // (s * s), h, s, w, s)  # [n, c', h, off_y, w, off_x]
        out = view.transpose(0, 3, 5, 1, 2, 4)  # [n, off_y, off_x, c', h, w] = [N, C, H, W] flat
        return (np.ascontiguousarray(out).reshape(n, c * s * s, h // s, w // s),)
