"""Logical ops (OpenVINO's op-spec folder "logical"): LogicalAnd, LogicalOr, LogicalXor (opset1,
boolean inputs, ``auto_broadcast`` numpy, none or pdpd), LogicalNot, and Xor-1 (``ov::op::v0::Xor``,
in opset1 only: LogicalXor's older form, with the same inputs, attribute and formula; OpenVINO's
Python API has no builder for it, ``NodeFactory("opset1")`` creates it and OpenVINO writes it as
``type="Xor" version="opset1"``).

OpenVINO writes LogicalXor with version "opset2" although it is in opset1; it is defined here as
LogicalXor-1, and OpenVINO reads that.
"""

from __future__ import annotations

from ovconform.ir import Node, PartialShape, Type, define_op
from ovconform.opset._helpers import _BROADCAST, _compare, elementwise_binary, elementwise_unary, require

__all__ = ["logical_and", "logical_not", "logical_or", "logical_xor", "xor"]

def _logical(node: Node) -> list[tuple[Type, PartialShape]]:
    for i in (0, 1):
        require(node.get_input_element_type(i) == Type.boolean,
                f"input {i} has element type {node.get_input_element_type(i)}; logical ops need boolean.")
    return _compare(node)


LOGICAL = ("LogicalAnd", "LogicalOr", "LogicalXor", "Xor")


for _t in LOGICAL:
    define_op(_t, 1, inputs=2, attrs=[_BROADCAST])(_logical)


@define_op("LogicalNot", 1, inputs=1)
def _infer_logical_not(node: Node) -> list[tuple[Type, PartialShape]]:
    require(node.get_input_element_type(0) == Type.boolean,
            f"input has element type {node.get_input_element_type(0)}; LogicalNot needs boolean.")
    return [(Type.boolean, node.get_input_partial_shape(0))]


logical_and = elementwise_binary("LogicalAnd")
logical_or = elementwise_binary("LogicalOr")
logical_xor = elementwise_binary("LogicalXor")
logical_not = elementwise_unary("LogicalNot")
#: Xor-1 (opset1): ``xor(a, b, auto_broadcast="numpy")``, as LogicalXor.
xor = elementwise_binary("Xor")
