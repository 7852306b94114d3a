"""Builders of the tier-2/3 "index" family (planned: GatherElements-6, GatherND-5/8, ScatterUpdate-3, ScatterElementsUpdate-3/12, ScatterNDUpdate-3/15, TopK-1/3/11, NonZero-3, Bucketize-3, SearchSorted-15, Unique-10, SegmentMax-16).

Each builder validates its arguments and infers output types and shapes through the op-definition
table (:mod:`ovconform.ir._opdef`).
"""

from __future__ import annotations

__all__: list[str] = []
