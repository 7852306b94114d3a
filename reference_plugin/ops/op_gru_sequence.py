"""GRUSequence-5: the GRU cell run over ``X [batch, seq_length, input_size]`` per direction
(``forward``, ``reverse`` or both for ``bidirectional``), each batch element for its own
``sequence_lengths`` steps; ``Y`` is 0 past a sequence's length (see ``run_direction`` in ``_common_recurrent``)."""

from __future__ import annotations

from reference_plugin.ops import register_op
from reference_plugin.ops._common_recurrent import SequenceOp


@register_op("GRUSequence", since=5)
class GRUSequence5(SequenceOp):
    kind = "GRU"
