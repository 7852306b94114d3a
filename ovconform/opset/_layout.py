"""Builders of the tier-2/3 "layout" family (planned: Pad-1/12, Tile-1, Slice-8, SliceScatter-15, Roll-7, ReverseSequence-1, DepthToSpace-1, SpaceToDepth-1, BatchToSpace-2, SpaceToBatch-2, ShuffleChannels-1).

Each builder validates its arguments and infers output types and shapes through the op-definition
table (:mod:`ovconform.ir._opdef`).
"""

from __future__ import annotations

__all__: list[str] = []
