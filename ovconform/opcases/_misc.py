"""Case strategies of the "misc" family (planned: EmbeddingBagOffsetsSum-3/15, EmbeddingBagPackedSum-3/15, EmbeddingSegmentsSum-3, GatherTree-1, ExtractImagePatches-3, CTCGreedyDecoder-1, CTCGreedyDecoderSeqLen-6, NV12toRGB-8, NV12toBGR-8, I420toRGB-8, I420toBGR-8, ConvertPromoteTypes-14, RandomUniform-8, Multinomial-13)."""

from __future__ import annotations
