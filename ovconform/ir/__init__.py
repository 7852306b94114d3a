"""The graph IR: element types, partial shapes, nodes, models and the op-definition table."""

from __future__ import annotations

from ovconform.ir._element_codec import holding_array
from ovconform.ir._graph import Input, Model, Node, Output, constant_value, describe, make_node
from ovconform.ir._layout import Layout
from ovconform.ir._opdef import REQUIRED, AttrSpec, OpDef, all_op_types, all_opdefs, define_op, get_opdef
from ovconform.ir._shape import Dimension, PartialShape, as_dimension, as_partial_shape
from ovconform.ir._subgraph import (
    BodyOutputDescription,
    ConcatOutputDescription,
    InvariantInputDescription,
    MergedInputDescription,
    SliceInputDescription,
    SpecialBodyPorts,
)
from ovconform.ir._types import (
    ALL_TYPES,
    ELEMENT_TYPES,
    STORAGE_TYPES,
    Type,
    as_type,
    bf16_to_f32,
    byte_size,
    check_values,
    f32_to_bf16,
)

__all__ = [
    "ALL_TYPES", "REQUIRED", "AttrSpec", "Dimension", "Input", "Layout", "Model", "Node", "OpDef", "Output",
    "PartialShape", "Type", "all_op_types", "all_opdefs", "as_dimension", "as_partial_shape",
    "as_type", "bf16_to_f32", "constant_value", "define_op", "describe", "f32_to_bf16",
    "get_opdef", "make_node",
    "BodyOutputDescription", "ConcatOutputDescription", "InvariantInputDescription", "MergedInputDescription",
    "SliceInputDescription", "SpecialBodyPorts",
    "ELEMENT_TYPES", "STORAGE_TYPES", "byte_size", "check_values", "holding_array",
]
