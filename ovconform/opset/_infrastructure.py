"""Infrastructure ops (OpenVINO's op-spec folder "infrastructure"): Parameter-1, Constant-1 (IR
type "Const"), Result-1 and the state ops ReadValue-3/6 and Assign-3/6 (model variables).

A variable is named by ``variable_id``. ReadValue-6 declares its ``variable_type`` (a Type) and
``variable_shape`` (a PartialShape) and may take an initializing input; ReadValue-3 takes its
type and shape from its (required) input. Assign writes a new value into the variable; an
Assign must be a sink of its Model (``Model(results, sinks, parameters, name)``).

:func:`variable_infos` lists a model's variables with their type and shape, and
:func:`check_variables` checks that every Assign matches a ReadValue of its variable.

Loop-5 and TensorIterator-1 (sub-graph bodies) are not defined yet.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ovconform.errors import ValidationError
from ovconform.ir import (
    AttrSpec,
    Node,
    PartialShape,
    Type,
    as_partial_shape,
    as_type,
    check_values,
    define_op,
    describe,
    make_node,
)
from ovconform.opset._helpers import NodeInput, as_output, make_constant, require
from ovconform.opset._inputs import Infer

__all__ = ["assign", "constant", "parameter", "read_value", "result"]

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
    check_values(node.data, et, "data")
    return [(et, PartialShape(shape))]


@define_op("Result", 1, inputs=1)
def _infer_result(node: Node) -> list[tuple[Type, PartialShape]]:
    return [(node.get_input_element_type(0), node.get_input_partial_shape(0))]


if TYPE_CHECKING:
    from ovconform.ir import Model


_ID = AttrSpec("variable_id", "str")


@dataclass(frozen=True)
class VariableInfo:
    """A model variable: its id, element type and (partial) shape, as ``ov.op.util.VariableInfo``."""

    variable_id: str
    data_type: Type
    data_shape: PartialShape


def _check_id(node: Node) -> str:
    vid = node.attrs["variable_id"]
    require(bool(vid), "attribute variable_id is empty; a variable needs a non-empty id.")
    return vid


def read_value_info(node: Node) -> VariableInfo:
    """The variable a ReadValue node declares (ReadValue-3: its input's type and shape)."""
    if node.version >= 6:
        return VariableInfo(node.attrs["variable_id"], node.attrs["variable_type"], node.attrs["variable_shape"])
    return VariableInfo(node.attrs["variable_id"], node.get_input_element_type(0), node.get_input_partial_shape(0))


@define_op("ReadValue", 3, inputs=1, attrs=[_ID])
def _infer_read_value_3(node: Node) -> Infer:
    """The variable's value; its type and shape are those of the initializing input."""
    _check_id(node)
    return [(node.get_input_element_type(0), node.get_input_partial_shape(0))]


@define_op("ReadValue", 6, inputs=(0, 1),
           attrs=[_ID, AttrSpec("variable_type", "type"), AttrSpec("variable_shape", "shape")])
def _infer_read_value_6(node: Node) -> Infer:
    """The variable's value, of ``variable_type`` and ``variable_shape``; an initializing input
    must have that type and a shape the variable shape allows."""
    _check_id(node)
    vt, vs = node.attrs["variable_type"], node.attrs["variable_shape"]
    if node.get_input_size() == 1:
        it, ishape = node.get_input_element_type(0), node.get_input_partial_shape(0)
        require(it == vt, f"the initializing input has element type {it}; variable_type is {vt}.")
        require(ishape.refines(vs), f"the initializing input has shape {ishape}, which variable_shape {vs} "
                                    "does not allow (the variable shape must extend the input shape).")
    return [(vt, vs)]


def _upstream_read_value(node: Node, variable_id: str) -> Node | None:
    """The first ReadValue of ``variable_id`` that ``node`` depends on (the walk stops there)."""
    seen, stack = set(), [node.input_value(i).node for i in range(node.get_input_size())]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if n.type_name == "ReadValue" and n.attrs.get("variable_id") == variable_id:
            return n
        stack.extend(n.input_value(i).node for i in range(n.get_input_size()))
    return None


def _check_assign(node: Node, info: VariableInfo) -> None:
    it, ishape = node.get_input_element_type(0), node.get_input_partial_shape(0)
    require(it == info.data_type, f"the new value has element type {it}; variable {info.variable_id!r} "
                                  f"has type {info.data_type}.")
    require(ishape.compatible(info.data_shape), f"the new value has shape {ishape}; variable "
                                                f"{info.variable_id!r} has shape {info.data_shape}.")


@define_op("Assign", 3, inputs=1, attrs=[_ID])
def _infer_assign_3(node: Node) -> Infer:
    """Write the input into the variable read by an upstream ReadValue-3 of the same id."""
    vid = _check_id(node)
    reader = _upstream_read_value(node, vid)
    require(reader is not None, f"no ReadValue of variable {vid!r} feeds this Assign; Assign-3 needs one upstream.")
    assert reader is not None
    _check_assign(node, read_value_info(reader))
    return [(node.get_input_element_type(0), node.get_input_partial_shape(0))]


@define_op("Assign", 6, inputs=1, attrs=[_ID])
def _infer_assign_6(node: Node) -> Infer:
    """Write the input into the variable; checked against an upstream ReadValue of the same id
    (and against the whole model by :func:`check_variables`)."""
    vid = _check_id(node)
    reader = _upstream_read_value(node, vid)
    if reader is not None:
        _check_assign(node, read_value_info(reader))
    return [(node.get_input_element_type(0), node.get_input_partial_shape(0))]


def read_value(init_value: NodeInput | None, variable_id: str, variable_type: Any = None,
               variable_shape: Any = None, name: str | None = None) -> Node:
    """ReadValue-6. ``variable_type`` defaults to the init value's type (required without one);
    ``variable_shape`` defaults to the init value's shape, or a dynamic rank without one."""
    inputs = [] if init_value is None else [as_output(init_value)]
    if variable_type is None:
        if not inputs:
            raise ValidationError(f"ReadValue-6 node {name or variable_id!r}: variable_type is required "
                                  "when there is no init value.")
        variable_type = inputs[0].get_element_type()
    if variable_shape is None:
        variable_shape = inputs[0].get_partial_shape() if inputs else PartialShape.dynamic()
    attrs = {"variable_id": variable_id, "variable_type": as_type(variable_type),
             "variable_shape": as_partial_shape(variable_shape)}
    return make_node("ReadValue", 6, inputs, attrs, name)


def assign(new_value: NodeInput, variable_id: str | Node, name: str | None = None) -> Node:
    """Assign-6 of ``variable_id`` (or of the variable a ReadValue node reads). Make it a model sink."""
    if isinstance(variable_id, Node):
        if variable_id.type_name != "ReadValue":
            raise ValidationError(f"Assign-6 node {name!r}: {describe(variable_id)} is not a ReadValue; "
                                  "pass a variable id or a ReadValue node.")
        variable_id = variable_id.attrs["variable_id"]
    return make_node("Assign", 6, [as_output(new_value)], {"variable_id": variable_id}, name)


# -- model-level view ----------------------------------------------------------------------------

def variable_infos(model: Model) -> list[VariableInfo]:
    """The model's variables, in model order, from their ReadValue nodes (an Assign without any
    ReadValue of its id gives its input's type and shape)."""
    infos: dict[str, VariableInfo] = {}
    ops = model.get_ordered_ops()
    for n in _of_type(ops, "ReadValue"):
        infos.setdefault(n.attrs["variable_id"], read_value_info(n))
    for n in _of_type(ops, "Assign"):
        vid = n.attrs["variable_id"]
        infos.setdefault(vid, VariableInfo(vid, n.get_input_element_type(0), n.get_input_partial_shape(0)))
    return list(infos.values())


def check_variables(model: Model) -> None:
    """Every ReadValue of a variable agrees on its type and shape, and every Assign writes a value
    of that type and a compatible shape. Raises ValidationError naming the node."""
    infos = {i.variable_id: i for i in variable_infos(model)}
    ops = model.get_ordered_ops()
    for n in _of_type(ops, "ReadValue"):
        info, mine = infos[n.attrs["variable_id"]], read_value_info(n)
        if (mine.data_type, mine.data_shape) != (info.data_type, info.data_shape):
            raise ValidationError(f"{describe(n)}: variable {info.variable_id!r} is declared as "
                                  f"{mine.data_type} {mine.data_shape} here but {info.data_type} "
                                  f"{info.data_shape} by another ReadValue.")
    for n in _of_type(ops, "Assign"):
        try:
            _check_assign(n, infos[n.attrs["variable_id"]])
        except ValidationError as e:
            raise ValidationError(f"{describe(n)}: {e}") from e


def _of_type(ops: Iterable[Node], type_name: str) -> list[Node]:
    return [n for n in ops if n.type_name == type_name]


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
