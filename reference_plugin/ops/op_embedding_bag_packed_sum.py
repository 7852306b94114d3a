"""EmbeddingBagPackedSum-3: ``out[b] = sum_j table[indices[b, j]] * per_sample_weights[b, j]``
(indices out of range are an InferError)."""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_misc import bag_reduce, check_indices


@register_op("EmbeddingBagPackedSum", since=3)
class EmbeddingBagPackedSum(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.mean = node.attrs.get("reduction", "sum") == "mean"

    def _run(self, table: np.ndarray, indices: np.ndarray, *weights: np.ndarray) -> tuple[np.ndarray, ...]:
        if indices.ndim != 2:
            raise self.fail(f"indices has shape {list(indices.shape)}; it must be [batch, bag_size].")
        idx = check_indices(indices, table.shape[0])
        bags = np.repeat(np.arange(indices.shape[0]), indices.shape[1])
        w = weights[0] if weights else None
        return (bag_reduce(table, self.in_types[0], idx, bags, indices.shape[0], w, None, self.mean),)
