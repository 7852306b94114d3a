"""ScatterNDUpdate-4 (the spec's ScatterNDUpdate-3, first in opset4) and ScatterNDUpdate-15: ``data``
with the elements or slices addressed by the index tuples in the last dim of ``indices`` set from
``updates`` (shape ``indices.shape[:-1] + data.shape[k:]``).

Version 15 combines by ``reduction`` (none, sum, sub, prod, min, max) with the data value, in the
order of the index tuples; f16/bf16 compute in f32 and round once. Negative indices count from
the end of their dim; an index outside ``[-dim, dim)`` is an InferError. With ``reduction="none"``
the last of several updates of one position wins (undefined in the spec).
"""

from __future__ import annotations

import math

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import scatter_reduce, wrap_indices
from reference_plugin.ops._common_types import from_compute, to_compute


@register_op("ScatterNDUpdate", since=4)
class ScatterNDUpdate4(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.reduction: str = node.attrs.get("reduction", "none")

    def _run(self, data: np.ndarray, indices: np.ndarray, updates: np.ndarray) -> tuple[np.ndarray, ...]:
        k = indices.shape[-1] if indices.ndim else -1
        if data.ndim == 0 or not 0 <= k <= data.ndim:
            raise self.fail(f"indices {list(indices.shape)} must have rank >= 1 and a last dim of at most the "
                            f"data rank {data.ndim} (data rank >= 1).")
        want = (*indices.shape[:-1], *data.shape[k:])
        if updates.shape != want:
            raise self.fail(f"updates {list(updates.shape)} must have shape indices.shape[:-1] + "
                            f"data.shape[k:] = {list(want)}.")
        tuples = wrap_indices(indices, np.array(data.shape[:k], np.int64), "index").reshape(-1, k)
        base = np.ravel_multi_index(tuple(tuples.T), data.shape[:k]) if k else np.zeros(len(tuples), np.int64)
        inner = math.prod(data.shape[k:])
        targets = (base[:, None] * inner + np.arange(inner)[None, :]).reshape(-1)
        t = self.in_types[0]
        out = np.array(to_compute(data, t), copy=True).reshape(-1)
        scatter_reduce(out, targets, to_compute(updates, t).reshape(-1), self.reduction)
        return (from_compute(out.reshape(data.shape), t),)


@register_op("ScatterNDUpdate", since=15)
class ScatterNDUpdate15(ScatterNDUpdate4):
    """ScatterNDUpdate-15: adds ``reduction``."""
