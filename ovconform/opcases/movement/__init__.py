"""Case strategies of the movement ops (OpenVINO's op-spec folder "movement"), one module per group:

* Transpose-1, Concat-1, Split-1, VariadicSplit-1, Gather-1/7/8, StridedSlice-1, Broadcast-1/3
  (:mod:`._basic`);
* GatherElements-6, GatherND-5/8, ScatterUpdate-3, ScatterElementsUpdate-3/12,
  ScatterNDUpdate-4/15, Unique-10, GatherTree-1 (:mod:`._indexed`);
* Tile-1, Roll-7, DepthToSpace-1, SpaceToDepth-1, ShuffleChannels-1, ReverseSequence-1, Pad-1/12,
  Slice-8, SliceScatter-15, BatchToSpace-2, SpaceToBatch-2 (:mod:`._layout`);
* Col2Im-15, ExtractImagePatches-3 (:mod:`._patches`);
* Reverse-1 (:mod:`._reverse`).

Each module's docstring says what it draws and what it keeps away from.
"""

from __future__ import annotations

from ovconform.opcases.movement import _basic, _indexed, _layout, _patches, _reverse  # noqa: F401 - registers the cases
