"""EmbeddingBagPacked-15: EmbeddingBagPackedSum-3 with ``reduction`` sum or mean (``per_sample_weights``
only with sum)."""

from __future__ import annotations

from reference_plugin.ops import register_op
from reference_plugin.ops.op_embedding_bag_packed_sum import EmbeddingBagPackedSum


@register_op("EmbeddingBagPacked", since=15)
class EmbeddingBagPacked(EmbeddingBagPackedSum):
    """Same computation; ``reduction`` is read in the base's ``__init__``."""
