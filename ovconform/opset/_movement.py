"""Data-movement ops: Transpose, Concat, Split, VariadicSplit, Gather, StridedSlice.

Attribute spellings are those OpenVINO writes to IR v11: Concat ``axis``; Split ``num_splits``;
Gather-7/8 ``batch_dims``; StridedSlice ``begin_mask``, ``end_mask``, ``new_axis_mask``,
``shrink_axis_mask``, ``ellipsis_mask`` (int lists of 0/1). Axes of Split, VariadicSplit and
Gather are inputs; when an index input is not known at build time the output keeps what can
be known (the rank, untouched dims) and the rest is dynamic.
"""

from __future__ import annotations

from collections.abc import Sequence

from ovconform.ir import AttrSpec, Dimension, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, as_outputs, normalize_axis, require
from ovconform.opset._shape_ops import (
    const_ints,
    index_input,
    require_integer,
    require_rank_at_most,
    static_length,
)

__all__ = ["concat", "gather", "split", "strided_slice", "transpose", "variadic_split"]

Infer = list[tuple[Type, PartialShape]]


# -- Transpose ------------------------------------------------------------------------------------

@define_op("Transpose", 1, inputs=2)
def _infer_transpose(node: Node) -> Infer:
    """Permute dims by ``input_order`` (a permutation of 0..rank-1; empty = reversed)."""
    require_integer(node, 1, "input_order")
    oshape = node.get_input_partial_shape(1)
    require(not oshape.has_rank() or len(oshape) == 1, f"input_order has shape {oshape}; it must be 1D.")
    et, data = node.get_input_element_type(0), node.get_input_partial_shape(0)
    order = const_ints(node, 1)
    n = static_length(node, 1)
    if data.has_rank() and n not in (None, 0):
        require(n == len(data), f"input_order has {n} value(s); the input {data} has rank {len(data)}.")
    if order is None:
        return [(et, PartialShape.dynamic(len(data) if data.has_rank() else n or None))]
    if not order:
        return [(et, PartialShape(list(reversed(data.dims))) if data.has_rank() else PartialShape.dynamic())]
    require(sorted(order) == list(range(len(order))),
            f"input_order {order} is not a permutation of 0..{len(order) - 1}.")
    if not data.has_rank():
        return [(et, PartialShape.dynamic(len(order)))]
    return [(et, PartialShape([data[i] for i in order]))]


def transpose(data: NodeInput, input_order: NodeInput, name: str | None = None) -> Node:
    return make_node("Transpose", 1, [as_output(data), index_input(input_order, "Transpose input_order")], {}, name)


# -- Concat --------------------------------------------------------------------------------------

@define_op("Concat", 1, inputs=(1, -1), attrs=[AttrSpec("axis", "int")])
def _infer_concat(node: Node) -> Infer:
    """Join inputs along ``axis`` (negative counts from the end); other dims must agree."""
    types = [node.get_input_element_type(i) for i in range(node.get_input_size())]
    require(all(t == types[0] for t in types), f"inputs must share one element type; got {[str(t) for t in types]}.")
    shapes = [node.get_input_partial_shape(i) for i in range(node.get_input_size())]
    ranked = [s for s in shapes if s.has_rank()]
    if not ranked:
        return [(types[0], PartialShape.dynamic())]
    rank = len(ranked[0])
    require(rank >= 1, "inputs are scalars; Concat needs inputs of rank >= 1.")
    require(all(len(s) == rank for s in ranked), f"inputs must have one rank; got shapes {[str(s) for s in shapes]}.")
    axis = normalize_axis(node.attrs["axis"], rank)
    dims: list[Dimension] = [Dimension()] * rank
    total = Dimension(0)
    for s in shapes:
        sdims = list(s) if s.has_rank() else [Dimension()] * rank
        total = total + sdims[axis]
        for i, d in enumerate(sdims):
            if i != axis:
                merged = dims[i].merge(d)
                require(merged is not None, f"input shapes {[str(x) for x in shapes]} differ in dim {i}, "
                                            f"which is not the concat axis {node.attrs['axis']}.")
                dims[i] = merged  # type: ignore[assignment]
    dims[axis] = total
    return [(types[0], PartialShape(dims))]


def concat(nodes: Sequence[NodeInput], axis: int, name: str | None = None) -> Node:
    return make_node("Concat", 1, as_outputs(*nodes), {"axis": axis}, name)


# -- Split / VariadicSplit -------------------------------------------------------------------------

def _split_axis(node: Node, scalar_only: bool) -> int | None:
    """The normalized constant axis (input 1), or None when it is not known at build time."""
    require_integer(node, 1, "axis")
    ashape = node.get_input_partial_shape(1)
    if scalar_only:
        require(not ashape.has_rank() or len(ashape) == 0, f"axis has shape {ashape}; it must be a scalar.")
    else:
        n = static_length(node, 1)
        require(n in (None, 1) and (not ashape.has_rank() or len(ashape) <= 1),
                f"axis has shape {ashape}; it must be a scalar or hold one value.")
    value = const_ints(node, 1)
    data = node.get_input_partial_shape(0)
    if value is None or not data.has_rank():
        return None
    require(len(data) >= 1, "data is a scalar; it has no axis to split.")
    return normalize_axis(value[0], len(data))


def _with_dim(shape: PartialShape, axis: int, dim: Dimension) -> PartialShape:
    dims = list(shape)
    dims[axis] = dim
    return PartialShape(dims)


#: Most outputs a Split may declare (a hostile IR could otherwise ask for billions).
MAX_SPLITS = 65536


@define_op("Split", 1, inputs=2, attrs=[AttrSpec("num_splits", "int")])
def _infer_split(node: Node) -> Infer:
    """``num_splits`` equal parts along the (scalar) ``axis`` input."""
    n = node.attrs["num_splits"]
    require(0 < n <= MAX_SPLITS, f"attribute num_splits={n} must be in [1, {MAX_SPLITS}].")
    et, data = node.get_input_element_type(0), node.get_input_partial_shape(0)
    axis = _split_axis(node, scalar_only=True)
    if axis is None:
        return [(et, PartialShape.dynamic(len(data) if data.has_rank() else None))] * n
    d = data[axis]
    if d.is_static:
        require(d.get_length() % n == 0, f"data dim {axis} of {data} is {d}; it does not divide into "
                                         f"num_splits={n} equal parts.")
    return [(et, _with_dim(data, axis, d // n))] * n


def split(data: NodeInput, axis: NodeInput, num_splits: int, name: str | None = None) -> Node:
    """Split-1: ``num_splits`` outputs; take them with ``node.output(i)`` or ``node.outputs()``."""
    return make_node("Split", 1, [as_output(data), index_input(axis, "Split axis")], {"num_splits": num_splits}, name)


@define_op("VariadicSplit", 1, inputs=3)
def _infer_variadic_split(node: Node) -> Infer:
    """Parts of ``split_lengths`` sizes along ``axis``; one length may be -1 (the rest)."""
    require_integer(node, 2, "split_lengths")
    require_rank_at_most(node, 2, 1, "split_lengths")
    n = static_length(node, 2)
    require(n is not None, f"split_lengths has shape {node.get_input_partial_shape(2)}; "
                           "its length must be static (it sets the number of outputs).")
    assert n is not None
    et, data = node.get_input_element_type(0), node.get_input_partial_shape(0)
    axis = _split_axis(node, scalar_only=False)
    lengths = const_ints(node, 2)
    if axis is None:
        return [(et, PartialShape.dynamic(len(data) if data.has_rank() else None))] * n
    if lengths is None:
        return [(et, _with_dim(data, axis, Dimension()))] * n
    return [(et, _with_dim(data, axis, d)) for d in _split_dims(data[axis], lengths)]


def _split_dims(dim: Dimension, lengths: list[int]) -> list[Dimension]:
    bad = [v for v in lengths if v < -1]
    require(not bad, f"split_lengths {lengths} has value(s) {bad}; allowed: -1 and sizes >= 0.")
    require(lengths.count(-1) <= 1, f"split_lengths {lengths} has more than one -1.")
    known = sum(v for v in lengths if v != -1)
    if -1 not in lengths:
        require(dim.contains(known), f"split_lengths {lengths} add up to {known}; the split dim is {dim}.")
        return [Dimension(v) for v in lengths]
    require(dim.max_length == -1 or known <= dim.max_length,
            f"split_lengths {lengths} add up to {known}, more than the split dim {dim}.")
    return [dim - known if v == -1 else Dimension(v) for v in lengths]


def variadic_split(data: NodeInput, axis: NodeInput, split_lengths: NodeInput, name: str | None = None) -> Node:
    inputs = [as_output(data), index_input(axis, "VariadicSplit axis"),
              index_input(split_lengths, "VariadicSplit split_lengths")]
    return make_node("VariadicSplit", 1, inputs, {}, name)


# -- Gather ---------------------------------------------------------------------------------------

def _infer_gather(node: Node) -> Infer:
    """data[:axis] + indices[batch_dims:] + data[axis+1:], with the first batch_dims dims shared."""
    require_integer(node, 1, "indices")
    require_integer(node, 2, "axis")
    require_rank_at_most(node, 2, 1, "axis")
    require(static_length(node, 2) in (None, 1),
            f"axis has shape {node.get_input_partial_shape(2)}; it must be a scalar or hold one value.")
    et, data, idx = node.get_input_element_type(0), node.get_input_partial_shape(0), node.get_input_partial_shape(1)
    require(not data.has_rank() or len(data) >= 1, "data is a scalar; Gather needs data of rank >= 1.")
    bd = node.attrs.get("batch_dims", 0)
    if bd < 0:
        require(idx.has_rank(), f"batch_dims={bd} is negative and the indices rank is dynamic.")
        bd += len(idx)
    require(bd >= 0 and (not idx.has_rank() or bd <= len(idx)),
            f"batch_dims={node.attrs.get('batch_dims', 0)} is out of range for indices {idx}; "
            f"allowed [{-len(idx) if idx.has_rank() else '-r'}, {len(idx) if idx.has_rank() else 'r'}].")
    value = const_ints(node, 2)
    if not data.has_rank() or not idx.has_rank():
        return [(et, PartialShape.dynamic())]
    if value is None:
        return [(et, PartialShape.dynamic(len(data) + len(idx) - 1 - bd))]
    axis = normalize_axis(value[0], len(data))
    require(bd <= axis, f"batch_dims={bd} (normalized) must not exceed axis={axis}.")
    batch = []
    for i in range(bd):
        merged = data[i].merge(idx[i])
        require(merged is not None, f"data {data} and indices {idx} differ in batch dim {i} (batch_dims={bd}).")
        batch.append(merged)
    return [(et, PartialShape([*batch, *data.dims[bd:axis], *idx.dims[bd:], *data.dims[axis + 1:]]))]


define_op("Gather", 1, inputs=3)(_infer_gather)
define_op("Gather", 7, inputs=3, attrs=[AttrSpec("batch_dims", "int", 0)])(_infer_gather)
define_op("Gather", 8, inputs=3, attrs=[AttrSpec("batch_dims", "int", 0)])(_infer_gather)


def gather(data: NodeInput, indices: NodeInput, axis: NodeInput, batch_dims: int = 0, name: str | None = None) -> Node:
    """Gather-8 (negative indices count from the end); Gather-1/7 via ``make_node``."""
    inputs = [as_output(data), index_input(indices, "Gather indices"), index_input(axis, "Gather axis")]
    return make_node("Gather", 8, inputs, {"batch_dims": batch_dims}, name)


# -- StridedSlice ---------------------------------------------------------------------------------

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
    slices = [slice(p, q, r) for p in starts for q in stops for r in steps]
    if (b is None and not bm) or (e is None and not em) or s is None:
        # an unknown begin/end/stride: at most the longest slice with it masked (|stride| 1)
        highs = [_length_of(dim, sl).max_length for sl in slices]
        return Dimension(0, -1 if -1 in highs else max(highs))
    return _length_of(dim, slices[0])


def _length_of(dim: Dimension, sl: slice) -> Dimension:
    if dim.is_static:
        return Dimension(len(range(*sl.indices(dim.get_length()))))
    if sl.start is None and sl.stop is None and abs(sl.step) == 1:
        return dim
    return _dynamic_slice_dim(dim, sl)


_FAR = 10**12


def _dynamic_slice_dim(dim: Dimension, sl: slice) -> Dimension:
    """Bounds of the slice length over every size ``dim`` allows. Past max(|begin|, |end|) the
    length is linear in the size, so the ends of that stretch (or its growth) decide the bounds."""
    def length(size: int) -> int:
        return len(range(*sl.indices(size)))

    lo, hi = dim.min_length, dim.max_length
    top = lo + max(abs(sl.start or 0), abs(sl.stop or 0)) + 2
    if hi != -1:
        top = min(hi, top)
    values = [length(d) for d in range(lo, top + 1)]
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

