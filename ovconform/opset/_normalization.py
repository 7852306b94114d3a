"""Normalization ops (OpenVINO's op-spec folder "normalization"): MVN-2/6, NormalizeL2-1,
BatchNormInference-1/5, GroupNormalization-12, LRN-1 and GRN-1.

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
  GRN-1 ``bias``.

BatchNormInference-1 takes ``gamma, beta, data, mean, variance``; version 5 takes ``data, gamma,
beta, mean, variance``. The builder takes the version-5 order for both and places the inputs.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ovconform.ir import AttrSpec, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, normalize_axes, require
from ovconform.opset._inputs import Infer, InferFn, _const_ints, _integer, _merge, _rank_at_most, index_input

__all__ = ["batch_norm_inference", "grn", "group_normalization", "lrn", "mvn", "mvn_v1", "normalize_l2"]

EPS_MODES_MVN = ("INSIDE_SQRT", "OUTSIDE_SQRT", "inside_sqrt", "outside_sqrt")


def _real(node: Node, index: int, what: str) -> Type:
    et = node.get_input_element_type(index)
    require(et.is_real(), f"{what} (input {index}) has element type {et}; it must be a floating-point type.")
    return et


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
            dims[1] = _merge(dims[1], v[0], f"{channel_what} has shape {v}; its length must equal the channel dim "
                                            f"(dim 1) of the data {data}.")
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


def _infer_batch_norm(version: int) -> InferFn:
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
