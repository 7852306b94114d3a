"""Generation ops (OpenVINO's op-spec folder "generation"): Range-1/4, Eye-9, RandomUniform-8 and
Multinomial-13.

* Range-4 has ``output_type``; Range-1 takes the type of its inputs. Eye-9 has ``output_type``.
  Their output shapes depend on input values: exact when those inputs are known at build time
  (:func:`~ovconform.ir.constant_value`), dynamic otherwise.
* RandomUniform-8: ``shape`` (a 1D integer tensor), ``minval`` and ``maxval`` (one-element tensors
  of ``output_type``); attributes as OpenVINO writes them: ``output_type`` (f16, bf16, f32, f64,
  i32, i64), ``op_seed``, ``global_seed`` and ``alignment`` (tensorflow, pytorch). The output shape
  is the value of ``shape`` when it is known at build time.
* Multinomial-13: ``probs`` (2D ``[batch, classes]`` of a floating-point type; logits when
  ``log_probs``) and ``num_samples`` (a scalar or one-element 1D i32/i64 tensor); attributes as
  OpenVINO writes them: ``convert_type`` (i32, i64), ``with_replacement``, ``log_probs``,
  ``global_seed``, ``op_seed``. The output is ``[batch, num_samples]`` of ``convert_type``
  (``[batch, ?]`` when ``num_samples`` is not known at build time). Without replacement,
  ``num_samples`` may not exceed ``classes`` when both are known.
"""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

from ovconform.ir import (
    AttrSpec,
    Dimension,
    Node,
    Output,
    PartialShape,
    Type,
    as_type,
    bf16_to_f32,
    constant_value,
    define_op,
    f32_to_bf16,
    make_node,
)
from ovconform.opset._helpers import NodeInput, as_output, make_constant, require
from ovconform.opset._inputs import (
    Infer,
    _const_ints,
    _rank_at_most,
    _scalar_like,
    const_ints,
    index_input,
    require_integer,
)

__all__ = ["eye", "multinomial", "random_uniform", "range", "range_v1"]

#: Most elements a Range/Eye/OneHot output may have when its size is known at build time.
MAX_GENERATED = 2**31 - 1


def range_length(start: float, stop: float, step: float) -> int:
    """``max(ceil((stop - start) / step), 0)``; a zero step is a ValidationError."""
    require(step != 0, "step is 0; Range needs a non-zero step.")
    require(all(math.isfinite(v) for v in (start, stop, step)),
            f"start {start}, stop {stop} and step {step} must be finite.")
    span = stop - start
    if isinstance(start, int) and isinstance(stop, int) and isinstance(step, int):
        return max(-((start - stop) // step), 0)  # exact ceil for integers: -floor(-span / step)
    return max(math.ceil(span / step), 0)


def _cast_scalar(x: np.generic, t: Type) -> int | float:
    """One start/stop/step value converted to the output type ``t`` (Convert semantics for in-range
    values: a float becomes an integer by truncation, a float type rounds to nearest)."""
    if t.is_integral_number():
        return int(np.trunc(float(x))) if np.asarray(x).dtype.kind == "f" else int(x)
    if t == Type.bf16:
        return float(bf16_to_f32(f32_to_bf16(np.array([x], np.float32)))[0])
    return float(np.asarray(x).astype(t.to_dtype()))


def _range_values(node: Node, cast_to: Type | None) -> list[int | float] | None:
    """The build-time start, stop, step (cast to ``cast_to`` for Range-4), or None when unknown."""
    values: list[int | float] = []
    for i in builtins.range(3):
        v = constant_value(node.input_value(i))
        if v is None:
            return None
        et = node.get_input_element_type(i)
        x = np.asarray(v).reshape(-1)[0]
        if et == Type.bf16:
            x = bf16_to_f32(np.array([x], np.uint16))[0]
        if cast_to is not None:
            values.append(_cast_scalar(x, cast_to))
        else:
            values.append(float(x) if et.is_real() else int(x))
    return values


def _range_shape(node: Node, cast_to: Type | None) -> PartialShape:
    for i, what in enumerate(("start", "stop", "step")):  # the spec's scalars: OpenVINO refuses a [1] too
        _rank_at_most(node, i, 0, what)
    values = _range_values(node, cast_to)
    if values is None:
        return PartialShape.dynamic(1)
    n = range_length(*values)
    require(n <= MAX_GENERATED, f"start {values[0]}, stop {values[1]}, step {values[2]} give {n} elements; "
                                f"at most {MAX_GENERATED} are allowed.")
    return PartialShape([n])


@define_op("Range", 1, inputs=3)
def _infer_range1(node: Node) -> Infer:
    """``start + i * step`` for ``i`` in ``[0, ceil((stop - start) / step))``; inputs share one numeric type."""
    types = [node.get_input_element_type(i) for i in builtins.range(3)]
    require(all(t == types[0] for t in types), f"start, stop and step must share one element type; got "
                                               f"{[str(t) for t in types]}.")
    require(types[0] != Type.boolean, "element type boolean is not allowed; Range needs a numeric type.")
    return [(types[0], _range_shape(node, None))]


@define_op("Range", 4, inputs=3, attrs=[AttrSpec("output_type", "type")])
def _infer_range4(node: Node) -> Infer:
    """As Range-1 over start, stop, step cast to ``output_type`` (inputs of any numeric types)."""
    out = node.attrs["output_type"]
    require(out.is_real() or out.is_integral_number(),
            f"attribute 'output_type'={out} is not allowed; Range needs a numeric output type.")
    for i, what in enumerate(("start", "stop", "step")):
        t = node.get_input_element_type(i)
        require(t != Type.boolean, f"{what} (input {i}) has element type boolean; it must be numeric.")
    return [(out, _range_shape(node, out))]


def range(start: NodeInput, stop: NodeInput, step: NodeInput, output_type: Any,  # noqa: A001 - opset16 name
          name: str | None = None) -> Node:
    """Range-4: start, stop, step of any numeric types (literals become Constants) cast to ``output_type``."""
    inputs = [as_output(v) for v in (start, stop, step)]
    return make_node("Range", 4, inputs, {"output_type": as_type(output_type)}, name)


def range_v1(start: NodeInput, stop: NodeInput, step: NodeInput, name: str | None = None) -> Node:
    """Range-1 (``openvino.opset1.range``): start, stop, step of one numeric type; output of that type."""
    first = next((as_output(v).get_element_type() for v in (start, stop, step) if isinstance(v, Node)), None)
    return make_node("Range", 1, [as_output(v, first) for v in (start, stop, step)], {}, name)


# -- Eye -----------------------------------------------------------------------------------------------------

def _eye_count(node: Node, index: int, what: str) -> Dimension:
    t = node.get_input_element_type(index)
    require(t in (Type.i32, Type.i64), f"{what} (input {index}) has element type {t}; allowed: i32, i64.")
    _scalar_like(node, index, what)
    value = _const_ints(node, index)
    if value is None:
        return Dimension()
    require(value[0] >= 0, f"{what} is {value[0]}; it must be >= 0.")
    return Dimension(value[0])


@define_op("Eye", 9, inputs=(3, 4), attrs=[AttrSpec("output_type", "type")])
def _infer_eye(node: Node) -> Infer:
    """``batch_shape + [num_rows, num_columns]`` with ones on the ``diagonal_index`` diagonal."""
    out = node.attrs["output_type"]
    require(out.is_real() or out.is_integral_number() or out == Type.boolean,
            f"attribute 'output_type'={out} is not allowed; Eye needs a numeric or boolean output type.")
    rows, cols = _eye_count(node, 0, "num_rows"), _eye_count(node, 1, "num_columns")
    t = node.get_input_element_type(2)
    require(t in (Type.i32, Type.i64), f"diagonal_index (input 2) has element type {t}; allowed: i32, i64.")
    _scalar_like(node, 2, "diagonal_index")
    if node.get_input_size() == 3:
        return [(out, PartialShape([rows, cols]))]
    t = node.get_input_element_type(3)
    require(t in (Type.i32, Type.i64), f"batch_shape (input 3) has element type {t}; allowed: i32, i64.")
    bshape = node.get_input_partial_shape(3)
    require(not bshape.has_rank() or len(bshape) == 1, f"batch_shape (input 3) has shape {bshape}; it must be 1-D.")
    batch = _const_ints(node, 3)
    if batch is None:
        n = bshape[0].get_length() if bshape.has_rank() and bshape[0].is_static else None
        return [(out, PartialShape.dynamic() if n is None else PartialShape([Dimension()] * n + [rows, cols]))]
    require(all(b >= 0 for b in batch), f"batch_shape {batch} has a negative dim.")
    return [(out, PartialShape([*batch, rows, cols]))]


def eye(num_rows: NodeInput, num_columns: NodeInput, diagonal_index: NodeInput, output_type: Any,
        batch_shape: NodeInput | None = None, name: str | None = None) -> Node:
    """Eye-9; literal counts become i64 Constants."""
    inputs = [index_input(v, f"Eye {w}") for v, w in ((num_rows, "num_rows"), (num_columns, "num_columns"),
                                                     (diagonal_index, "diagonal_index"))]
    if batch_shape is not None:
        inputs.append(index_input(batch_shape, "Eye batch_shape"))
    return make_node("Eye", 9, inputs, {"output_type": as_type(output_type)}, name)


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
