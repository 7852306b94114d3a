"""Shared pieces of the "misc" kernels: the embedding-bag reduction and the YUV → RGB pixel rule."""

from __future__ import annotations

import numpy as np

from ovconform.errors import InferError
from ovconform.ir import Type
from reference_plugin.ops._common_types import accumulate_dtype, store, to_compute


def check_indices(indices: np.ndarray, rows: int, what: str = "indices") -> np.ndarray:
    """``indices`` as int64, each in ``[0, rows)`` (the spec supports no reverse indexing)."""
    idx = indices.astype(np.int64).reshape(-1)
    bad = (idx < 0) | (idx >= rows)
    if bad.any():
        raise InferError(f"{what} value {int(idx[bad][0])} is out of range; allowed [0, {rows - 1}] "
                         f"(the embedding table has {rows} rows).")
    return idx


def default_row(default_index: np.ndarray | None, rows: int) -> int | None:
    """The row filling empty bags: None for zeros (no input, or -1), else a checked index."""
    if default_index is None:
        return None
    value = int(np.asarray(default_index).reshape(-1)[0])
    if value == -1:
        return None
    if not 0 <= value < rows:
        raise InferError(f"default_index {value} is out of range; allowed -1 (zeros) or [0, {rows - 1}].")
    return value


def bag_reduce(table: np.ndarray, et: Type, indices: np.ndarray, bags: np.ndarray, n_bags: int,
               weights: np.ndarray | None, default: int | None, mean: bool = False) -> np.ndarray:
    """Reduce ``table[indices[i]] * weights[i]`` into bag ``bags[i]`` (out-of-bag entries have
    ``bags[i] < 0`` and are dropped); empty bags take ``table[default]`` or zeros. Floats accumulate
    in float64 and round once; integers accumulate in int64 and wrap; an integer mean truncates
    toward zero (C++ division)."""
    acc = accumulate_dtype(et)
    values = to_compute(table, et).astype(acc)
    keep = bags >= 0
    idx, bag = indices[keep], bags[keep]
    rows = values[idx]
    if weights is not None:
        w = to_compute(weights, et).astype(acc).reshape(-1)[keep]
        rows = rows * w.reshape((-1,) + (1,) * (rows.ndim - 1))
    out = np.zeros((n_bags, *table.shape[1:]), acc)
    np.add.at(out, bag, rows)
    counts = np.bincount(bag, minlength=n_bags)
    if mean:
        shaped = np.maximum(counts, 1).reshape((-1,) + (1,) * (out.ndim - 1)).astype(acc)
        out = out / shaped if et.is_real() else np.trunc(out / shaped)
    if default is not None:
        out[counts == 0] = values[default]
    return store(out, et)


# -- YUV -> RGB -----------------------------------------------------------------------------------------------

def yuv_to_rgb(y: np.ndarray, u: np.ndarray, v: np.ndarray, et: Type, bgr: bool) -> np.ndarray:
    """The spec's pixel rule on full-resolution Y, U, V planes ([N, H, W]), computed in float32:
    R = 1.164(Y-16) + 1.596(V-128), G = 1.164(Y-16) - 0.813(V-128) - 0.391(U-128),
    B = 1.164(Y-16) + 2.018(U-128), clipped to [0, 255]; u8 output rounds to nearest, halves away
    from zero (the spec does not say how to round; OpenVINO CPU rounds exact halves either way,
    so the op cases avoid them). Output [N, H, W, 3]."""
    f = np.float32
    c = to_compute(y, et).astype(f) - f(16)
    d = to_compute(u, et).astype(f) - f(128)
    e = to_compute(v, et).astype(f) - f(128)
    r = f(1.164) * c + f(1.596) * e
    g = f(1.164) * c - f(0.813) * e - f(0.391) * d
    b = f(1.164) * c + f(2.018) * d
    rgb = np.clip(np.stack([b, g, r] if bgr else [r, g, b], axis=-1), f(0), f(255))
    if et == Type.u8:
        return np.floor(rgb + f(0.5)).astype(np.uint8)
    return store(rgb, et)


def _upsample(plane: np.ndarray) -> np.ndarray:
    return np.repeat(np.repeat(plane, 2, axis=1), 2, axis=2)


def nv12_planes(inputs: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Full-resolution Y, U, V ([N, H, W]) of an NV12 image: one plane [N, H*3/2, W, 1] (Y rows, then
    rows of interleaved U, V pairs), or Y [N, H, W, 1] and UV [N, H/2, W/2, 2]."""
    if len(inputs) == 1:
        x = inputs[0]
        h = x.shape[1] * 2 // 3
        y, uv = x[:, :h, :, 0], x[:, h:, :, 0].reshape(x.shape[0], h // 2, x.shape[2] // 2, 2)
    else:
        y, uv = inputs[0][..., 0], inputs[1]
    return y, _upsample(uv[..., 0]), _upsample(uv[..., 1])


def i420_planes(inputs: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Full-resolution Y, U, V ([N, H, W]) of an I420 image: one plane [N, H*3/2, W, 1] (the Y plane,
    then the U plane and the V plane, each H/2 x W/2, stored row after row), or Y, U and V planes."""
    if len(inputs) == 1:
        x = inputs[0]
        n, w = x.shape[0], x.shape[2]
        h = x.shape[1] * 2 // 3
        flat = x.reshape(n, -1)
        quarter = (h // 2) * (w // 2)
        y = flat[:, :h * w].reshape(n, h, w)
        u = flat[:, h * w:h * w + quarter].reshape(n, h // 2, w // 2)
        v = flat[:, h * w + quarter:].reshape(n, h // 2, w // 2)
    else:
        y, u, v = (p[..., 0] for p in inputs)
    return y, _upsample(u), _upsample(v)
