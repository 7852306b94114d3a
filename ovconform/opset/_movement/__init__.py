"""Movement ops (OpenVINO's op-spec folder "movement"), one module per group:

* Gather-1/7/8, GatherElements-6, GatherND-5/8, GatherTree-1, ScatterUpdate-3,
  ScatterElementsUpdate-3/12, ScatterNDUpdate-4/15, Unique-10 (:mod:`._gather_scatter`);
* Concat-1, Split-1, VariadicSplit-1 (:mod:`._split_concat`);
* StridedSlice-1, Slice-8, SliceScatter-15 (:mod:`._slice`);
* Transpose-1, Broadcast-1/3, Tile-1, Roll-7, DepthToSpace-1, SpaceToDepth-1, ShuffleChannels-1,
  ReverseSequence-1, Pad-1/12, BatchToSpace-2, SpaceToBatch-2 (:mod:`._layout`);
* Col2Im-15, ExtractImagePatches-3 (:mod:`._patches`);
* Reverse-1 (:mod:`._reverse`; in opset1, with no Python builder in OpenVINO).

Not here: the string tensors StringTensorPack/Unpack-15 (listed under "type").
"""

from __future__ import annotations

from ovconform.opset._movement._gather_scatter import (
    gather,
    gather_elements,
    gather_nd,
    gather_tree,
    scatter_elements_update,
    scatter_nd_update,
    scatter_update,
    unique,
)
from ovconform.opset._movement._layout import (
    batch_to_space,
    broadcast,
    depth_to_space,
    pad,
    reverse_sequence,
    roll,
    shuffle_channels,
    space_to_batch,
    space_to_depth,
    tile,
    transpose,
)
from ovconform.opset._movement._patches import col2im, extract_image_patches
from ovconform.opset._movement._reverse import reverse
from ovconform.opset._movement._slice import slice, slice_scatter, strided_slice
from ovconform.opset._movement._split_concat import concat, split, variadic_split

__all__ = [
    "batch_to_space", "broadcast", "col2im", "concat", "depth_to_space", "extract_image_patches", "gather",
    "gather_elements", "gather_nd", "gather_tree", "pad", "reverse", "reverse_sequence", "roll",
    "scatter_elements_update", "scatter_nd_update", "scatter_update", "shuffle_channels", "slice", "slice_scatter",
    "space_to_batch", "space_to_depth", "split", "strided_slice", "tile", "transpose", "unique", "variadic_split"
]
