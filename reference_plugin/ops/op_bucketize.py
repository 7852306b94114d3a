"""Bucketize-3: the bucket index of each element of ``data`` over the ascending 1D ``buckets``.

With ``with_right_bound`` bucket ``i`` holds ``buckets[i-1] < x <= buckets[i]``, else
``buckets[i-1] <= x < buckets[i]``; bucket 0 is everything below the first boundary and bucket
``len(buckets)`` everything above the last. Data and buckets may have different numeric types:
both compare as int64 when integral (uint64 beyond its range compares as float64), else as
float64. Unsorted ``buckets`` give searchsorted's answer (the spec requires them sorted).
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import to_compute


def comparable(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both arrays in one dtype that orders their values exactly (int64 for integers, else float64)."""
    if a.dtype.kind in "iub" and b.dtype.kind in "iub" and np.uint64 not in (a.dtype, b.dtype):
        return a.astype(np.int64), b.astype(np.int64)
    return a.astype(np.float64), b.astype(np.float64)


@register_op("Bucketize", since=3)
class Bucketize3(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.side: Literal["left", "right"] = "left" if node.attrs["with_right_bound"] else "right"

    def _run(self, data: np.ndarray, buckets: np.ndarray) -> tuple[np.ndarray, ...]:
        if buckets.ndim != 1:
            raise self.fail(f"buckets has shape {list(buckets.shape)}; it must be 1D.")
        x, edges = comparable(to_compute(data, self.in_types[0]), to_compute(buckets, self.in_types[1]))
        return (np.searchsorted(edges, x, side=self.side).astype(self.out_dtypes[0]),)
