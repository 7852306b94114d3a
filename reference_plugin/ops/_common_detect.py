"""Shared pieces of the "detect" kernels: the ROIAlign sampling engine (ROIAlign-3/9 and
ROIAlignRotated-15), computed in float32 as the spec's reference does.

A region is a sampling space — start ``(x1, y1)`` and size ``(w, h)`` — split into
``pooled_h x pooled_w`` bins of ``sampling_ratio`` (0: ``ceil(bin size)``) samples per axis at
``start + bin * bin_size + (k + 0.5) * bin_size / ratio``; a rotated region maps each sample
through its rotation about the centre. A sample outside ``[-1, W] x [-1, H]`` contributes 0; else
it is clamped to the map and bilinearly interpolated (``lx = x - floor(x)``, weights
``(1-ly)(1-lx), (1-ly)lx, ly(1-lx), ly lx``). ``avg`` sums ``sample / count`` over the bin's samples;
``max`` takes the largest sample, starting from 0 (the reference's initial value).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

F32 = np.float32


@dataclass(frozen=True)
class Space:
    """One region's sampling space; ``rotation`` is (centre x, centre y, cos, sin) or None."""

    x1: F32
    y1: F32
    width: F32
    height: F32
    rotation: tuple[F32, F32, F32, F32] | None = None


def _axis(start: F32, size: F32, pooled: int, ratio: int) -> np.ndarray:
    """Pre-transform sample coordinates along one axis, shape [pooled, ratio]."""
    bin_size = size / F32(pooled)
    step = bin_size / F32(ratio)
    bins = start + np.arange(pooled, dtype=F32)[:, None] * bin_size
    return (bins + step * (np.arange(ratio, dtype=F32)[None, :] + F32(0.5))).astype(F32)


def _ratio(sampling_ratio: int, size: F32, pooled: int) -> int:
    return sampling_ratio if sampling_ratio > 0 else int(np.ceil(size / F32(pooled)))


def _corners(coord: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Clamped low index, high index and fraction of sample coordinates along an axis of ``size``."""
    coord = np.maximum(coord, F32(0))
    low = coord.astype(np.int64)
    edge = low >= size - 1
    low = np.where(edge, size - 1, low)
    high = np.where(edge, size - 1, low + 1)
    coord = np.where(edge, low.astype(F32), coord)
    return low, high, (coord - low.astype(F32)).astype(F32)


def pool_region(fmap: np.ndarray, space: Space, pooled: tuple[int, int], sampling_ratio: int,
                mode: str = "avg") -> np.ndarray:
    """Pool one region of ``fmap`` ([C, H, W], float32) into [C, pooled_h, pooled_w]."""
    c, h, w = fmap.shape
    ph, pw = pooled
    ry, rx = _ratio(sampling_ratio, space.height, ph), _ratio(sampling_ratio, space.width, pw)
    if ry <= 0 or rx <= 0:
        return np.zeros((c, ph, pw), F32)
    ys = _axis(space.y1, space.height, ph, ry)[:, :, None, None]  # [ph, ry, 1, 1]
    xs = _axis(space.x1, space.width, pw, rx)[None, None, :, :]  # [1, 1, pw, rx]
    ys, xs = np.broadcast_arrays(ys, xs)
    if space.rotation is not None:
        cx, cy, cos, sin = space.rotation
        ys, xs = (ys * cos - xs * sin + cy).astype(F32), (ys * sin + xs * cos + cx).astype(F32)
    valid = (xs >= -1) & (xs <= F32(w)) & (ys >= -1) & (ys <= F32(h))
    y0, y1, ly = _corners(ys, h)
    x0, x1, lx = _corners(xs, w)
    hy, hx = F32(1) - ly, F32(1) - lx
    weights = [hy * hx, hy * lx, ly * hx, ly * lx]
    parts = [fmap[:, y0, x0], fmap[:, y0, x1], fmap[:, y1, x0], fmap[:, y1, x1]]
    value = parts[0] * weights[0]
    for part, weight in zip(parts[1:], weights[1:], strict=True):
        value = value + part * weight
    value = np.where(valid, value, F32(0)).astype(F32)  # [C, ph, ry, pw, rx]
    value = value.transpose(0, 1, 3, 2, 4).reshape(c, ph, pw, ry * rx)
    if mode == "max":
        return np.maximum(value.max(axis=-1), F32(0)).astype(F32)
    return (value / F32(ry * rx)).sum(axis=-1, dtype=F32)
