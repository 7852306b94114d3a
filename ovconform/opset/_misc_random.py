"""RandomUniform-8 builder: ``shape`` (a 1D integer tensor), ``minval`` and ``maxval`` (one-element tensors
of ``output_type``); attributes as OpenVINO writes them: ``output_type`` (f16, bf16, f32, f64, i32,
i64), ``op_seed``, ``global_seed`` and ``alignment`` (tensorflow, pytorch). The output shape is the
value of ``shape`` when it is known at build time."""

from __future__ import annotations

import math
from typing import Any

from ovconform.ir import AttrSpec, Dimension, Node, Output, PartialShape, Type, as_type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, make_constant, require
from ovconform.opset._shape_ops import const_ints, index_input, require_integer

__all__ = ["random_uniform"]

OUTPUT_TYPES = (Type.f16, Type.bf16, Type.f32, Type.f64, Type.i32, Type.i64)


@define_op("RandomUniform", 8, inputs=3, attrs=[
    AttrSpec("output_type", "type", Type.f32, OUTPUT_TYPES), AttrSpec("op_seed", "int", 0),
    AttrSpec("global_seed", "int", 0), AttrSpec("alignment", "str", "tensorflow", ("tensorflow", "pytorch"))])
def _infer_random_uniform(node: Node) -> list[tuple[Type, PartialShape]]:
    a = node.attrs
    require(a["op_seed"] >= 0 and a["global_seed"] >= 0,
            f"op_seed={a['op_seed']} and global_seed={a['global_seed']} must not be negative.")
    et = a["output_type"]
    require_integer(node, 0, "shape")
    shape = node.get_input_partial_shape(0)
    require(not shape.has_rank() or len(shape) == 1, f"shape (input 0) has shape {shape}; it must be 1D.")
    for i, what in ((1, "minval"), (2, "maxval")):
        t, s = node.get_input_element_type(i), node.get_input_partial_shape(i)
        require(t == et, f"{what} (input {i}) has element type {t}; it must be output_type ({et}).")
        require(not s.is_static or math.prod(s.to_shape()) == 1, f"{what} (input {i}) has shape {s}; it must hold "
                                                                  "one value.")
    dims = const_ints(node, 0)
    if dims is not None:
        require(all(d >= 0 for d in dims), f"shape {dims} has a negative dimension.")
        return [(et, PartialShape(dims))]
    if shape.has_rank() and shape[0].is_static:
        return [(et, PartialShape([Dimension()] * shape[0].get_length()))]
    return [(et, PartialShape.dynamic())]


def random_uniform(output_shape: NodeInput, min_val: NodeInput, max_val: NodeInput, output_type: Any,
                   global_seed: int = 0, op_seed: int = 0, alignment: str = "tensorflow",
                   name: str | None = None) -> Node:
    """RandomUniform-8 (``openvino.opset8.random_uniform``'s arguments); literal bounds become Constants of
    ``output_type``."""
    et = as_type(output_type)
    bounds = [as_output(v) if isinstance(v, (Node, Output)) else make_constant(v, et).output(0)
              for v in (min_val, max_val)]
    attrs = {"output_type": et, "op_seed": op_seed, "global_seed": global_seed, "alignment": alignment.lower()}
    return make_node("RandomUniform", 8, [index_input(output_shape, "output_shape"), *bounds],
                     attrs, name)
