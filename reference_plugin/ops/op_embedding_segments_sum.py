"""EmbeddingSegmentsSum-3: ``out[s] = sum(table[indices[i]] * w[i] for i with segment_ids[i] == s)``
over ``num_segments`` segments; an empty segment is ``table[default_index]`` (zeros without one, or
for -1). Indices and segment ids out of range are an InferError (the spec supports no reverse
indexing); segment ids need not be sorted here."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_misc import bag_reduce, check_indices, default_row


@register_op("EmbeddingSegmentsSum", since=3)
class EmbeddingSegmentsSum(OpRun):
    def _run(self, table: np.ndarray, indices: np.ndarray, segment_ids: np.ndarray, num_segments: np.ndarray,
             *optional: np.ndarray) -> tuple[np.ndarray, ...]:
        count = int(num_segments.reshape(-1)[0])
        if count < 0:
            raise self.fail(f"num_segments is {count}; it must not be negative.")
        if segment_ids.shape != indices.shape:
            raise self.fail(f"segment_ids {list(segment_ids.shape)} must have the shape of indices "
                            f"{list(indices.shape)}.")
        idx = check_indices(indices, table.shape[0])
        bags = check_indices(segment_ids, count, "segment_ids")
        default = default_row(optional[0], table.shape[0]) if optional else None
        weights = optional[1] if len(optional) > 1 else None
        return (bag_reduce(table, self.in_types[0], idx, bags, count, weights, default),)
