"""Pooling ops (OpenVINO's op-spec folder "pooling"): MaxPool-1/8/14, AvgPool-1/14/16,
AdaptiveAvgPool-8 and AdaptiveMaxPool-8 (every version in opset1..opset16).

MaxPool and AvgPool: data is ``[N, C, spatial...]`` with 1 to 3 spatial axes; ``kernel`` has one
value per spatial axis. MaxPool-8/14 have a second output: the indices of the selected values
(flattened from dimension ``axis`` on) of type ``index_element_type``. ``rounding_type`` may be
``ceil_torch`` from version 14; AvgPool-16 adds ``dilations`` (empty = all ones). AvgPool's
attribute is spelled ``exclude-pad`` (with a hyphen), as in IR. Output sizes follow
:mod:`ovconform.opset._window`.

AdaptiveAvgPool-8 / AdaptiveMaxPool-8: floating-point data ``[N, C, spatial...]`` (rank 3 to 5)
and an ``output_shape`` input (1D i32/i64 with one positive value per spatial axis); bin ``i`` of
an axis of size ``H`` split into ``O`` covers ``[floor(i·H/O), ceil((i+1)·H/O))``. AdaptiveMaxPool
has a second output, the index of each maximum within the flattened spatial dims of its channel,
of type ``index_element_type`` (i32/i64).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ovconform.ir import AttrSpec, Dimension, Node, Output, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, normalize_axis, require
from ovconform.opset._inputs import INDEX_TYPES, int_vector
from ovconform.opset._window import (
    AUTO_PAD,
    ROUNDING,
    ROUNDING_14,
    check_window_attrs,
    dilated,
    normalize_auto_pad,
    normalize_rounding,
    out_dim,
    pads_or_zeros,
)

__all__ = ["adaptive_avg_pool", "adaptive_max_pool", "avg_pool", "max_pool"]

_STRIDES = AttrSpec("strides", "ints")
_DILATIONS = AttrSpec("dilations", "ints", [])  # empty: all ones
_PADS_BEGIN = AttrSpec("pads_begin", "ints")
_PADS_END = AttrSpec("pads_end", "ints")
_KERNEL = AttrSpec("kernel", "ints")
_ROUNDING = AttrSpec("rounding_type", "str", "floor", ROUNDING)
_ROUNDING_14 = AttrSpec("rounding_type", "str", "floor", ROUNDING_14)
_AUTO_PAD = AttrSpec("auto_pad", "str", "explicit", AUTO_PAD)
_INDEX_TYPE = AttrSpec("index_element_type", "type", Type.i64, (Type.i32, Type.i64))
_AXIS = AttrSpec("axis", "int", 0)
_EXCLUDE_PAD = AttrSpec("exclude-pad", "bool")


def _pool_shape(node: Node) -> PartialShape:
    """Output shape of any pooling version: validates attributes against the data shape."""
    attrs = node.attrs
    data = node.get_input_partial_shape(0)
    n = len(attrs["kernel"])
    if data.has_rank():
        require(len(data) in (3, 4, 5), f"data shape {data} must have rank 3, 4 or 5 ([N, C, 1-3 spatial dims]).")
        require(n == len(data) - 2, f"attribute 'kernel'={attrs['kernel']} must have {len(data) - 2} value(s), "
                                    f"one per spatial axis of data shape {data}.")
    else:
        require(n in (1, 2, 3), f"attribute 'kernel'={attrs['kernel']} must have 1, 2 or 3 values.")
    names = [a for a in ("kernel", "strides", "dilations", "pads_begin", "pads_end") if a in attrs]
    check_window_attrs(n, attrs, names, may_be_empty=("pads_begin", "pads_end", "dilations"))
    if not data.has_rank():
        return PartialShape.dynamic(n + 2)
    for i, what in ((0, "batch"), (1, "channel")):
        require(not data[i] == 0, f"data shape {data} has a {what} dimension of 0.")
    return PartialShape([data[0], data[1], *_spatial(node, data, n)])


def _spatial(node: Node, data: PartialShape, n: int) -> list[Dimension]:
    attrs = node.attrs
    dil = attrs.get("dilations") or [1] * n
    pb, pe = pads_or_zeros(attrs["pads_begin"], n), pads_or_zeros(attrs["pads_end"], n)
    out = []
    for i in range(n):
        dk = dilated(attrs["kernel"][i], dil[i])
        out.append(out_dim(data[i + 2], dk, dk, attrs["strides"][i], (pb[i], pe[i]), attrs["auto_pad"],
                           attrs["rounding_type"], axis=i))
    return out


def _numeric(node: Node) -> Type:
    et = node.get_input_element_type(0)
    require(et != Type.boolean, f"element type {et} is not allowed; pooling needs a numeric type.")
    return et


def _infer_max_pool_1(node: Node) -> list[tuple[Type, PartialShape]]:
    return [(_numeric(node), _pool_shape(node))]


def _infer_max_pool_8(node: Node) -> list[tuple[Type, PartialShape]]:
    et = _numeric(node)
    shape = _pool_shape(node)
    data = node.get_input_partial_shape(0)
    if data.has_rank():
        normalize_axis(node.attrs["axis"], len(data), "attribute 'axis'")
    return [(et, shape), (node.attrs["index_element_type"], shape)]


def _infer_avg_pool(node: Node) -> list[tuple[Type, PartialShape]]:
    et = _numeric(node)
    shape = _pool_shape(node)
    attrs = node.attrs
    if attrs["exclude-pad"] and attrs["auto_pad"] == "explicit":
        n = len(attrs["kernel"])
        dil = attrs.get("dilations") or [1] * n
        pb, pe = pads_or_zeros(attrs["pads_begin"], n), pads_or_zeros(attrs["pads_end"], n)
        for i in range(n):
            dk = dilated(attrs["kernel"][i], dil[i])
            require(pb[i] < dk and pe[i] < dk,
                    f"with exclude-pad=true a window may lie entirely in the padding: spatial axis {i} has "
                    f"dilated kernel {dk} and pads ({pb[i]}, {pe[i]}); pads must be smaller than the kernel.")
    return [(et, shape)]


define_op("MaxPool", 1, inputs=1,
          attrs=[_STRIDES, _PADS_BEGIN, _PADS_END, _KERNEL, _ROUNDING, _AUTO_PAD])(_infer_max_pool_1)
define_op("MaxPool", 8, inputs=1,
          attrs=[_STRIDES, _DILATIONS, _PADS_BEGIN, _PADS_END, _KERNEL, _ROUNDING, _AUTO_PAD, _INDEX_TYPE,
                 _AXIS])(_infer_max_pool_8)
define_op("MaxPool", 14, inputs=1,
          attrs=[_STRIDES, _DILATIONS, _PADS_BEGIN, _PADS_END, _KERNEL, _ROUNDING_14, _AUTO_PAD, _INDEX_TYPE,
                 _AXIS])(_infer_max_pool_8)
define_op("AvgPool", 1, inputs=1,
          attrs=[_KERNEL, _STRIDES, _PADS_BEGIN, _PADS_END, _EXCLUDE_PAD, _AUTO_PAD, _ROUNDING])(_infer_avg_pool)
define_op("AvgPool", 14, inputs=1,
          attrs=[_KERNEL, _STRIDES, _PADS_BEGIN, _PADS_END, _EXCLUDE_PAD, _AUTO_PAD, _ROUNDING_14])(_infer_avg_pool)
define_op("AvgPool", 16, inputs=1,
          attrs=[_KERNEL, _STRIDES, _PADS_BEGIN, _PADS_END, _EXCLUDE_PAD, _AUTO_PAD, _ROUNDING_14,
                 _DILATIONS])(_infer_avg_pool)

def max_pool(data: NodeInput, strides: Sequence[int], dilations: Sequence[int], pads_begin: Sequence[int],
             pads_end: Sequence[int], kernel_shape: Sequence[int], rounding_type: str = "floor",
             auto_pad: str | None = None, index_element_type: Any = "i64", axis: int | None = 0,
             name: str | None = None, *, version: int = 14) -> Node:
    """MaxPool-14 (``version=8`` or ``1`` for the older ones; v1 has no dilations, indices or axis)."""
    attrs: dict[str, Any] = {"strides": strides, "pads_begin": pads_begin, "pads_end": pads_end,
                             "kernel": kernel_shape, "rounding_type": normalize_rounding(rounding_type),
                             "auto_pad": normalize_auto_pad(auto_pad)}
    if version == 1:
        require(all(d == 1 for d in dilations),
                f"MaxPool-1 has no dilations; got dilations={list(dilations)} (use version 8 or 14).")
    else:
        attrs.update(dilations=dilations, index_element_type=index_element_type, axis=0 if axis is None else axis)
    return make_node("MaxPool", version, [as_output(data)], attrs, name)


def avg_pool(data_batch: NodeInput, strides: Sequence[int], pads_begin: Sequence[int], pads_end: Sequence[int],
             kernel_shape: Sequence[int], exclude_pad: bool, rounding_type: str = "floor",
             auto_pad: str | None = None, dilations: Sequence[int] | None = None, name: str | None = None,
             *, version: int = 16) -> Node:
    """AvgPool-16 (``version=14`` or ``1`` for the older ones, which have no dilations).

    Without ``dilations`` AvgPool-16 stores ones (the meaning of OpenVINO's empty default)."""
    attrs: dict[str, Any] = {"kernel": kernel_shape, "strides": strides, "pads_begin": pads_begin,
                             "pads_end": pads_end, "exclude-pad": exclude_pad,
                             "auto_pad": normalize_auto_pad(auto_pad),
                             "rounding_type": normalize_rounding(rounding_type)}
    if version == 16:  # ones, not OpenVINO's empty default: OpenVINO CPU crashes on an empty list
        attrs["dilations"] = [1] * len(kernel_shape) if dilations is None else dilations
    elif dilations is not None:
        require(all(d == 1 for d in dilations),
                f"AvgPool-{version} has no dilations; got dilations={list(dilations)} (use version 16).")
    return make_node("AvgPool", version, [as_output(data_batch)], attrs, name)


def _adaptive_shape(node: Node) -> tuple[Type, PartialShape]:
    et = node.get_input_element_type(0)
    require(et.is_real(), f"data element type {et} is not allowed; adaptive pooling needs a floating-point type.")
    data = node.get_input_partial_shape(0)
    if data.has_rank():
        require(len(data) in (3, 4, 5), f"data shape {data} must have rank 3, 4 or 5 ([N, C, 1-3 spatial dims]).")
    n = len(data) - 2 if data.has_rank() else None
    sizes = int_vector(node, 1, "output_shape", n)
    if sizes is not None:
        require(n is None or len(sizes) == n, f"output_shape {sizes.tolist()} must have {n} value(s), one per "
                                              f"spatial axis of data shape {data}.")
        require(bool(np.all(sizes > 0)), f"output_shape {sizes.tolist()} must be positive.")
    if not data.has_rank():
        return et, PartialShape.dynamic()
    assert n is not None
    spatial = [Dimension(int(s)) for s in sizes] if sizes is not None else [Dimension()] * n
    return et, PartialShape([data[0], data[1], *spatial])


@define_op("AdaptiveAvgPool", 8, inputs=2)
def _infer_adaptive_avg_pool(node: Node) -> list[tuple[Type, PartialShape]]:
    return [_adaptive_shape(node)]


@define_op("AdaptiveMaxPool", 8, inputs=2, attrs=[AttrSpec("index_element_type", "type", Type.i64, INDEX_TYPES)])
def _infer_adaptive_max_pool(node: Node) -> list[tuple[Type, PartialShape]]:
    et, shape = _adaptive_shape(node)
    return [(et, shape), (node.attrs["index_element_type"], shape)]


def _sizes(value: NodeInput) -> Output:
    """A node input as is; literal sizes as an i64 Constant."""
    return as_output(value) if isinstance(value, (Node, Output)) else as_output(np.asarray(value, np.int64))


def adaptive_avg_pool(data: NodeInput, output_shape: NodeInput, name: str | None = None) -> Node:
    """AdaptiveAvgPool-8: the average of each adaptive bin (literals become an i64 Constant)."""
    return make_node("AdaptiveAvgPool", 8, [as_output(data), _sizes(output_shape)], {}, name)


def adaptive_max_pool(data: NodeInput, output_shape: NodeInput, index_element_type: Any = "i64",
                      name: str | None = None) -> Node:
    """AdaptiveMaxPool-8: the maximum of each adaptive bin and its spatial index."""
    return make_node("AdaptiveMaxPool", 8, [as_output(data), _sizes(output_shape)],
                     {"index_element_type": index_element_type}, name)
