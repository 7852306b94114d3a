"""StridedSlice-1: numpy-style slicing by begin/end/strides with TensorFlow-style masks.

A mask bit of 1 at position i means: begin_mask / end_mask — ignore begin[i] / end[i] (take the
whole range in the stride's direction); new_axis_mask — insert a size-1 dim; shrink_axis_mask —
take the single index begin[i] and drop the dim; ellipsis_mask — all dims not otherwise named.
Priority: ellipsis, then new axis, then shrink. Ranges clamp as Python slices do.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ovconform.errors import InferError
from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import int_list

_MASKS = ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask")


def _bit(mask: list[int], i: int) -> bool:
    return i < len(mask) and mask[i] == 1


def slice_index(shape: tuple[int, ...], begin: list[int], end: list[int], strides: list[int],
                masks: dict[str, list[int]]) -> tuple[Any, ...]:
    """The numpy index tuple that StridedSlice's arguments describe for an input of ``shape``."""
    if not len(begin) == len(end) == len(strides):
        raise InferError(f"begin {begin}, end {end} and strides {strides} must have the same length.")
    if 0 in strides:
        raise InferError(f"strides {strides} has a zero; strides must be non-zero.")
    index: list[Any] = []
    axis = 0
    for i in range(len(begin)):
        if _bit(masks["ellipsis_mask"], i):
            index.append(Ellipsis)
            named = sum(1 for j in range(i + 1, len(begin)) if not _bit(masks["new_axis_mask"], j))
            axis = len(shape) - named
        elif _bit(masks["new_axis_mask"], i):
            index.append(None)
        elif _bit(masks["shrink_axis_mask"], i):
            index.append(_shrink(shape, axis, begin[i]))
            axis += 1
        else:
            index.append(slice(None if _bit(masks["begin_mask"], i) else begin[i],
                               None if _bit(masks["end_mask"], i) else end[i], strides[i]))
            axis += 1
    if axis > len(shape):
        raise InferError(f"the slice spec addresses {axis} dims; the input shape {list(shape)} has {len(shape)}.")
    return tuple(index)


def _shrink(shape: tuple[int, ...], axis: int, b: int) -> int:
    if axis >= len(shape) or not -shape[axis] <= b < shape[axis]:
        dim = shape[axis] if axis < len(shape) else "none"
        raise InferError(f"shrink_axis_mask takes index {b} of dim {axis} (size {dim}) of input shape "
                         f"{list(shape)}; it is out of range.")
    return b


@register_op("StridedSlice", since=1)
class StridedSlice(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.masks = {m: list(node.attrs.get(m) or []) for m in _MASKS}
        consts = [self.const_input(i) for i in (1, 2, 3)]
        self.consts = [int_list(c) if c is not None else None for c in consts]

    def _run(self, x: np.ndarray, begin: np.ndarray, end: np.ndarray,
             strides: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        b = self.consts[0] if self.consts[0] is not None else int_list(begin)
        e = self.consts[1] if self.consts[1] is not None else int_list(end)
        if strides is None:
            s = [1] * len(b)
        else:
            s = self.consts[2] if self.consts[2] is not None else int_list(strides)
        return (x[slice_index(x.shape, b, e, s, self.masks)],)
