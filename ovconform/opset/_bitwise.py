"""More reductions, LogSoftmax and the bitwise ops.

* ReduceMin-1, ReduceProd-1 (numeric data), ReduceL1-4, ReduceL2-4 (numeric data) and
  ReduceLogicalAnd-1, ReduceLogicalOr-1 (boolean data): ``data`` reduced over the axes input,
  with ``keep_dims``; shape inference is the one of :mod:`ovconform.opset._reduce`.
* LogSoftmax-5: ``axis`` in ``[-rank, rank)`` (0 or -1 for rank 0) over floating-point data.
* BitwiseAnd/Or/Xor-13 and BitwiseNot-13 over integer or boolean data; BitwiseLeftShift-15 and
  BitwiseRightShift-15 over integer data; binaries take ``auto_broadcast`` (numpy, none, pdpd).
"""

from __future__ import annotations

from ovconform.ir import AttrSpec, Node, Output, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import (
    AUTO_BROADCAST,
    NodeInput,
    as_output,
    as_outputs,
    broadcast_shapes,
    require,
    same_type,
)
from ovconform.opset._reduce import _axes_constant, _infer_reduce, normalize_scalar_axis, reduced_output

__all__ = [
    "bitwise_and", "bitwise_left_shift", "bitwise_not", "bitwise_or", "bitwise_right_shift", "bitwise_xor",
    "log_softmax", "reduce_l1", "reduce_l2", "reduce_logical_and", "reduce_logical_or", "reduce_min",
    "reduce_prod",
]

_KEEP = AttrSpec("keep_dims", "bool", False)
_BROADCAST = AttrSpec("auto_broadcast", "str", "numpy", AUTO_BROADCAST)

# -- reductions --------------------------------------------------------------------------------

ARITHMETIC_REDUCTIONS = {"ReduceMin": 1, "ReduceProd": 1, "ReduceL1": 4, "ReduceL2": 4}
LOGICAL_REDUCTIONS = {"ReduceLogicalAnd": 1, "ReduceLogicalOr": 1}

for _t, _v in ARITHMETIC_REDUCTIONS.items():
    define_op(_t, _v, inputs=2, attrs=[_KEEP])(_infer_reduce)


def _infer_logical_reduce(node: Node) -> list[tuple[Type, PartialShape]]:
    et = node.get_input_element_type(0)
    require(et == Type.boolean, f"data element type {et} is not allowed; logical reductions need boolean.")
    return reduced_output(node, et)


for _t, _v in LOGICAL_REDUCTIONS.items():
    define_op(_t, _v, inputs=2, attrs=[_KEEP])(_infer_logical_reduce)


def _reducer(type_name: str, version: int, snake: str):  # noqa: ANN202 - builder factory
    def build(node: NodeInput, reduction_axes: NodeInput, keep_dims: bool = False, name: str | None = None) -> Node:
        if isinstance(reduction_axes, (Node, Output)):
            axes = as_output(reduction_axes)
        else:
            axes = _axes_constant(reduction_axes, type_name)
        return make_node(type_name, version, [as_output(node), axes], {"keep_dims": keep_dims}, name)

    build.__name__ = build.__qualname__ = snake
    build.__doc__ = (f"{type_name}-{version} of ``node`` over ``reduction_axes`` (a list, array or node of an "
                     "integer type; literals become an i64 Constant); reduced axes stay as 1 when ``keep_dims``.")
    return build


reduce_min = _reducer("ReduceMin", 1, "reduce_min")
reduce_prod = _reducer("ReduceProd", 1, "reduce_prod")
reduce_l1 = _reducer("ReduceL1", 4, "reduce_l1")
reduce_l2 = _reducer("ReduceL2", 4, "reduce_l2")
reduce_logical_and = _reducer("ReduceLogicalAnd", 1, "reduce_logical_and")
reduce_logical_or = _reducer("ReduceLogicalOr", 1, "reduce_logical_or")

# -- LogSoftmax ----------------------------------------------------------------------------------


@define_op("LogSoftmax", 5, inputs=1, attrs=[AttrSpec("axis", "int", 1)])
def _infer_log_softmax(node: Node) -> list[tuple[Type, PartialShape]]:
    et = node.get_input_element_type(0)
    require(et.is_real(), f"element type {et} is not allowed; LogSoftmax needs a floating-point type.")
    shape = node.get_input_partial_shape(0)
    axis = node.attrs["axis"]
    if shape.has_rank():
        normalize_scalar_axis(axis, len(shape), "attribute 'axis'")
    return [(et, shape)]


def log_softmax(data: NodeInput, axis: int, name: str | None = None) -> Node:
    """LogSoftmax-5 over ``axis`` (negative counts from the end)."""
    return make_node("LogSoftmax", 5, [as_output(data)], {"axis": axis}, name)


# -- bitwise -------------------------------------------------------------------------------------

def _bitwise_type(et: Type, allow_bool: bool) -> None:
    allowed = "an integer or boolean type" if allow_bool else "an integer type"
    ok = et.is_integral_number() or (allow_bool and et == Type.boolean)
    require(ok, f"element type {et} is not allowed; this bitwise op needs {allowed}.")


def _infer_bitwise_binary(allow_bool: bool):  # noqa: ANN202 - inference factory
    def infer(node: Node) -> list[tuple[Type, PartialShape]]:
        et = same_type(node, 0, 1)
        _bitwise_type(et, allow_bool)
        return [(et, broadcast_shapes(node.get_input_partial_shape(0), node.get_input_partial_shape(1),
                                      node.attrs["auto_broadcast"]))]

    return infer


BITWISE_LOGIC = ("BitwiseAnd", "BitwiseOr", "BitwiseXor")
SHIFTS = ("BitwiseLeftShift", "BitwiseRightShift")
for _t in BITWISE_LOGIC:
    define_op(_t, 13, inputs=2, attrs=[_BROADCAST])(_infer_bitwise_binary(allow_bool=True))
for _t in SHIFTS:
    define_op(_t, 15, inputs=2, attrs=[_BROADCAST])(_infer_bitwise_binary(allow_bool=False))


@define_op("BitwiseNot", 13, inputs=1)
def _infer_bitwise_not(node: Node) -> list[tuple[Type, PartialShape]]:
    et = node.get_input_element_type(0)
    _bitwise_type(et, allow_bool=True)
    return [(et, node.get_input_partial_shape(0))]


def _binary(type_name: str, version: int, snake: str):  # noqa: ANN202 - builder factory
    def build(left: NodeInput, right: NodeInput, auto_broadcast: str = "numpy", name: str | None = None) -> Node:
        mode = auto_broadcast.lower() if isinstance(auto_broadcast, str) else auto_broadcast
        return make_node(type_name, version, as_outputs(left, right), {"auto_broadcast": mode}, name)

    build.__name__ = build.__qualname__ = snake
    build.__doc__ = f"Elementwise {type_name}-{version} with autobroadcast (numpy, none or pdpd)."
    return build


bitwise_and = _binary("BitwiseAnd", 13, "bitwise_and")
bitwise_or = _binary("BitwiseOr", 13, "bitwise_or")
bitwise_xor = _binary("BitwiseXor", 13, "bitwise_xor")
bitwise_left_shift = _binary("BitwiseLeftShift", 15, "bitwise_left_shift")
bitwise_right_shift = _binary("BitwiseRightShift", 15, "bitwise_right_shift")


def bitwise_not(data: NodeInput, name: str | None = None) -> Node:
    """Elementwise BitwiseNot-13 (``~x``; logical not for boolean)."""
    return make_node("BitwiseNot", 13, [as_output(data)], {}, name)
