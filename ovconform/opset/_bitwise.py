"""Bitwise ops (OpenVINO's op-spec folder "bitwise"): BitwiseAnd/Or/Xor-13 and BitwiseNot-13 over
integer or boolean data; BitwiseLeftShift-15 and BitwiseRightShift-15 over integer data; the
binaries take ``auto_broadcast`` (numpy, none, pdpd).
"""

from __future__ import annotations

from ovconform.ir import Node, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import (
    _BROADCAST,
    BinaryBuilder,
    NodeInput,
    as_output,
    as_outputs,
    broadcast_shapes,
    require,
    same_type,
)
from ovconform.opset._inputs import InferFn

__all__ = ["bitwise_and", "bitwise_left_shift", "bitwise_not", "bitwise_or", "bitwise_right_shift", "bitwise_xor"]

def _bitwise_type(et: Type, allow_bool: bool) -> None:
    allowed = "an integer or boolean type" if allow_bool else "an integer type"
    ok = et.is_integral_number() or (allow_bool and et == Type.boolean)
    require(ok, f"element type {et} is not allowed; this bitwise op needs {allowed}.")


def _infer_bitwise_binary(allow_bool: bool) -> InferFn:
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


def _binary(type_name: str, version: int, snake: str) -> BinaryBuilder:
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
