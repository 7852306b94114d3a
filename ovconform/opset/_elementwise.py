"""Elementwise ops: arithmetic, comparison and logical binaries, unary math, Select, Clamp, Gelu."""

from __future__ import annotations

from ovconform.ir import AttrSpec, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import (
    AUTO_BROADCAST,
    NodeInput,
    as_output,
    as_outputs,
    broadcast_shapes,
    require,
    same_type,
)

__all__ = [
    "abs", "add", "clamp", "divide", "equal", "erf", "exp", "floor_mod", "gelu", "greater",
    "greater_equal", "less", "less_equal", "log", "logical_and", "logical_not", "logical_or",
    "logical_xor", "maximum", "minimum", "mod", "multiply", "negative", "not_equal", "power",
    "relu", "select", "sigmoid", "sqrt", "squared_difference", "subtract", "tanh",
]

_BROADCAST = AttrSpec("auto_broadcast", "str", "numpy", AUTO_BROADCAST)


def _arith(node: Node) -> list[tuple[Type, PartialShape]]:
    et = same_type(node, 0, 1)
    require(et != Type.boolean, f"element type {et} is not allowed; arithmetic needs a numeric type.")
    return [(et, broadcast_shapes(node.get_input_partial_shape(0), node.get_input_partial_shape(1),
                                  node.attrs["auto_broadcast"]))]


def _compare(node: Node) -> list[tuple[Type, PartialShape]]:
    same_type(node, 0, 1)
    return [(Type.boolean, broadcast_shapes(node.get_input_partial_shape(0), node.get_input_partial_shape(1),
                                            node.attrs["auto_broadcast"]))]


def _logical(node: Node) -> list[tuple[Type, PartialShape]]:
    for i in (0, 1):
        require(node.get_input_element_type(i) == Type.boolean,
                f"input {i} has element type {node.get_input_element_type(i)}; logical ops need boolean.")
    return _compare(node)


ARITHMETIC = ("Add", "Subtract", "Multiply", "Power", "Maximum", "Minimum", "SquaredDifference",
              "FloorMod", "Mod")
COMPARISON = ("Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual")
LOGICAL = ("LogicalAnd", "LogicalOr", "LogicalXor")

for _t in ARITHMETIC:
    define_op(_t, 1, inputs=2, attrs=[_BROADCAST])(_arith)
define_op("Divide", 1, inputs=2, attrs=[_BROADCAST, AttrSpec("m_pythondiv", "bool", True)])(_arith)
for _t in COMPARISON:
    define_op(_t, 1, inputs=2, attrs=[_BROADCAST])(_compare)
for _t in LOGICAL:
    define_op(_t, 1, inputs=2, attrs=[_BROADCAST])(_logical)


def _unary_float(node: Node) -> list[tuple[Type, PartialShape]]:
    et = node.get_input_element_type(0)
    require(et != Type.boolean, f"element type {et} is not allowed; this op needs a numeric type.")
    return [(et, node.get_input_partial_shape(0))]


UNARY = ("Abs", "Negative", "Exp", "Log", "Sqrt", "Sigmoid", "Tanh", "Erf")
for _t in UNARY:
    define_op(_t, 1, inputs=1)(_unary_float)
define_op("Relu", 1, inputs=1, ir_type_name="ReLU")(_unary_float)


def _unary_real(node: Node) -> list[tuple[Type, PartialShape]]:
    et = node.get_input_element_type(0)
    require(et.is_real(), f"element type {et} is not allowed; this op needs a floating-point type.")
    return [(et, node.get_input_partial_shape(0))]


define_op("Gelu", 2, inputs=1)(_unary_real)
define_op("Gelu", 7, inputs=1, attrs=[AttrSpec("approximation_mode", "str", "ERF", ("ERF", "TANH"))])(_unary_real)


@define_op("LogicalNot", 1, inputs=1)
def _infer_logical_not(node: Node) -> list[tuple[Type, PartialShape]]:
    require(node.get_input_element_type(0) == Type.boolean,
            f"input has element type {node.get_input_element_type(0)}; LogicalNot needs boolean.")
    return [(Type.boolean, node.get_input_partial_shape(0))]


@define_op("Clamp", 1, inputs=1, attrs=[AttrSpec("min", "float"), AttrSpec("max", "float")])
def _infer_clamp(node: Node) -> list[tuple[Type, PartialShape]]:
    lo, hi = node.attrs["min"], node.attrs["max"]
    require(lo <= hi, f"attribute min={lo} must not exceed max={hi}.")
    return _unary_float(node)


@define_op("Select", 1, inputs=3, attrs=[_BROADCAST])
def _infer_select(node: Node) -> list[tuple[Type, PartialShape]]:
    require(node.get_input_element_type(0) == Type.boolean,
            f"condition has element type {node.get_input_element_type(0)}; Select needs boolean.")
    et = same_type(node, 1, 2)
    mode = node.attrs["auto_broadcast"]
    s = [node.get_input_partial_shape(i) for i in range(3)]
    if mode == "pdpd":
        out = broadcast_shapes(s[1], s[2], "pdpd")
        broadcast_shapes(out, s[0], "pdpd")
    else:
        out = broadcast_shapes(broadcast_shapes(s[0], s[1], mode), s[2], mode)
    return [(et, out)]


def _binary(type_name: str, version: int = 1):  # noqa: ANN202 - builder factory
    def build(left: NodeInput, right: NodeInput, auto_broadcast: str = "numpy", name: str | None = None) -> Node:
        return make_node(type_name, version, as_outputs(left, right), {"auto_broadcast": auto_broadcast}, name)

    build.__name__ = build.__qualname__ = _snake(type_name)
    build.__doc__ = f"Elementwise {type_name} with autobroadcast (numpy, none or pdpd)."
    return build


def _unary(type_name: str, version: int = 1):  # noqa: ANN202 - builder factory
    def build(data: NodeInput, name: str | None = None) -> Node:
        return make_node(type_name, version, [as_output(data)], {}, name)

    build.__name__ = build.__qualname__ = _snake(type_name)
    build.__doc__ = f"Elementwise {type_name}."
    return build


def _snake(name: str) -> str:
    out = "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")
    return out


add = _binary("Add")
subtract = _binary("Subtract")
multiply = _binary("Multiply")
power = _binary("Power")
maximum = _binary("Maximum")
minimum = _binary("Minimum")
squared_difference = _binary("SquaredDifference")
floor_mod = _binary("FloorMod")
mod = _binary("Mod")
equal = _binary("Equal")
not_equal = _binary("NotEqual")
less = _binary("Less")
less_equal = _binary("LessEqual")
greater = _binary("Greater")
greater_equal = _binary("GreaterEqual")
logical_and = _binary("LogicalAnd")
logical_or = _binary("LogicalOr")
logical_xor = _binary("LogicalXor")

abs = _unary("Abs")  # noqa: A001 - OpenVINO's builder name
negative = _unary("Negative")
exp = _unary("Exp")
log = _unary("Log")
sqrt = _unary("Sqrt")
relu = _unary("Relu")
sigmoid = _unary("Sigmoid")
tanh = _unary("Tanh")
erf = _unary("Erf")
logical_not = _unary("LogicalNot")


def divide(left: NodeInput, right: NodeInput, auto_broadcast: str = "numpy", python_division: bool = True,
           name: str | None = None) -> Node:
    """Elementwise Divide; integer division floors when ``python_division`` (m_pythondiv) is set."""
    return make_node("Divide", 1, as_outputs(left, right),
                     {"auto_broadcast": auto_broadcast, "m_pythondiv": python_division}, name)


def gelu(data: NodeInput, approximation_mode: str = "erf", name: str | None = None) -> Node:
    """Gelu-7 with ``approximation_mode`` "erf" or "tanh" (case-insensitive)."""
    mode = approximation_mode.upper() if isinstance(approximation_mode, str) else approximation_mode
    return make_node("Gelu", 7, [as_output(data)], {"approximation_mode": mode}, name)


def clamp(data: NodeInput, min_value: float, max_value: float, name: str | None = None) -> Node:
    return make_node("Clamp", 1, [as_output(data)], {"min": min_value, "max": max_value}, name)


def select(cond: NodeInput, then_node: NodeInput, else_node: NodeInput, auto_broadcast: str = "numpy",
           name: str | None = None) -> Node:
    then_out, else_out = as_outputs(then_node, else_node)
    return make_node("Select", 1, [as_output(cond), then_out, else_out], {"auto_broadcast": auto_broadcast}, name)
