"""Comparison ops (OpenVINO's op-spec folder "comparison"): Equal, NotEqual, Less, LessEqual, Greater,
GreaterEqual (opset1, two inputs of one element type, ``auto_broadcast`` numpy, none or pdpd, a
boolean output) and the float classifiers IsNaN-10, IsInf-10 and IsFinite-10 (floating-point
data, boolean output; IsInf has ``detect_negative`` and ``detect_positive``).
"""

from __future__ import annotations

from ovconform.ir import AttrSpec, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import _BROADCAST, NodeInput, _compare, _real_data, as_output, elementwise_binary

__all__ = ["equal", "greater", "greater_equal", "is_finite", "is_inf", "is_nan", "less", "less_equal", "not_equal"]

COMPARISON = ("Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual")


for _t in COMPARISON:
    define_op(_t, 1, inputs=2, attrs=[_BROADCAST])(_compare)


def _classify(node: Node) -> list[tuple[Type, PartialShape]]:
    _real_data(node)
    return [(Type.boolean, node.get_input_partial_shape(0))]


define_op("IsNaN", 10, inputs=1)(_classify)
define_op("IsFinite", 10, inputs=1)(_classify)
define_op("IsInf", 10, inputs=1, attrs=[AttrSpec("detect_negative", "bool", True),
                                        AttrSpec("detect_positive", "bool", True)])(_classify)


equal = elementwise_binary("Equal")
not_equal = elementwise_binary("NotEqual")
less = elementwise_binary("Less")
less_equal = elementwise_binary("LessEqual")
greater = elementwise_binary("Greater")
greater_equal = elementwise_binary("GreaterEqual")


def is_nan(data: NodeInput, name: str | None = None) -> Node:
    """IsNaN-10."""
    return make_node("IsNaN", 10, [as_output(data)], {}, name)


def is_finite(data: NodeInput, name: str | None = None) -> Node:
    """IsFinite-10."""
    return make_node("IsFinite", 10, [as_output(data)], {}, name)


def is_inf(data: NodeInput, attributes: dict[str, bool] | None = None, name: str | None = None) -> Node:
    """IsInf-10; ``attributes`` may set ``detect_negative`` / ``detect_positive`` (both default True)."""
    attrs = {"detect_negative": True, "detect_positive": True, **(attributes or {})}
    return make_node("IsInf", 10, [as_output(data)], attrs, name)
