"""RandomUniform-8 and Multinomial-13 builders.

RandomUniform-8: ``shape`` (a 1D integer tensor), ``minval`` and ``maxval`` (one-element tensors
of ``output_type``); attributes as OpenVINO writes them: ``output_type`` (f16, bf16, f32, f64, i32,
i64), ``op_seed``, ``global_seed`` and ``alignment`` (tensorflow, pytorch). The output shape is the
value of ``shape`` when it is known at build time.

Multinomial-13: ``probs`` (2D ``[batch, classes]`` of a floating-point type; logits when
``log_probs``) and ``num_samples`` (a scalar or one-element 1D i32/i64 tensor); attributes as
OpenVINO writes them: ``convert_type`` (i32, i64), ``with_replacement``, ``log_probs``,
``global_seed``, ``op_seed``. The output is ``[batch, num_samples]`` of ``convert_type``
(``[batch, ?]`` when ``num_samples`` is not known at build time). Without replacement,
``num_samples`` may not exceed ``classes`` when both are known."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ovconform.ir import AttrSpec, Dimension, Node, Output, PartialShape, Type, as_type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, make_constant, require
from ovconform.opset._shape_ops import const_ints, index_input, require_integer

__all__ = ["multinomial", "random_uniform"]

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


# -- Multinomial-13 ---------------------------------------------------------------------------------------------------

SAMPLE_TYPES = (Type.i32, Type.i64)
#: The floating-point types RandomUniform-8 (which draws Multinomial's uniform numbers) produces.
PROBS_TYPES = (Type.f16, Type.bf16, Type.f32, Type.f64)


@define_op("Multinomial", 13, inputs=2, attrs=[
    AttrSpec("convert_type", "type", choices=SAMPLE_TYPES), AttrSpec("with_replacement", "bool"),
    AttrSpec("log_probs", "bool"), AttrSpec("global_seed", "int", 0), AttrSpec("op_seed", "int", 0)])
def _infer_multinomial(node: Node) -> list[tuple[Type, PartialShape]]:
    a = node.attrs
    require(a["op_seed"] >= 0 and a["global_seed"] >= 0,
            f"global_seed={a['global_seed']} and op_seed={a['op_seed']} must not be negative.")
    t, probs = node.get_input_element_type(0), node.get_input_partial_shape(0)
    require(t in PROBS_TYPES, f"probs (input 0) has element type {t}; it must be a floating-point type "
                              f"({', '.join(str(x) for x in PROBS_TYPES)}).")
    require(not probs.has_rank() or len(probs) == 2, f"probs (input 0) has shape {probs}; it must be 2D "
                                                     "[batch_size, class_size].")
    require_integer(node, 1, "num_samples")
    t1, count = node.get_input_element_type(1), node.get_input_partial_shape(1)
    require(t1 in (Type.i32, Type.i64), f"num_samples (input 1) has element type {t1}; it must be i32 or i64.")
    require(not count.has_rank() or len(count) == 0 or (len(count) == 1 and count[0].compatible(1)),
            f"num_samples (input 1) has shape {count}; it must be a scalar or a 1D tensor of one element.")
    batch = probs[0] if probs.has_rank() else Dimension()
    classes = probs[1] if probs.has_rank() else Dimension()
    value = const_ints(node, 1)
    if value is None:
        return [(a["convert_type"], PartialShape([batch, Dimension()]))]
    samples = value[0]
    require(samples >= 0, f"num_samples {samples} must not be negative.")
    require(a["with_replacement"] or not classes.is_static or samples <= classes.get_length(),
            f"num_samples {samples} exceeds the {classes} classes of probs; without replacement "
            "(with_replacement=false) at most class_size samples can be drawn.")
    return [(a["convert_type"], PartialShape([batch, samples]))]


def multinomial(probs: NodeInput, num_samples: NodeInput, convert_type: Any, with_replacement: bool,
                log_probs: bool, global_seed: int = 0, op_seed: int = 0, name: str | None = None) -> Node:
    """Multinomial-13 (``openvino.opset13.multinomial``'s arguments); a literal ``num_samples`` becomes an
    integer Constant (i64 unless an int ndarray), literal ``probs`` an f32 Constant (its own dtype when a
    float ndarray)."""
    attrs = {"convert_type": as_type(convert_type), "with_replacement": with_replacement, "log_probs": log_probs,
             "global_seed": global_seed, "op_seed": op_seed}
    return make_node("Multinomial", 13, [_probs_input(probs), index_input(num_samples, "num_samples")], attrs, name)


def _probs_input(value: NodeInput) -> Output:
    if isinstance(value, (Node, Output)):
        return as_output(value)
    arr = np.asarray(value)
    return make_constant(arr if arr.dtype.kind == "f" else arr.astype(np.float32)).output(0)
