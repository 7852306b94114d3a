"""EmbeddingBagOffsets-15: EmbeddingBagOffsetsSum-3 with ``reduction`` sum or mean (the mean of a
non-empty bag divides its sum by the bag size; ``per_sample_weights`` only with sum)."""

from __future__ import annotations

from reference_plugin.ops import register_op
from reference_plugin.ops.op_embedding_bag_offsets_sum import EmbeddingBagOffsetsSum


@register_op("EmbeddingBagOffsets", since=15)
class EmbeddingBagOffsets(EmbeddingBagOffsetsSum):
    """Same computation; ``reduction`` is read in the base's ``__init__``."""
