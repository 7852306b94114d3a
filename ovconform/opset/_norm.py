"""Normalisation and generation ops: MVN-2/6, NormalizeL2-1, BatchNormInference-1/5,
GroupNormalization-12, LRN-1, GRN-1, CumSum-3, Range-1/4, Eye-9, OneHot-1/16.

Attribute spellings are those ``openvino.save_model`` writes to IR v11:

* MVN-2 (the spec's page "MVN-1": ``ov::op::v0::MVN``, first in opset2, so the IR and this
  project call it version 2; the builder is ``mvn_v1`` after the spec) ``eps`` (double),
  ``across_channels``, ``normalize_variance``, ``reduction_axes`` (a list; when absent the axes
  follow ``across_channels``: 1..rank-1, else 2..rank-1).
* MVN-6 ``eps`` (a float32, as are NormalizeL2 ``eps`` and GRN ``bias``: the builders round them as
  OpenVINO stores them), ``normalize_variance``, ``eps_mode`` — OpenVINO writes ``INSIDE_SQRT`` /
  ``OUTSIDE_SQRT``; the builder stores that spelling, the lower-case spec spelling is read as well.
* NormalizeL2-1 ``eps``, ``eps_mode`` (``add`` / ``max``); BatchNormInference ``epsilon``;
  GroupNormalization-12 ``num_groups``, ``epsilon``; LRN-1 ``alpha``, ``beta``, ``bias``, ``size``;
  GRN-1 ``bias``; CumSum-3 ``exclusive``, ``reverse``; Range-4 and Eye-9 ``output_type``;
  OneHot-1 ``axis``, OneHot-16 also ``negative_indices_mode`` (``ignore_negative`` / ``normalize``).

BatchNormInference-1 takes ``gamma, beta, data, mean, variance``; version 5 takes ``data, gamma,
beta, mean, variance``. The builder takes the version-5 order for both and places the inputs.

Range, Eye and OneHot have output shapes that depend on input values: exact when those inputs are
known at build time (:func:`~ovconform.ir.constant_value`), dynamic otherwise.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ovconform.ir import (
    AttrSpec,
    Dimension,
    Node,
    PartialShape,
    Type,
    as_type,
    bf16_to_f32,
    constant_value,
    define_op,
    f32_to_bf16,
    make_node,
)
from ovconform.opset._helpers import NodeInput, as_output, normalize_axes, normalize_axis, require
from ovconform.opset._shape_ops import index_input

__all__ = [
    "batch_norm_inference", "cumsum", "eye", "grn", "group_normalization", "lrn", "mvn", "mvn_v1", "normalize_l2",
    "one_hot", "range", "range_v1",
]

Infer = list[tuple[Type, PartialShape]]

EPS_MODES_MVN = ("INSIDE_SQRT", "OUTSIDE_SQRT", "inside_sqrt", "outside_sqrt")
NEGATIVE_INDICES_MODES = ("ignore_negative", "normalize")
#: Most elements a Range/Eye/OneHot output may have when its size is known at build time.
MAX_GENERATED = 2**31 - 1


# -- shared checks -------------------------------------------------------------------------------------------

def _real(node: Node, index: int, what: str) -> Type:
    et = node.get_input_element_type(index)
    require(et.is_real(), f"{what} (input {index}) has element type {et}; it must be a floating-point type.")
    return et


def _integer(node: Node, index: int, what: str) -> Type:
    et = node.get_input_element_type(index)
    require(et.is_integral_number(), f"{what} (input {index}) has element type {et}; it must be an integer type.")
    return et


def _rank_at_most(node: Node, index: int, rank: int, what: str) -> PartialShape:
    shape = node.get_input_partial_shape(index)
    require(not shape.has_rank() or len(shape) <= rank,
            f"{what} (input {index}) has shape {shape}; its rank must be at most {rank}.")
    return shape


def _scalar_like(node: Node, index: int, what: str) -> None:
    """A scalar or a 1-D tensor of one element."""
    shape = _rank_at_most(node, index, 1, what)
    if shape.has_rank() and len(shape) == 1:
        require(shape[0].contains(1), f"{what} (input {index}) has shape {shape}; it must hold one value.")


def _const_ints(node: Node, index: int) -> list[int] | None:
    value = constant_value(node.input_value(index))
    return None if value is None else [int(v) for v in np.asarray(value).reshape(-1).tolist()]


def _const_axes(node: Node, index: int, rank: int | None, what: str = "axes") -> list[int] | None:
    """Normalised, unique constant axes of an integer 0-D/1-D input, or None when unknown."""
    _integer(node, index, what)
    _rank_at_most(node, index, 1, what)
    values = _const_ints(node, index)
    if values is None or rank is None:
        return None
    return normalize_axes(values, rank, what)


def f32_attr(value: Any) -> Any:
    """A float attribute OpenVINO keeps as a C++ ``float``, rounded to float32 as OpenVINO stores it
    (MVN-6 ``eps``, NormalizeL2 ``eps``, GRN ``bias``); anything else is left for the op check to refuse."""
    if isinstance(value, (int, float, np.floating, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return float(np.float32(value))
    return value


def _rank(shape: PartialShape) -> int | None:
    return len(shape) if shape.has_rank() else None


def _non_negative(node: Node, name: str) -> float:
    value = node.attrs[name]
    require(math.isfinite(value) and value >= 0,
            f"attribute {name!r}={value!r} is not allowed; it must be a finite number >= 0.")
    return value


def _merge_channel(data: PartialShape, vectors: list[PartialShape], channel_what: str) -> PartialShape:
    """``data`` (rank >= 2) with dim 1 merged with the length of each 1-D ``vectors`` shape."""
    if not data.has_rank():
        return data
    dims = list(data.dims)
    for v in vectors:
        if v.has_rank():
            merged = dims[1].merge(v[0])
            require(merged is not None, f"{channel_what} has shape {v}; its length must equal the channel dim "
                                        f"(dim 1) of the data {data}.")
            dims[1] = merged  # type: ignore[assignment]
    return PartialShape(dims)


# -- MVN -----------------------------------------------------------------------------------------------------

def mvn1_axes(rank: int, across_channels: bool, reduction_axes: Sequence[int] | None) -> list[int]:
    """The axes MVN-1 reduces, sorted and non-negative: ``reduction_axes`` when given (non-empty;
    negative counts from the end), else 1..rank-1 with ``across_channels``, 2..rank-1 without."""
    if reduction_axes:
        return sorted(normalize_axes(reduction_axes, rank, "attribute 'reduction_axes'"))
    return list(builtins.range(1 if across_channels else 2, rank))


@define_op("MVN", 2, inputs=1, attrs=[AttrSpec("eps", "float"), AttrSpec("across_channels", "bool", False),
                                      AttrSpec("normalize_variance", "bool", False),
                                      AttrSpec("reduction_axes", "ints", None)])
def _infer_mvn1(node: Node) -> Infer:
    """Mean (and variance) normalisation over ``reduction_axes`` or the axes ``across_channels`` selects."""
    et = _real(node, 0, "data")
    _non_negative(node, "eps")
    data = node.get_input_partial_shape(0)
    if node.attrs["reduction_axes"] and data.has_rank():
        mvn1_axes(len(data), node.attrs["across_channels"], node.attrs["reduction_axes"])
    return [(et, data)]


def mvn_v1(data: NodeInput, across_channels: bool = False, normalize_variance: bool = False, eps: float = 1e-9,
           reduction_axes: Sequence[int] | None = None, name: str | None = None) -> Node:
    """MVN-1 (``openvino.opset2.mvn``). ``reduction_axes`` (negative counts from the end) wins over
    ``across_channels``, as the spec says. When the data rank is known the builder stores what OpenVINO
    stores: ``reduction_axes`` sorted and non-negative (filled from ``across_channels`` when not given) and
    ``across_channels`` true exactly when axis 1 is reduced."""
    src = as_output(data)
    shape = src.get_partial_shape()
    axes = list(reduction_axes) if reduction_axes else None
    if axes is None and shape.has_rank():
        axes = mvn1_axes(len(shape), across_channels, None)  # may be [], as OpenVINO writes it then
    if axes and shape.has_rank() and all(isinstance(a, int) and -len(shape) <= a < len(shape) for a in axes):
        unique = {a % len(shape) for a in axes}
        if len(unique) == len(axes):  # as OpenVINO's AxisSet stores them; bad axes are left for the op check
            axes, across_channels = sorted(unique), 1 in unique
    attrs = {"eps": eps, "across_channels": across_channels, "normalize_variance": normalize_variance,
             "reduction_axes": axes}
    return make_node("MVN", 2, [src], attrs, name)


@define_op("MVN", 6, inputs=2, attrs=[AttrSpec("eps", "float"), AttrSpec("normalize_variance", "bool"),
                                      AttrSpec("eps_mode", "str", None, EPS_MODES_MVN)])
def _infer_mvn6(node: Node) -> Infer:
    """Mean (and variance) normalisation over the axes input; ``eps`` inside or outside the square root."""
    et = _real(node, 0, "data")
    require(node.attrs["eps_mode"] is not None, "attribute 'eps_mode' is required; allowed: INSIDE_SQRT, "
                                                "OUTSIDE_SQRT.")
    _non_negative(node, "eps")
    data = node.get_input_partial_shape(0)
    _const_axes(node, 1, _rank(data))
    return [(et, data)]


def mvn(data: NodeInput, axes: NodeInput, normalize_variance: bool, eps: float, eps_mode: str,
        name: str | None = None) -> Node:
    """MVN-6 over ``axes`` (a node, or integers made an i64 Constant); ``eps_mode`` inside_sqrt or outside_sqrt."""
    mode = eps_mode.upper() if isinstance(eps_mode, str) else eps_mode
    return make_node("MVN", 6, [as_output(data), index_input(axes, "MVN axes")],
                     {"eps": f32_attr(eps), "normalize_variance": normalize_variance, "eps_mode": mode}, name)


# -- NormalizeL2 -----------------------------------------------------------------------------------------------

@define_op("NormalizeL2", 1, inputs=2, attrs=[AttrSpec("eps", "float"), AttrSpec("eps_mode", "str", None,
                                                                                  ("add", "max"))])
def _infer_normalize_l2(node: Node) -> Infer:
    """``x / sqrt(eps_mode(sum(x**2 over axes), eps))``."""
    et = _real(node, 0, "data")
    require(node.attrs["eps_mode"] is not None, "attribute 'eps_mode' is required; allowed: add, max.")
    _non_negative(node, "eps")
    data = node.get_input_partial_shape(0)
    _const_axes(node, 1, _rank(data))
    return [(et, data)]


def normalize_l2(data: NodeInput, axes: NodeInput, eps: float, eps_mode: str, name: str | None = None) -> Node:
    """NormalizeL2-1 over ``axes``; ``eps_mode`` add or max."""
    mode = eps_mode.lower() if isinstance(eps_mode, str) else eps_mode
    return make_node("NormalizeL2", 1, [as_output(data), index_input(axes, "NormalizeL2 axes")],
                     {"eps": f32_attr(eps), "eps_mode": mode}, name)


# -- BatchNormInference / GroupNormalization -----------------------------------------------------------------

BATCH_NORM_ORDER = {1: ("gamma", "beta", "data", "mean", "variance"), 5: ("data", "gamma", "beta", "mean", "variance")}


def _infer_batch_norm(version: int):  # noqa: ANN202 - inference factory
    names = BATCH_NORM_ORDER[version]

    def infer(node: Node) -> Infer:
        _non_negative(node, "epsilon")
        idx = {n: i for i, n in enumerate(names)}
        et = _real(node, idx["data"], "data")
        for n in ("gamma", "beta", "mean", "variance"):
            t = node.get_input_element_type(idx[n])
            require(t == et, f"{n} (input {idx[n]}) has element type {t}; it must match the data type {et}.")
            shape = node.get_input_partial_shape(idx[n])
            require(not shape.has_rank() or len(shape) == 1, f"{n} (input {idx[n]}) has shape {shape}; it must be 1-D.")
        data = node.get_input_partial_shape(idx["data"])
        require(not data.has_rank() or len(data) >= 2, f"data (input {idx['data']}) has shape {data}; "
                                                       "its rank must be at least 2 (channels are dim 1).")
        vectors = [node.get_input_partial_shape(idx[n]) for n in ("gamma", "beta", "mean", "variance")]
        return [(et, _merge_channel(data, vectors, "gamma/beta/mean/variance"))]

    return infer


for _v in BATCH_NORM_ORDER:
    define_op("BatchNormInference", _v, inputs=5, attrs=[AttrSpec("epsilon", "float")])(_infer_batch_norm(_v))


def batch_norm_inference(data: NodeInput, gamma: NodeInput, beta: NodeInput, mean: NodeInput, variance: NodeInput,
                         epsilon: float, name: str | None = None, *, version: int = 5) -> Node:
    """BatchNormInference-5 (or ``version=1``, whose inputs the builder puts in v1 order: gamma, beta,
    data, mean, variance). ``(data - mean) / sqrt(variance + epsilon) * gamma + beta`` per channel (dim 1)."""
    require(version in BATCH_NORM_ORDER, f"BatchNormInference: version {version} is not defined; allowed: 1, 5.")
    src = as_output(data)
    given = {"data": src, **{k: as_output(v, src.get_element_type()) for k, v in
                             (("gamma", gamma), ("beta", beta), ("mean", mean), ("variance", variance))}}
    inputs = [given[n] for n in BATCH_NORM_ORDER[version]]
    return make_node("BatchNormInference", version, inputs, {"epsilon": epsilon}, name)


@define_op("GroupNormalization", 12, inputs=3, attrs=[AttrSpec("num_groups", "int"), AttrSpec("epsilon", "float")])
def _infer_group_normalization(node: Node) -> Infer:
    """Normalise each group of ``C / num_groups`` channels (with the spatial dims), then scale and bias."""
    et = _real(node, 0, "data")
    groups = node.attrs["num_groups"]
    require(groups > 0, f"attribute 'num_groups'={groups} is not allowed; it must be positive.")
    _non_negative(node, "epsilon")
    for i, n in ((1, "scale"), (2, "bias")):
        t = node.get_input_element_type(i)
        require(t == et, f"{n} (input {i}) has element type {t}; it must match the data type {et}.")
        shape = node.get_input_partial_shape(i)
        require(not shape.has_rank() or len(shape) == 1, f"{n} (input {i}) has shape {shape}; it must be 1-D.")
    data = node.get_input_partial_shape(0)
    require(not data.has_rank() or len(data) >= 2, f"data has shape {data}; its rank must be at least 2.")
    out = _merge_channel(data, [node.get_input_partial_shape(1), node.get_input_partial_shape(2)], "scale/bias")
    if out.has_rank() and out[1].is_static:
        c = out[1].get_length()
        require(c % groups == 0, f"the channel dim {c} of data {data} does not divide into num_groups={groups}.")
    return [(et, out)]


def group_normalization(data: NodeInput, scale: NodeInput, bias: NodeInput, num_groups: int, epsilon: float,
                        name: str | None = None) -> Node:
    """GroupNormalization-12: ``scale`` and ``bias`` are 1-D of the channel count."""
    src = as_output(data)
    et = src.get_element_type()
    return make_node("GroupNormalization", 12, [src, as_output(scale, et), as_output(bias, et)],
                     {"num_groups": num_groups, "epsilon": epsilon}, name)


# -- LRN / GRN -----------------------------------------------------------------------------------------------

@define_op("LRN", 1, inputs=2, attrs=[AttrSpec("alpha", "float"), AttrSpec("beta", "float"),
                                      AttrSpec("bias", "float"), AttrSpec("size", "int")])
def _infer_lrn(node: Node) -> Infer:
    """``x / (bias + alpha / size**len(axes) * sum(x**2 over the window))**beta``."""
    et = _real(node, 0, "data")
    size = node.attrs["size"]
    require(size > 0, f"attribute 'size'={size} is not allowed; it must be positive.")
    data = node.get_input_partial_shape(0)
    _const_axes(node, 1, _rank(data))
    return [(et, data)]


def lrn(data: NodeInput, axes: NodeInput, alpha: float = 1, beta: float = 0.5, bias: float = 1, size: int = 5,
        name: str | None = None) -> Node:
    """LRN-1 over a window of ``size`` along each of ``axes``."""
    return make_node("LRN", 1, [as_output(data), index_input(axes, "LRN axes")],
                     {"alpha": alpha, "beta": beta, "bias": bias, "size": size}, name)


@define_op("GRN", 1, inputs=1, attrs=[AttrSpec("bias", "float")])
def _infer_grn(node: Node) -> Infer:
    """``x / sqrt(sum(x**2 over the channels) + bias)`` on data of rank 2..4."""
    et = _real(node, 0, "data")
    data = node.get_input_partial_shape(0)
    require(not data.has_rank() or 2 <= len(data) <= 4, f"data has shape {data}; its rank must be 2, 3 or 4.")
    return [(et, data)]


def grn(data: NodeInput, bias: float, name: str | None = None) -> Node:
    """GRN-1 (global response normalisation over dim 1)."""
    return make_node("GRN", 1, [as_output(data)], {"bias": f32_attr(bias)}, name)


# -- CumSum --------------------------------------------------------------------------------------------------

@define_op("CumSum", 3, inputs=(1, 2), attrs=[AttrSpec("exclusive", "bool", False), AttrSpec("reverse", "bool", False)])
def _infer_cumsum(node: Node) -> Infer:
    """Cumulative sum along the scalar ``axis`` input (0 when absent)."""
    et = node.get_input_element_type(0)
    require(et != Type.boolean, f"data element type {et} is not allowed; CumSum needs a numeric type.")
    data = node.get_input_partial_shape(0)
    if node.get_input_size() == 2:
        _integer(node, 1, "axis")
        shape = node.get_input_partial_shape(1)
        require(not shape.has_rank() or len(shape) == 0, f"axis (input 1) has shape {shape}; it must be a scalar.")
        value = _const_ints(node, 1)
        if value is not None and data.has_rank():
            require(len(data) >= 1, "data is a scalar; CumSum needs data of rank >= 1.")
            normalize_axis(value[0], len(data), "axis")
    return [(et, data)]


def cumsum(arg: NodeInput, axis: NodeInput | None = None, exclusive: bool = False, reverse: bool = False,
           name: str | None = None) -> Node:
    """CumSum-3 along ``axis`` (a scalar node or integer; 0 when None)."""
    inputs = [as_output(arg)] + ([] if axis is None else [index_input(axis, "CumSum axis")])
    return make_node("CumSum", 3, inputs, {"exclusive": exclusive, "reverse": reverse}, name)


# -- Range ---------------------------------------------------------------------------------------------------

def range_length(start: float, stop: float, step: float) -> int:
    """``max(ceil((stop - start) / step), 0)``; a zero step is a ValidationError."""
    require(step != 0, "step is 0; Range needs a non-zero step.")
    require(all(math.isfinite(v) for v in (start, stop, step)),
            f"start {start}, stop {stop} and step {step} must be finite.")
    span = stop - start
    if isinstance(start, int) and isinstance(stop, int) and isinstance(step, int):
        return max(-(-span // step), 0)  # exact ceil for integers
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
    for i, what in enumerate(("start", "stop", "step")):
        _scalar_like(node, i, what)
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


# -- OneHot --------------------------------------------------------------------------------------------------

def _infer_one_hot(node: Node) -> Infer:
    """``indices`` shape with ``depth`` inserted at ``axis``; output of the on/off value type."""
    t = node.get_input_element_type(0)
    require(t.is_integral_number(), f"indices (input 0) has element type {t}; it must be an integer type.")
    _integer(node, 1, "depth")
    _scalar_like(node, 1, "depth")
    on, off = node.get_input_element_type(2), node.get_input_element_type(3)
    require(on == off, f"on_value and off_value must share one element type; got {on} and {off}.")
    for i, what in ((2, "on_value"), (3, "off_value")):
        _scalar_like(node, i, what)
    indices = node.get_input_partial_shape(0)
    axis = node.attrs["axis"]
    depth_value = _const_ints(node, 1)
    depth = Dimension() if depth_value is None else Dimension(depth_value[0]) if depth_value[0] >= 0 else None
    require(depth is not None, f"depth is {depth_value[0] if depth_value else None}; it must be >= 0.")
    if not indices.has_rank():
        return [(on, PartialShape.dynamic())]
    pos = normalize_axis(axis, len(indices) + 1, "attribute 'axis'")
    dims = list(indices.dims)
    dims.insert(pos, depth)  # type: ignore[arg-type]
    return [(on, PartialShape(dims))]


define_op("OneHot", 1, inputs=4, attrs=[AttrSpec("axis", "int")])(_infer_one_hot)
define_op("OneHot", 16, inputs=4, attrs=[AttrSpec("axis", "int"), AttrSpec(
    "negative_indices_mode", "str", "ignore_negative", NEGATIVE_INDICES_MODES)])(_infer_one_hot)


def one_hot(indices: NodeInput, depth: NodeInput, on_value: NodeInput, off_value: NodeInput, axis: int,
            negative_indices_mode: str | None = None, name: str | None = None, *, version: int = 16) -> Node:
    """OneHot-16 (``negative_indices_mode`` ignore_negative, the default, or normalize); ``version=1``
    gives OneHot-1 (negative indices select nothing). A negative ``axis`` is stored as ``axis + rank + 1``
    when the indices rank is known, as OpenVINO does."""
    require(version in (1, 16), f"OneHot: version {version} is not defined; allowed: 1, 16.")
    on = as_output(on_value, Type.f32 if isinstance(on_value, float) else None)
    inputs = [index_input(indices, "OneHot indices"), index_input(depth, "OneHot depth"), on,
              as_output(off_value, on.get_element_type())]
    shape = inputs[0].get_partial_shape()
    if isinstance(axis, int) and axis < 0 and shape.has_rank() and axis >= -len(shape) - 1:
        axis += len(shape) + 1  # OpenVINO stores the axis non-negative once the indices rank is known
    attrs: dict[str, Any] = {"axis": axis}
    if version == 16:
        attrs["negative_indices_mode"] = (negative_indices_mode or "ignore_negative").lower()
    else:
        require(negative_indices_mode is None, "OneHot-1 has no negative_indices_mode; use version=16.")
    return make_node("OneHot", version, inputs, attrs, name)
