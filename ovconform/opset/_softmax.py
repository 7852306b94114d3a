"""Softmax-1 (axis in ``[0, rank)``) and Softmax-8 (axis in ``[-rank, rank)``); IR type name "SoftMax".

The output has the input's element type (a floating-point type) and shape.
"""

from __future__ import annotations

from ovconform.ir import AttrSpec, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, require
from ovconform.opset._reduce import normalize_scalar_axis

__all__ = ["softmax"]


def _check(node: Node, allow_negative: bool) -> list[tuple[Type, PartialShape]]:
    et = node.get_input_element_type(0)
    require(et.is_real(), f"element type {et} is not allowed; Softmax needs a floating-point type.")
    shape = node.get_input_partial_shape(0)
    axis = node.attrs["axis"]
    if not allow_negative:
        require(axis >= 0, f"attribute 'axis'={axis} must not be negative in Softmax-1 (Softmax-8 allows it).")
    if shape.has_rank():
        normalize_scalar_axis(axis, len(shape), "attribute 'axis'")
    return [(et, shape)]


@define_op("Softmax", 1, inputs=1, ir_type_name="SoftMax", attrs=[AttrSpec("axis", "int", 1)])
def _infer_softmax_1(node: Node) -> list[tuple[Type, PartialShape]]:
    return _check(node, allow_negative=False)


@define_op("Softmax", 8, inputs=1, ir_type_name="SoftMax", attrs=[AttrSpec("axis", "int", 1)])
def _infer_softmax_8(node: Node) -> list[tuple[Type, PartialShape]]:
    return _check(node, allow_negative=True)


def softmax(data: NodeInput, axis: int, name: str | None = None, *, version: int = 8) -> Node:
    """Softmax-8 over ``axis`` (negative counts from the end); ``version=1`` builds Softmax-1."""
    return make_node("Softmax", version, [as_output(data)], {"axis": axis}, name)
