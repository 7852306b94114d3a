"""EmbeddingBagOffsetsSum-3: bag b is ``indices[offsets[b]:offsets[b + 1]]`` (the last runs to the
end), its embeddings summed with ``per_sample_weights``; an empty bag is ``table[default_index]``
(zeros without one, or for -1). Offsets must be non-decreasing and at most ``len(indices)``;
indices and a default index out of range are an InferError."""

from __future__ import annotations

import numpy as np

from ovconform.errors import InferError
from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_misc import bag_reduce, check_indices, default_row


def offset_bags(offsets: np.ndarray, count: int) -> np.ndarray:
    """The bag of each of ``count`` indices (-1 before the first offset)."""
    off = offsets.astype(np.int64).reshape(-1)
    if off.size and (np.any(np.diff(off) < 0) or off[0] < 0 or off[-1] > count):
        raise InferError(f"offsets {off.tolist()} must be non-decreasing within [0, {count}] "
                         f"(the number of indices).")
    return np.searchsorted(off, np.arange(count), side="right") - 1


@register_op("EmbeddingBagOffsetsSum", since=3)
class EmbeddingBagOffsetsSum(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.mean = node.attrs.get("reduction", "sum") == "mean"

    def _run(self, table: np.ndarray, indices: np.ndarray, offsets: np.ndarray,
             *optional: np.ndarray) -> tuple[np.ndarray, ...]:
        idx = check_indices(indices, table.shape[0])
        bags = offset_bags(offsets, idx.size)
        default = default_row(optional[0], table.shape[0]) if optional else None
        weights = optional[1] if len(optional) > 1 else None
        return (bag_reduce(table, self.in_types[0], idx, bags, offsets.size, weights, default, self.mean),)
