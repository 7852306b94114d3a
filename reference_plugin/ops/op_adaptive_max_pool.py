"""AdaptiveMaxPool-8: the maximum of each adaptive bin (bins as in AdaptiveAvgPool-8) and its index
in the flattened spatial dims of its channel (the first one in row-major order on ties; NaN is a
maximum). Bins are gathered as a ``(N, C, *out, *bin)`` array: a bin shorter than the longest
repeats its last element, which changes neither the maximum nor the first index of it."""

from __future__ import annotations

import math

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_advanced import adaptive_bins, int_values
from reference_plugin.ops._common_types import from_compute, to_compute


def bin_index(size: int, out: int) -> np.ndarray:
    """``(out, L)`` input positions of each bin (L the longest bin; short bins repeat their end)."""
    start, end = adaptive_bins(size, out)
    longest = int(np.max(end - start))
    return np.minimum(start[:, None] + np.arange(longest)[None, :], (end - 1)[:, None])


@register_op("AdaptiveMaxPool", since=8)
class AdaptiveMaxPool(OpRun):
    def _run(self, x: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, ...]:
        n_sp = x.ndim - 2
        out = int_values(sizes, n_sp, "output_shape")
        if min(out, default=1) <= 0 or min(x.shape[2:], default=1) <= 0:
            raise self.fail(f"output_shape {out} and data spatial dims {list(x.shape[2:])} must be positive.")
        idx = [bin_index(x.shape[2 + i], o) for i, o in enumerate(out)]
        grids = []
        for i, ix in enumerate(idx):  # axis i: dims (o_i, l_i) at positions (i, n_sp + i)
            shape = [1] * (2 * n_sp)
            shape[i], shape[n_sp + i] = ix.shape
            grids.append(ix.reshape(shape))
        take: tuple[slice | np.ndarray, ...] = (slice(None), slice(None), *grids)
        values = to_compute(x, self.in_types[0])[take]
        values = values.reshape(*x.shape[:2], *out, -1)
        flat: np.ndarray = np.asarray(sum(g * math.prod(x.shape[3 + i:]) for i, g in enumerate(grids)))
        flat = np.broadcast_to(flat, (*out, *flat.shape[n_sp:])).reshape(*out, -1)
        nan = np.isnan(values) if values.dtype.kind == "f" else np.zeros(values.shape, bool)
        best = np.where(nan.any(axis=-1), np.argmax(nan, axis=-1), np.argmax(values, axis=-1))
        peak = np.take_along_axis(values, best[..., None], axis=-1)[..., 0]
        index = np.take_along_axis(np.broadcast_to(flat, values.shape), best[..., None], axis=-1)[..., 0]
        return from_compute(peak, self.out_types[0]), index.astype(self.out_dtypes[1])
