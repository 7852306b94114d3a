"""NV12toBGR-8: a NV12 image (one plane [N, H*3/2, W, 1] or Y [N, H, W, 1] and UV [N, H/2, W/2, 2])
to [N, H, W, 3] with channels blue, green, red;
the pixel rule and the u8 rounding are those of :func:`reference_plugin.ops._common_misc.yuv_to_rgb`."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_misc import nv12_planes, yuv_to_rgb


@register_op("NV12toBGR", since=8)
class NV12toBGR(OpRun):
    def _run(self, *planes: np.ndarray) -> tuple[np.ndarray, ...]:
        return (yuv_to_rgb(*nv12_planes(planes), self.in_types[0], bgr=True),)
