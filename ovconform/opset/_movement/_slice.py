"""StridedSlice-1, Slice-8 and SliceScatter-15.

StridedSlice has ``begin_mask``, ``end_mask``, ``new_axis_mask``, ``shrink_axis_mask``,
``ellipsis_mask`` (int lists of 0/1), as OpenVINO writes them; Slice and SliceScatter take start,
stop, step and optional axes as inputs. When those inputs are not known at build time the sliced
dims are dynamic.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence

import numpy as np

from ovconform.ir import AttrSpec, Dimension, Node, Output, PartialShape, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, normalize_axes, require
from ovconform.opset._inputs import Infer, const_ints, index_input, require_integer, static_length
from ovconform.opset._movement._layout import _rank_at_least, _vector_input

__all__ = ["slice", "slice_scatter", "strided_slice"]

_MASKS = ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask")


@define_op("StridedSlice", 1, inputs=(3, 4), attrs=[
    AttrSpec("begin_mask", "ints"), AttrSpec("end_mask", "ints"), AttrSpec("new_axis_mask", "ints", []),
    AttrSpec("shrink_axis_mask", "ints", []), AttrSpec("ellipsis_mask", "ints", [])])
def _infer_strided_slice(node: Node) -> Infer:
    """numpy-style slicing by begin/end/strides with TensorFlow-style masks."""
    length = _slice_spec_length(node)
    masks = {m: _mask(node, m, length) for m in _MASKS}
    require(sum(masks["ellipsis_mask"]) <= 1, f"ellipsis_mask {node.attrs['ellipsis_mask']} sets more than one "
                                              "bit; at most one ellipsis is allowed.")
    et, data = node.get_input_element_type(0), node.get_input_partial_shape(0)
    if length is None or not data.has_rank():
        return [(et, PartialShape.dynamic())]
    begin, end = const_ints(node, 1), const_ints(node, 2)
    strides = const_ints(node, 3) if node.get_input_size() == 4 else [1] * length
    if strides is not None:
        require(0 not in strides, f"strides {strides} has a zero; strides must be non-zero.")
    return [(et, slice_shape(data, begin, end, strides, masks))]


def _slice_spec_length(node: Node) -> int | None:
    lengths = []
    for i, what in zip(range(1, node.get_input_size()), ("begin", "end", "strides"), strict=False):
        require_integer(node, i, what)
        shape = node.get_input_partial_shape(i)
        require(not shape.has_rank() or len(shape) == 1, f"{what} has shape {shape}; it must be 1D.")
        lengths.append(static_length(node, i))
    known = {n for n in lengths if n is not None}
    require(len(known) <= 1, f"begin, end and strides must have the same length; got {lengths}.")
    return known.pop() if known else None


def _mask(node: Node, name: str, length: int | None) -> list[int]:
    values = node.attrs[name]
    require(all(v in (0, 1) for v in values), f"{name} {values} must hold only 0 and 1.")
    if length is None:
        return list(values)
    extra = values[length:]
    require(not any(extra), f"{name} {values} sets a bit past the {length} begin/end value(s).")
    return list(values[:length]) + [0] * (length - len(values[:length]))


def slice_shape(data: PartialShape, begin: list[int] | None, end: list[int] | None,
                strides: list[int] | None, masks: dict[str, list[int]]) -> PartialShape:
    """The output shape of StridedSlice over ``data`` (begin/end/strides None when not constant)."""
    ell, new, shrink = masks["ellipsis_mask"], masks["new_axis_mask"], masks["shrink_axis_mask"]
    length, rank = len(ell), len(data)
    consuming = sum(1 for i in range(length) if not ell[i] and not new[i])
    require(consuming <= rank, f"the slice spec addresses {consuming} input dim(s); data {data} has rank {rank}.")
    out: list[Dimension] = []
    axis = 0
    for i in range(length):
        if ell[i]:
            k = rank - consuming
            out.extend(data.dims[axis:axis + k])
            axis += k
        elif new[i]:
            out.append(Dimension(1))
        elif shrink[i]:
            axis += 1
        else:
            out.append(_slice_dim(data[axis], _at(begin, i), _at(end, i), _at(strides, i),
                                  masks["begin_mask"][i], masks["end_mask"][i]))
            axis += 1
    return PartialShape([*out, *data.dims[axis:]])


def _at(values: list[int] | None, i: int) -> int | None:
    return None if values is None else values[i]


def _slice_dim(dim: Dimension, b: int | None, e: int | None, s: int | None, bm: int, em: int) -> Dimension:
    starts = [None] if bm or b is None else [b]
    stops = [None] if em or e is None else [e]
    steps = [1, -1] if s is None else [s]
    slices = [builtins.slice(p, q, r) for p in starts for q in stops for r in steps]
    if (b is None and not bm) or (e is None and not em) or s is None:
        # an unknown begin/end/stride: at most the longest slice with it masked (|stride| 1)
        highs = [_length_of(dim, sl).max_length for sl in slices]
        return Dimension(0, -1 if -1 in highs else max(highs))
    return _length_of(dim, slices[0])


def _length_of(dim: Dimension, sl: builtins.slice) -> Dimension:
    if dim.is_static:
        return Dimension(len(range(*sl.indices(dim.get_length()))))
    if sl.start is None and sl.stop is None and abs(sl.step) == 1:
        return dim
    return _dynamic_slice_dim(dim, sl)


_FAR = 10**12


def _dynamic_slice_dim(dim: Dimension, sl: builtins.slice) -> Dimension:
    """Bounds of the slice length over every size ``dim`` allows. Clamping begin and end to the size
    changes only where the size passes |begin| or |end|; between those points the length is the
    ceiling of a linear function of the size, so its bounds are at the ends of each stretch, and
    past the last point the length grows linearly (or not at all). A few sizes around each point
    decide the bounds, however far begin or end is (an end of INT64_MIN is common)."""
    def length(size: int) -> int:
        return len(range(*sl.indices(size)))

    lo, hi = dim.min_length, dim.max_length
    top = lo + max(abs(sl.start or 0), abs(sl.stop or 0)) + 2
    if hi != -1:
        top = min(hi, top)
    points = {lo, top, *range(lo, min(lo + 3, top) + 1)}
    points |= {b + k for b in (abs(sl.start or 0), abs(sl.stop or 0)) for k in range(-2, 3)}
    values = [length(d) for d in sorted(points) if lo <= d <= top]
    if hi != -1:
        values.append(length(hi))
        return Dimension(min(values), max(values))
    far, farther = length(_FAR), length(_FAR + 10**9)
    values.append(far)
    return Dimension(min(values), max(values) if far == farther else -1)


def strided_slice(data: NodeInput, begin: NodeInput, end: NodeInput, strides: NodeInput | None,
                  begin_mask: Sequence[int], end_mask: Sequence[int], new_axis_mask: Sequence[int] | None = None,
                  shrink_axis_mask: Sequence[int] | None = None, ellipsis_mask: Sequence[int] | None = None,
                  name: str | None = None) -> Node:
    """StridedSlice-1: a mask bit 1 means ignore begin/end, insert a new axis, shrink the axis or
    expand an ellipsis at that position."""
    inputs = [as_output(data), index_input(begin, "StridedSlice begin"), index_input(end, "StridedSlice end")]
    if strides is not None:
        inputs.append(index_input(strides, "StridedSlice strides"))
    attrs = {"begin_mask": begin_mask, "end_mask": end_mask, "new_axis_mask": new_axis_mask or [],
             "shrink_axis_mask": shrink_axis_mask or [], "ellipsis_mask": ellipsis_mask or []}
    return make_node("StridedSlice", 1, inputs, attrs, name)


def _slice_output(node: Node, first: int) -> PartialShape:
    """The shape of data[start:stop:step] over axes; ``first`` is the port of ``start``."""
    data = node.get_input_partial_shape(0)
    _rank_at_least(data, 1)
    names = ("start", "stop", "step", "axes")
    ports = range(first, node.get_input_size())
    lengths = [_vector_input(node, i, what) for i, what in zip(ports, names, strict=False)]
    known = {n for n in lengths if n is not None}
    require(len(known) <= 1, f"start, stop, step{' and axes' if len(lengths) == 4 else ''} must have the same "
                             f"number of values; got {lengths}.")
    count = known.pop() if known else None
    if not data.has_rank():
        return data
    rank = len(data)
    require(count is None or count <= rank, f"the slice spec has {count} value(s); data {data} has rank {rank}.")
    values = [const_ints(node, i) for i in ports]
    step = values[2]
    require(step is None or 0 not in step, f"step {step} has a zero; steps must be non-zero.")
    if len(values) == 4:
        axes = None if values[3] is None else normalize_axes(values[3], rank, "axes")
    else:
        axes = None if count is None else list(range(count))
    dims = list(data.dims)
    if axes is None:
        return PartialShape([Dimension(0, d.max_length) for d in dims])
    start, stop = values[0], values[1]
    for j, axis in enumerate(axes):
        if start is None or stop is None or step is None:
            dims[axis] = Dimension(0, dims[axis].max_length)
        else:
            dims[axis] = _length_of(dims[axis], builtins.slice(start[j], stop[j], step[j]))
    return PartialShape(dims)


@define_op("Slice", 8, inputs=(4, 5))
def _infer_slice(node: Node) -> Infer:
    """numpy ``data[start:stop:step]`` over ``axes`` (default 0..len(start)-1), clamped to the dims."""
    return [(node.get_input_element_type(0), _slice_output(node, 1))]


@define_op("SliceScatter", 15, inputs=(5, 6))
def _infer_slice_scatter(node: Node) -> Infer:
    """A copy of ``data`` with ``updates`` written into data[start:stop:step] over ``axes``."""
    et, ut = node.get_input_element_type(0), node.get_input_element_type(1)
    require(et == ut, f"updates has element type {ut}; it must match data ({et}).")
    expected, updates = _slice_output(node, 2), node.get_input_partial_shape(1)
    require(updates.compatible(expected), f"updates has shape {updates}; the slice of data "
                                          f"{node.get_input_partial_shape(0)} has shape {expected}.")
    return [(et, node.get_input_partial_shape(0))]


def _slice_inputs(start: NodeInput, stop: NodeInput, step: NodeInput, axes: NodeInput | None, op: str) -> list[Output]:
    inputs = [index_input(v, f"{op} {what}") for v, what in ((start, "start"), (stop, "stop"), (step, "step"))]
    if axes is not None:
        inputs.append(index_input(axes, f"{op} axes"))
    return inputs


def slice(data: NodeInput, start: NodeInput, stop: NodeInput, step: NodeInput,  # noqa: A001
          axes: NodeInput | None = None, name: str | None = None) -> Node:
    """Slice-8: python slicing ``data[start:stop:step]`` on ``axes``. Without ``axes`` the node gets
    the default ``[0, 1, ..., len(start) - 1]`` as an i64 Constant when the length of ``start`` is
    static, as ``openvino.opset16.slice`` does (a 4-input Slice means the same)."""
    inputs = _slice_inputs(start, stop, step, axes, "Slice")
    shape = inputs[0].get_partial_shape()
    if axes is None and shape.is_static and len(shape) == 1:
        inputs.append(index_input(np.arange(shape[0].get_length(), dtype=np.int64), "Slice axes"))
    return make_node("Slice", 8, [as_output(data), *inputs], {}, name)


def slice_scatter(data: NodeInput, updates: NodeInput, start: NodeInput, stop: NodeInput, step: NodeInput,
                  axes: NodeInput | None = None, name: str | None = None) -> Node:
    """SliceScatter-15: ``out = data.copy(); out[start:stop:step over axes] = updates``."""
    inputs = [as_output(data), as_output(updates), *_slice_inputs(start, stop, step, axes, "SliceScatter")]
    return make_node("SliceScatter", 15, inputs, {}, name)
