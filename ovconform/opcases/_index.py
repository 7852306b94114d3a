"""Case strategies of the "index" family (planned: GatherElements-6, GatherND-5/8, ScatterUpdate-3, ScatterElementsUpdate-3/12, ScatterNDUpdate-3/15, TopK-1/3/11, NonZero-3, Bucketize-3, SearchSorted-15, Unique-10, SegmentMax-16)."""

from __future__ import annotations
