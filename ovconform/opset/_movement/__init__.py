"""Movement ops (OpenVINO's op-spec folder "movement"), one module per group:

* Gather-1/7/8, GatherElements-6, GatherND-5/8, GatherTree-1, ScatterUpdate-3,
  ScatterElementsUpdate-3/12, ScatterNDUpdate-4/15, Unique-10 (:mod:`._gather_scatter`);
* Concat-1, Split-1, VariadicSplit-1 (:mod:`._split_concat`);
* StridedSlice-1, Slice-8, SliceScatter-15 (:mod:`._slice`);
* Transpose-1, Broadcast-1/3, Tile-1, Roll-7, DepthToSpace-1, SpaceToDepth-1, ShuffleChannels-1,
  ReverseSequence-1, Pad-1/12, BatchToSpace-2, SpaceToBatch-2 (:mod:`._layout`);
* Col2Im-15, ExtractImagePatches-3 (:mod:`._patches`).

Not here: Reverse-1 (in opset1, no Python builder in OpenVINO) and the string tensors
StringTensorPack/Unpack-15 (listed under "type").
"""

from __future__ import annotations

from ovconform.opset._movement import _gather_scatter, _layout, _patches, _slice, _split_concat
from ovconform.opset._movement._gather_scatter import *  # noqa: F403
from ovconform.opset._movement._layout import *  # noqa: F403
from ovconform.opset._movement._patches import *  # noqa: F403
from ovconform.opset._movement._slice import *  # noqa: F403
from ovconform.opset._movement._split_concat import *  # noqa: F403

__all__ = sorted({name for mod in (_gather_scatter, _layout, _patches, _slice, _split_concat) for name in mod.__all__})
