"""Parameter, Constant, Result, Convert, ConvertLike."""

from __future__ import annotations

from typing import Any

from ovconform.ir import AttrSpec, Node, PartialShape, Type, as_partial_shape, as_type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, make_constant, require

__all__ = ["constant", "convert", "convert_like", "parameter", "result"]


@define_op("Parameter", 1, inputs=0,
           attrs=[AttrSpec("shape", "shape"), AttrSpec("element_type", "type")])
def _infer_parameter(node: Node) -> list[tuple[Type, PartialShape]]:
    return [(node.attrs["element_type"], node.attrs["shape"])]


@define_op("Constant", 1, inputs=0, ir_type_name="Const",
           attrs=[AttrSpec("element_type", "type"), AttrSpec("shape", "ints")])
def _infer_constant(node: Node) -> list[tuple[Type, PartialShape]]:
    et, shape = node.attrs["element_type"], node.attrs["shape"]
    require(node.data is not None, "a Constant needs data.")
    assert node.data is not None
    require(list(node.data.shape) == list(shape),
            f"data shape {list(node.data.shape)} differs from attribute shape {shape}.")
    require(node.data.dtype == et.to_dtype(), f"data dtype {node.data.dtype} does not store {et}.")
    return [(et, PartialShape(shape))]


@define_op("Result", 1, inputs=1)
def _infer_result(node: Node) -> list[tuple[Type, PartialShape]]:
    return [(node.get_input_element_type(0), node.get_input_partial_shape(0))]


@define_op("Convert", 1, inputs=1, attrs=[AttrSpec("destination_type", "type")])
def _infer_convert(node: Node) -> list[tuple[Type, PartialShape]]:
    return [(node.attrs["destination_type"], node.get_input_partial_shape(0))]


@define_op("ConvertLike", 1, inputs=2)
def _infer_convert_like(node: Node) -> list[tuple[Type, PartialShape]]:
    return [(node.get_input_element_type(1), node.get_input_partial_shape(0))]


def parameter(shape: Any, dtype: Any = Type.f32, name: str | None = None) -> Node:
    """A model input of ``shape`` (static, dynamic -1/"?", bounded "1..8") and element type."""
    node = make_node("Parameter", 1, [], {"shape": as_partial_shape(shape), "element_type": as_type(dtype)}, name)
    if name:
        node.output(0).set_names({name})
    return node


def constant(value: Any, dtype: Any = None, name: str | None = None) -> Node:
    """A constant tensor; ``dtype`` defaults to the value's numpy dtype (Python floats → f32)."""
    return make_constant(value, dtype, name)


def result(data: NodeInput, name: str | None = None) -> Node:
    return make_node("Result", 1, [as_output(data)], {}, name)


def convert(data: NodeInput, destination_type: Any, name: str | None = None) -> Node:
    return make_node("Convert", 1, [as_output(data)], {"destination_type": as_type(destination_type)}, name)


def convert_like(data: NodeInput, like: NodeInput, name: str | None = None) -> Node:
    return make_node("ConvertLike", 1, [as_output(data), as_output(like)], {}, name)
