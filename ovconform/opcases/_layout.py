"""Case strategies of the "layout" family (planned: Pad-1/12, Tile-1, Slice-8, SliceScatter-15, Roll-7, ReverseSequence-1, DepthToSpace-1, SpaceToDepth-1, BatchToSpace-2, SpaceToBatch-2, ShuffleChannels-1)."""

from __future__ import annotations
