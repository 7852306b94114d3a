"""GroupedMatMul-17: one matrix product per group (mixture of experts), ``mat_b`` ``[G, N, K]``.

* 2D x 3D: ``mat_a`` ``[T, K]`` and ``offsets`` ``[G]`` (cumulative row ends: ``0 <= offsets[0] <=
  ... <= offsets[G-1] = T``): ``out[s:e] = mat_a[s:e] @ mat_b[g]^T`` with ``s = offsets[g-1]`` (0 for
  the first group) and ``e = offsets[g]``; a group may be empty. Output ``[T, N]``.
* 3D x 3D: ``mat_a`` ``[G, M, K]``, no offsets: ``out[g] = mat_a[g] @ mat_b[g]^T``, ``[G, M, N]``.

Floats multiply in :func:`compute_float_dtype` (sgemm for f32/f16/bf16), integers accumulate in
int64 (then wrap), as MatMul.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import accumulate_dtype, compute_float_dtype, store, to_compute


@register_op("GroupedMatMul", since=17)
class GroupedMatMul(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.t, self.out_t = self.in_types[0], self.out_types[0]
        self.acc = compute_float_dtype(self.t) if self.t.is_real() else accumulate_dtype(self.t)

    def _bounds(self, offsets: np.ndarray, groups: int, rows: int) -> list[tuple[int, int]]:
        ends = [int(v) for v in np.asarray(offsets).reshape(-1)]
        if offsets.ndim != 1 or len(ends) != groups:
            raise self.fail(f"offsets has shape {list(offsets.shape)}; it needs one end per group of mat_b ({groups}).")
        starts = [0, *ends[:-1]]
        if any(s > e for s, e in zip(starts, ends, strict=True)) or (ends and ends[0] < 0):
            raise self.fail(f"offsets {ends} must be ascending from 0 (cumulative row counts).")
        if ends and ends[-1] != rows:
            raise self.fail(f"offsets {ends} must end at the number of rows of mat_a ({rows}).")
        if not ends and rows:
            raise self.fail(f"offsets is empty; mat_a's {rows} row(s) belong to no group.")
        return list(zip(starts, ends, strict=True))

    def _run(self, a: np.ndarray, b: np.ndarray, *offsets: np.ndarray) -> tuple[np.ndarray, ...]:
        x = to_compute(a, self.t).astype(self.acc, copy=False)
        w = to_compute(b, self.t).astype(self.acc, copy=False)
        if w.ndim != 3 or x.ndim not in (2, 3) or x.shape[-1] != w.shape[2]:
            raise self.fail(f"mat_a {list(a.shape)} and mat_b {list(b.shape)} do not fit ([T, K] or [G, M, K] "
                            "with [G, N, K]).")
        if x.ndim == 3:
            if offsets or x.shape[0] != w.shape[0]:
                raise self.fail(f"3D mat_a {list(a.shape)} needs mat_b with as many groups and no offsets.")
            return (store(np.matmul(x, np.swapaxes(w, 1, 2)), self.out_t),)
        if not offsets:
            raise self.fail(f"2D mat_a {list(a.shape)} needs offsets.")
        out = np.zeros((x.shape[0], w.shape[1]), self.acc)
        for g, (s, e) in enumerate(self._bounds(offsets[0], w.shape[0], x.shape[0])):
            if e > s:
                out[s:e] = np.matmul(x[s:e], w[g].T)
        return (store(out, self.out_t),)
