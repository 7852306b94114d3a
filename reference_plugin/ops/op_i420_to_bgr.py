"""I420toBGR-8: a I420 image (one plane [N, H*3/2, W, 1] or Y [N, H, W, 1], U and V [N, H/2, W/2, 1])
to [N, H, W, 3] with channels blue, green, red;
the pixel rule and the u8 rounding are those of :func:`reference_plugin.ops._common_misc.yuv_to_rgb`."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_misc import i420_planes, yuv_to_rgb


@register_op("I420toBGR", since=8)
class I420toBGR(OpRun):
    def _run(self, *planes: np.ndarray) -> tuple[np.ndarray, ...]:
        return (yuv_to_rgb(*i420_planes(planes), self.in_types[0], bgr=True),)
