"""Helpers shared by the "advanced" kernels: adaptive bins, transposed convolution, small checks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from reference_plugin.ops._common_conv import convolve
from reference_plugin.ops._common_window import WindowSpec


def adaptive_bins(size: int, out: int) -> tuple[np.ndarray, np.ndarray]:
    """Start (inclusive) and end (exclusive) of each of ``out`` adaptive bins over ``size``:
    ``floor(i·size/out)`` and ``ceil((i+1)·size/out)``."""
    i = np.arange(out, dtype=np.int64)
    return (i * size) // out, -((-(i + 1) * size) // out)


def int_values(arr: np.ndarray, count: int, what: str) -> list[int]:
    """A 1D integer input of ``count`` values as Python ints (ValueError naming it otherwise)."""
    flat = np.asarray(arr).reshape(-1)
    if flat.size != count:
        raise ValueError(f"{what} {flat.tolist()} must hold {count} value(s).")
    return [int(v) for v in flat]


def backprop_crop(in_sizes: Sequence[int], kernel: Sequence[int], attrs: dict[str, Any],
                  output_shape: Sequence[int] | None) -> tuple[list[int], list[int]]:
    """Per spatial axis: how many elements the full transposed result loses at the beginning, and
    the output size (see :mod:`ovconform.opset._convolution`)."""
    n = len(in_sizes)
    strides, dil = attrs["strides"], attrs["dilations"]
    op = list(attrs.get("output_padding") or [0] * n)
    explicit = attrs["auto_pad"] == "explicit"
    pb = list(attrs["pads_begin"] or [0] * n) if explicit else [0] * n
    pe = list(attrs["pads_end"] or [0] * n) if explicit else [0] * n
    crop, out = [], []
    for i in range(n):
        full = (in_sizes[i] - 1) * strides[i] + (kernel[i] - 1) * dil[i] + 1
        if output_shape is None:
            crop.append(pb[i])
            out.append(full - pb[i] - pe[i] + op[i])
            continue
        total = full + op[i] - output_shape[i]
        if attrs["auto_pad"] == "same_upper":
            crop.append(total - total // 2)
        elif attrs["auto_pad"] == "same_lower":
            crop.append(total // 2)
        else:
            crop.append(pb[i])
        out.append(int(output_shape[i]))
    return crop, out


def transposed_conv(x: np.ndarray, w: np.ndarray, strides: Sequence[int], dilations: Sequence[int],
                    crop: Sequence[int], out: Sequence[int]) -> np.ndarray:
    """Transposed convolution of ``x`` ``(N, G*Cg, *spatial)`` with ``w`` ``(G, Cg, Og, *kernel)``
    (already in the accumulation dtype) → ``(N, G*Og, *out)``: output position ``o`` is the full
    result's position ``o + crop`` (zeros past its end)."""
    n_sp = x.ndim - 2
    kernel = w.shape[3:]
    up_shape = [(s - 1) * st + 1 for s, st in zip(x.shape[2:], strides, strict=True)]
    z = np.zeros((*x.shape[:2], *up_shape), x.dtype)
    z[(slice(None), slice(None), *(slice(None, None, st) for st in strides))] = x
    for i in range(n_sp):
        dk = (kernel[i] - 1) * dilations[i] + 1
        begin = dk - 1 - crop[i]
        end = out[i] + dk - 1 - begin - z.shape[2 + i]
        z = _pad_or_crop(z, 2 + i, begin, end)
    wc = np.flip(w, axis=tuple(range(3, 3 + n_sp))).swapaxes(1, 2)
    spec = WindowSpec(tuple(kernel), (1,) * n_sp, tuple(dilations), (0,) * n_sp, (0,) * n_sp, "explicit")
    return convolve(z, np.ascontiguousarray(wc), spec)


def _pad_or_crop(z: np.ndarray, axis: int, begin: int, end: int) -> np.ndarray:
    if begin < 0:
        z = z[(slice(None),) * axis + (slice(-begin, None),)]
        begin = 0
    if end < 0:
        z = z[(slice(None),) * axis + (slice(0, z.shape[axis] + end),)]
        end = 0
    if begin or end:
        widths = [(0, 0)] * z.ndim
        widths[axis] = (begin, end)
        z = np.pad(z, widths)
    return z


# -- Interpolate: one (out, in) weight matrix per interpolated axis ------------------------------------------

_F32 = np.float32


def original_coords(out_len: int, in_len: int, scale: float, mode: str) -> np.ndarray:
    """Input coordinate of each output index (``coordinate_transformation_mode``), computed in
    float32 in the spec's operation order (as OpenVINO does)."""
    x = np.arange(out_len, dtype=_F32)
    s = _F32(scale)
    half = _F32(0.5)
    if mode == "half_pixel":
        return (x + half) / s - half
    if mode == "pytorch_half_pixel":
        return (x + half) / s - half if out_len > 1 else np.zeros(out_len, _F32)
    if mode == "asymmetric":
        return x / s
    if mode == "tf_half_pixel_for_nn":
        return (x + half) / s
    if mode == "align_corners":
        return np.zeros(out_len, _F32) if out_len == 1 else x * _F32(in_len - 1) / _F32(out_len - 1)
    raise ValueError(f"coordinate_transformation_mode {mode!r} is not implemented.")


def nearest_index(coords: np.ndarray, mode: str, downsample: bool) -> np.ndarray:
    """The spec's GetNearestPixel for every coordinate (C++ rounding: halves away from zero)."""
    c = coords.astype(np.float64)
    away = np.copysign(np.floor(np.abs(c) + 0.5), c)
    if mode == "round_prefer_floor":
        return np.where(c == np.trunc(c) + 0.5, np.floor(c), away).astype(np.int64)
    if mode == "round_prefer_ceil":
        return away.astype(np.int64)
    if mode == "floor":
        return np.floor(c).astype(np.int64)
    if mode == "ceil":
        return np.ceil(c).astype(np.int64)
    if mode == "simple":
        return (np.ceil(c) if downsample else np.trunc(c)).astype(np.int64)
    raise ValueError(f"nearest_mode {mode!r} is not implemented.")


def _rows(out_len: int, in_len: int) -> np.ndarray:
    return np.zeros((out_len, in_len), np.float64)


def nearest_matrix(coords: np.ndarray, in_len: int, mode: str, downsample: bool) -> np.ndarray:
    idx = np.clip(nearest_index(coords, mode, downsample), 0, in_len - 1)
    w = _rows(len(coords), in_len)
    w[np.arange(len(coords)), idx] = 1.0
    return w


def triangle_matrix(coords: np.ndarray, in_len: int, a: float) -> np.ndarray:
    """Mode ``linear``: weights ``max(0, 1 - |a·(coord - j)|)`` over the input, normalized per row
    (a row with no weight gives 0); ``a`` is the scale when antialiasing a downsample, else 1."""
    dz = coords.astype(np.float64)[:, None] - np.arange(in_len)[None, :]
    w = np.maximum(0.0, 1.0 - np.abs(a * dz))
    total = w.sum(axis=1, keepdims=True)
    return np.divide(w, total, out=np.zeros_like(w), where=total != 0)


def onnx_linear_matrix(coords: np.ndarray, in_len: int) -> np.ndarray:
    """Mode ``linear_onnx``: two taps around the coordinate clamped into ``[0, in - 1]``."""
    c = np.clip(coords.astype(np.float64), 0, in_len - 1)
    i1 = np.minimum(np.trunc(c).astype(np.int64), in_len - 1)
    i2 = np.minimum(i1 + 1, in_len - 1)
    d1, d2 = np.abs(c - i1), np.abs(c - i2)
    same = i1 == i2
    d1, d2 = np.where(same, 0.5, d1), np.where(same, 0.5, d2)
    w = _rows(len(coords), in_len)
    rows = np.arange(len(coords))
    np.add.at(w, (rows, i1), d2)
    np.add.at(w, (rows, i2), d1)
    return w


def cubic_coeffs(t: np.ndarray, a: float) -> np.ndarray:
    """The spec's get_cubic_coeff for each fraction ``t``: ``(len(t), 4)``."""
    s = np.abs(t)
    return np.stack([a * (s - 1.0) * (s - 1.0) * s,
                     ((a + 2.0) * s - (a + 3.0)) * s * s + 1.0,
                     (((-a - 2.0) * s + (2.0 * a + 3.0)) * s - a) * s,
                     -a * s * s * (s - 1.0)], axis=1)


def cubic_matrix(coords: np.ndarray, in_len: int, a: float) -> np.ndarray:
    """Mode ``cubic``: four taps ``floor(c) - 1 .. floor(c) + 2`` clipped to the input."""
    c = coords.astype(np.float64)
    base = np.floor(c)
    coeff = cubic_coeffs(c - base, a)
    taps = np.clip(base.astype(np.int64)[:, None] + np.arange(-1, 3)[None, :], 0, in_len - 1)
    w = _rows(len(c), in_len)
    np.add.at(w, (np.repeat(np.arange(len(c)), 4), taps.reshape(-1)), coeff.reshape(-1))
    return w


def _pillow_filter(x: np.ndarray, cubic: bool, a: float) -> np.ndarray:
    x = np.abs(x)
    if not cubic:
        return np.maximum(0.0, 1.0 - x)
    near = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    far = (((x - 5.0) * x + 8.0) * x - 4.0) * a
    return np.where(x < 1.0, near, np.where(x < 2.0, far, 0.0))


def pillow_matrix(out_len: int, in_len: int, scale: float, cubic: bool, a: float) -> np.ndarray:
    """Modes ``bilinear_pillow``/``bicubic_pillow``: Pillow's resampling weights (``scale`` is
    in/out; a downsample widens the filter by it, i.e. antialiases), normalized per row."""
    support = (2.0 if cubic else 1.0) * max(scale, 1.0)
    ss = 1.0 / max(scale, 1.0)
    center = (np.arange(out_len) + 0.5) * scale
    xmin = np.maximum(np.trunc(center - support + 0.5), 0)
    xmax = np.minimum(np.trunc(center + support + 0.5), in_len)
    j = np.arange(in_len)[None, :]
    inside = (j >= xmin[:, None]) & (j < xmax[:, None])
    w = np.where(inside, _pillow_filter((j - center[:, None] + 0.5) * ss, cubic, a), 0.0)
    total = w.sum(axis=1, keepdims=True)
    return np.divide(w, total, out=np.zeros_like(w), where=total != 0)


def apply_matrix(x: np.ndarray, axis: int, w: np.ndarray) -> np.ndarray:
    """Contract ``x`` along ``axis`` with ``w`` ``(out, in)``."""
    return np.moveaxis(np.tensordot(x, w, axes=([axis], [1])), -1, axis)
