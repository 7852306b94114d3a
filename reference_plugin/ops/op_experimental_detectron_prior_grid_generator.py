"""ExperimentalDetectronPriorGridGenerator-6: every prior shifted to the centre of every grid cell.

The grid has ``h`` x ``w`` cells (0: the feature map's height / width) of ``stride_y`` x
``stride_x`` (0: image height / grid height, image width / grid width, in float32). Row
``(y * w + x) * P + p`` is prior ``p`` plus ``(stride_x * (x + 0.5), stride_y * (y + 0.5))`` on both
corners, computed in float32 as OpenVINO's reference code does. Rows past ``h * w * P`` (a grid
smaller than the feature map) are undefined in the spec; REFERENCE leaves them 0.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import store, to_compute

F32 = np.float32


@register_op("ExperimentalDetectronPriorGridGenerator", since=6)
class ExperimentalDetectronPriorGridGenerator(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        a = node.attrs
        self.h, self.w, self.flatten = a["h"], a["w"], a["flatten"]
        self.stride_x, self.stride_y = F32(a["stride_x"]), F32(a["stride_y"])

    def _run(self, priors: np.ndarray, fmap: np.ndarray, image: np.ndarray) -> tuple[np.ndarray, ...]:
        et = self.in_types[0]
        p = to_compute(priors, et).astype(F32)
        fh, fw = fmap.shape[2], fmap.shape[3]
        h, w = self.h or fh, self.w or fw
        if h > fh or w > fw:
            raise self.fail(f"the grid {h} x {w} is larger than the feature map {fh} x {fw}.")
        step_x = self.stride_x if self.stride_x else F32(image.shape[3]) / F32(w)
        step_y = self.stride_y if self.stride_y else F32(image.shape[2]) / F32(h)
        xs = (step_x * (np.arange(w, dtype=F32) + F32(0.5))).astype(F32)
        ys = (step_y * (np.arange(h, dtype=F32) + F32(0.5))).astype(F32)
        shift = np.zeros((h, w, 1, 4), F32)
        shift[..., 0::2] = xs[None, :, None, None]
        shift[..., 1::2] = ys[:, None, None, None]
        grid = (p[None, None] + shift).reshape(-1, 4)  # [h * w * P, 4]
        out = np.zeros((fh * fw * p.shape[0], 4), F32)
        out[:grid.shape[0]] = grid
        if not self.flatten:
            out = out.reshape(fh, fw, p.shape[0], 4)
        return (store(out, et),)
