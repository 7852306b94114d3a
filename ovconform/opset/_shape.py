"""Shape ops (OpenVINO's op-spec folder "shape"): Reshape-1, Squeeze-1/15, Unsqueeze-1 and ShapeOf-1/3.

Index inputs (target shapes, axes) are integer tensors; when they are known at build time (a
Constant, or ShapeOf of a static shape) the output shape is exact, otherwise the rank is taken
from the index input's length and the dimensions are dynamic, as OpenVINO does.

Attribute spellings are those OpenVINO writes to IR v11: Reshape ``special_zero``; Squeeze-15
``allow_axis_skip``; ShapeOf-3 ``output_type`` (Type i32/i64).
"""

from __future__ import annotations

from typing import Any

from ovconform.ir import AttrSpec, Dimension, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, normalize_axis, require
from ovconform.opset._inputs import (
    Infer,
    const_ints,
    index_input,
    product,
    require_integer,
    require_rank_at_most,
    static_length,
)

__all__ = ["reshape", "shape_of", "squeeze", "unsqueeze"]

@define_op("Reshape", 1, inputs=2, attrs=[AttrSpec("special_zero", "bool")])
def _infer_reshape(node: Node) -> Infer:
    """Output dims from the target shape; 0 copies the input dim when special_zero; one -1 is inferred."""
    require_integer(node, 1, "the target shape")
    pattern = node.get_input_partial_shape(1)
    require(not pattern.has_rank() or len(pattern) == 1, f"the target shape has shape {pattern}; it must be 1D.")
    et, data = node.get_input_element_type(0), node.get_input_partial_shape(0)
    values = const_ints(node, 1)
    if values is None:
        n = static_length(node, 1)
        return [(et, PartialShape.dynamic(n))]
    return [(et, reshape_dims(data, values, node.attrs["special_zero"]))]


def reshape_dims(data: PartialShape, values: list[int], special_zero: bool) -> PartialShape:
    bad = [v for v in values if v < -1]
    require(not bad, f"target shape {values} has value(s) {bad}; allowed: -1, 0 and positive sizes.")
    require(values.count(-1) <= 1, f"target shape {values} has more than one -1.")
    out: list[Dimension] = []
    copied: set[int] = set()
    for i, v in enumerate(values):
        if v == 0 and special_zero:
            if data.has_rank():
                require(i < len(data), f"target shape {values} copies input dim {i} (special_zero) "
                                       f"but the input {data} has rank {len(data)}.")
                out.append(data[i])
                copied.add(i)
            else:
                out.append(Dimension())
        else:
            out.append(Dimension() if v == -1 else Dimension(v))  # the -1 slot is set below
    if -1 in values:
        minus_one = values.index(-1)
        known = product([d for i, d in enumerate(out) if i != minus_one and i not in copied])
        out[minus_one] = _minus_one_dim(data, copied, known, values)
    result = PartialShape(out)
    if data.has_rank():
        have, want = product(list(data)), product(list(result))
        require(have.compatible(want), f"cannot reshape input of shape {data} into {result} "
                                       f"(target {values}, special_zero={special_zero}): element counts differ.")
    return result


def _minus_one_dim(data: PartialShape, copied: set[int], known: Dimension, values: list[int]) -> Dimension:
    if not data.has_rank():
        return Dimension()
    rest = product([d for i, d in enumerate(data) if i not in copied])
    if known == 0:
        if rest == 0:
            return Dimension(1)
        require(rest.contains(0), f"target shape {values} has a zero-size dim, so -1 cannot be inferred "
                                  f"from input {data} that has no zero-size dim.")
        return Dimension()
    k = known.get_length()
    if rest.is_static:
        require(rest.get_length() % k == 0,
                f"target shape {values} does not divide the {rest.get_length()} elements of input {data}.")
    return rest // k


def reshape(node: NodeInput, output_shape: NodeInput, special_zero: bool, name: str | None = None) -> Node:
    """Reshape-1: ``output_shape`` values; 0 copies the input dim when ``special_zero``; one -1 is inferred."""
    return make_node("Reshape", 1, [as_output(node), index_input(output_shape, "Reshape target shape")],
                     {"special_zero": special_zero}, name)


# -- Squeeze / Unsqueeze --------------------------------------------------------------------------

def _infer_squeeze(node: Node) -> Infer:
    """Drop the size-1 dims named by ``axes`` (all size-1 dims without axes); others are kept as is."""
    et, data = node.get_input_element_type(0), node.get_input_partial_shape(0)
    axes: list[int] | None = None
    if node.get_input_size() == 2:
        require_integer(node, 1, "axes")
        require_rank_at_most(node, 1, 1, "axes")
        axes = const_ints(node, 1)
        if axes is None:
            n = static_length(node, 1)
            rank = len(data) - 1 if data.has_rank() and n == 1 else None
            return [(et, PartialShape.dynamic(rank))]
    if not data.has_rank():
        return [(et, PartialShape.dynamic())]
    skip = node.attrs.get("allow_axis_skip", False)
    return [(et, squeeze_dims(data, axes, skip))]


def squeeze_dims(data: PartialShape, axes: list[int] | None, allow_axis_skip: bool = False) -> PartialShape:
    if not axes:  # no axes, or empty axes: every size-1 dim goes
        if any(d.is_dynamic and d.contains(1) for d in data):
            return PartialShape.dynamic()
        return PartialShape([d for d in data if d != 1])
    chosen = {normalize_axis(a, len(data), "squeeze axis") for a in axes}
    out = []
    for i, d in enumerate(data):
        if i not in chosen or not d.contains(1):
            out.append(d)  # not chosen, or cannot be 1: copied as is
        elif d.is_dynamic and allow_axis_skip:
            return PartialShape.dynamic()
    return PartialShape(out)


define_op("Squeeze", 1, inputs=(1, 2))(_infer_squeeze)
define_op("Squeeze", 15, inputs=(1, 2), attrs=[AttrSpec("allow_axis_skip", "bool", False)])(_infer_squeeze)


def squeeze(data: NodeInput, axes: NodeInput | None = None, allow_axis_skip: bool = False,
            name: str | None = None) -> Node:
    """Squeeze-15 (as ``openvino.opset16.squeeze``); Squeeze-1 via ``make_node("Squeeze", 1, ...)``."""
    inputs = [as_output(data)] + ([] if axes is None else [index_input(axes, "Squeeze axes")])
    return make_node("Squeeze", 15, inputs, {"allow_axis_skip": allow_axis_skip}, name)


@define_op("Unsqueeze", 1, inputs=2)
def _infer_unsqueeze(node: Node) -> Infer:
    """Insert size-1 dims at ``axes`` (positions in the output; repeated axes count once, as OpenVINO)."""
    require_integer(node, 1, "axes")
    require_rank_at_most(node, 1, 1, "axes")
    et, data = node.get_input_element_type(0), node.get_input_partial_shape(0)
    axes = const_ints(node, 1)
    if axes is None or not data.has_rank():
        return [(et, PartialShape.dynamic())]
    require(len(axes) > 0, "axes is empty; Unsqueeze needs at least one axis.")
    rank = len(data) + len(set(axes))
    chosen = {normalize_axis(a, rank, "unsqueeze axis") for a in axes}
    final = len(data) + len(chosen)
    require(max(chosen) < final, f"axes {axes} (repeated after normalization) leave a gap in output rank {final}.")
    dims = iter(data)
    return [(et, PartialShape([Dimension(1) if i in chosen else next(dims) for i in range(final)]))]


def unsqueeze(data: NodeInput, axes: NodeInput, name: str | None = None) -> Node:
    return make_node("Unsqueeze", 1, [as_output(data), index_input(axes, "Unsqueeze axes")], {}, name)


# -- ShapeOf -------------------------------------------------------------------------------------

def _shape_of_shape(node: Node) -> PartialShape:
    data = node.get_input_partial_shape(0)
    return PartialShape([len(data)]) if data.has_rank() else PartialShape.dynamic(1)


@define_op("ShapeOf", 1, inputs=1)
def _infer_shape_of_1(node: Node) -> Infer:
    """The input's shape as a 1D i64 tensor."""
    return [(Type.i64, _shape_of_shape(node))]


@define_op("ShapeOf", 3, inputs=1, attrs=[AttrSpec("output_type", "type", Type.i64, (Type.i32, Type.i64))])
def _infer_shape_of_3(node: Node) -> Infer:
    """The input's shape as a 1D tensor of ``output_type`` (i32 or i64)."""
    return [(node.attrs["output_type"], _shape_of_shape(node))]


def shape_of(data: NodeInput, output_type: Any = "i64", name: str | None = None) -> Node:
    """ShapeOf-3; ShapeOf-1 (always i64) via ``make_node("ShapeOf", 1, ...)``."""
    return make_node("ShapeOf", 3, [as_output(data)], {"output_type": output_type}, name)
