"""Builders of the tier-2/3 "misc" family (planned: EmbeddingBagOffsetsSum-3/15, EmbeddingBagPackedSum-3/15, EmbeddingSegmentsSum-3, GatherTree-1, ExtractImagePatches-3, CTCGreedyDecoder-1, CTCGreedyDecoderSeqLen-6, NV12toRGB-8, NV12toBGR-8, I420toRGB-8, I420toBGR-8, ConvertPromoteTypes-14, RandomUniform-8, Multinomial-13).

Each builder validates its arguments and infers output types and shapes through the op-definition
table (:mod:`ovconform.ir._opdef`).
"""

from __future__ import annotations

__all__: list[str] = []
