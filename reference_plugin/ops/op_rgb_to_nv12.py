"""RGBtoNV12-17: an NHWC RGB image [N, H, W, 3] (H, W even) to NV12, one plane [N, H*3/2, W, 1] or
(``single_plane`` false) Y [N, H, W, 1] and UV [N, H/2, W/2, 2]; the pixel rule, the chroma
averaging and the u8 rounding are those of :func:`reference_plugin.ops._common_nv12.rgb_to_nv12`."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_nv12 import rgb_to_nv12


@register_op("RGBtoNV12", since=17)
class RGBtoNV12(OpRun):
    def _run(self, image: np.ndarray) -> tuple[np.ndarray, ...]:
        if image.ndim != 4 or image.shape[3] != 3 or image.shape[1] % 2 or image.shape[2] % 2:
            raise self.fail(f"image has shape {list(image.shape)}; it must be [N, H, W, 3] with H and W even.")
        return rgb_to_nv12(image, self.in_types[0], bgr=False, single_plane=bool(self.attr("single_plane")))
