"""Concat-1, Split-1 and VariadicSplit-1.

Concat has ``axis``; Split ``num_splits``. The axes of Split and VariadicSplit are inputs; when an
index input is not known at build time the output keeps what can be known (the rank, untouched
dims) and the rest is dynamic.
"""

from __future__ import annotations

from collections.abc import Sequence

from ovconform.ir import AttrSpec, Dimension, Node, PartialShape, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, as_outputs, normalize_axis, require
from ovconform.opset._inputs import (
    Infer,
    _merge,
    const_ints,
    index_input,
    require_integer,
    require_rank_at_most,
    static_length,
)

__all__ = ["concat", "split", "variadic_split"]

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
                dims[i] = _merge(dims[i], d, f"input shapes {[str(x) for x in shapes]} differ in dim {i}, "
                                             f"which is not the concat axis {node.attrs['axis']}.")
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
