"""RGB or BGR pixels to NV12 (RGBtoNV12-17, BGRtoNV12-17): the spec's pixel rule and chroma averaging.

Per pixel, in float32 as OpenVINO's reference code computes it: ``Y = 0.257 R + 0.504 G + 0.098 B + 16``,
``U = -0.148 R - 0.291 G + 0.439 B + 128``, ``V = 0.439 R - 0.368 G - 0.071 B + 128``, each clipped
to [0, 255]; u8 output rounds each pixel's value to nearest (halves away from zero). The chroma
plane holds, per 2 x 2 block of pixels, the mean of the four pixels' U and V (clipped, for u8
rounded; summed row by row in float32), rounded again for u8. The single plane is
``[N, H*3/2, W, 1]``: the Y rows, then ``H/2`` rows of ``U, V, U, V, ...``; two planes are Y
``[N, H, W, 1]`` and UV ``[N, H/2, W/2, 2]``.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Type
from reference_plugin.ops._common_types import round_half_away, store, to_compute

_F = np.float32


def _clip(values: np.ndarray, et: Type) -> np.ndarray:
    clipped = np.clip(values, _F(0), _F(255))
    return round_half_away(clipped.astype(np.float64)).astype(_F) if et == Type.u8 else clipped


def rgb_to_nv12(image: np.ndarray, et: Type, bgr: bool, single_plane: bool) -> tuple[np.ndarray, ...]:
    """NV12 planes of an NHWC image ``[N, H, W, 3]`` of element type ``et``."""
    x = to_compute(image, et).astype(_F, copy=False)
    r, g, b = (x[..., 2], x[..., 1], x[..., 0]) if bgr else (x[..., 0], x[..., 1], x[..., 2])
    y = _clip(_F(0.257) * r + _F(0.504) * g + _F(0.098) * b + _F(16), et)
    u = _clip(_F(-0.148) * r - _F(0.291) * g + _F(0.439) * b + _F(128), et)
    v = _clip(_F(0.439) * r - _F(0.368) * g - _F(0.071) * b + _F(128), et)
    n, h, w = y.shape

    def block_mean(plane: np.ndarray) -> np.ndarray:
        q = plane.reshape(n, h // 2, 2, w // 2, 2)
        mean = (((q[:, :, 0, :, 0] + q[:, :, 0, :, 1]) + q[:, :, 1, :, 0]) + q[:, :, 1, :, 1]) / _F(4)
        return round_half_away(mean.astype(np.float64)).astype(_F) if et == Type.u8 else mean

    uv = np.stack([block_mean(u), block_mean(v)], axis=-1)  # [N, H/2, W/2, 2]
    y_plane = store(y[..., None], et)
    if not single_plane:
        return y_plane, store(uv, et)
    return (store(np.concatenate([y[..., None], uv.reshape(n, h // 2, w, 1)], axis=1), et),)
