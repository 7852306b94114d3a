"""Convolution-1 and GroupConvolution-1 (1D, 2D and 3D spatial; explicit, same_* and valid padding).

Data is ``[N, C_IN, spatial...]``. Convolution filters are ``[C_OUT, C_IN, kernel...]``;
GroupConvolution filters are ``[GROUPS, C_OUT/GROUPS, C_IN/GROUPS, kernel...]``. Output is
``[N, C_OUT, out...]`` with ``out`` as in :mod:`ovconform.opset._window`. Attribute values are
stored in IR spelling (``auto_pad="explicit"``); pads are kept as given even when ``auto_pad``
computes its own (kernels use :func:`ovconform.opset._window.resolve_pads`).
"""

from __future__ import annotations

from collections.abc import Sequence

from ovconform.ir import AttrSpec, Dimension, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_outputs, require, same_type
from ovconform.opset._window import (
    AUTO_PAD,
    check_window_attrs,
    kernel_interval,
    normalize_auto_pad,
    out_dim,
    pads_or_zeros,
    spatial_count,
)

__all__ = ["convolution", "group_convolution"]

_STRIDES = AttrSpec("strides", "ints")
_DILATIONS = AttrSpec("dilations", "ints")
_PADS_BEGIN = AttrSpec("pads_begin", "ints")
_PADS_END = AttrSpec("pads_end", "ints")
_AUTO_PAD = AttrSpec("auto_pad", "str", "explicit", AUTO_PAD)
_WINDOW_ATTRS = ("strides", "dilations", "pads_begin", "pads_end")


def _element_type(node: Node) -> Type:
    et = same_type(node, 0, 1)
    require(et != Type.boolean, f"element type {et} is not allowed; convolution needs a numeric type.")
    return et


def _ranks(node: Node, filters_extra: int) -> tuple[PartialShape, PartialShape, int | None]:
    """Data and filters shapes and the number of spatial axes (None when nothing tells)."""
    data, filters = node.get_input_partial_shape(0), node.get_input_partial_shape(1)
    if data.has_rank():
        require(len(data) in (3, 4, 5), f"data shape {data} must have rank 3, 4 or 5 ([N, C, 1-3 spatial dims]).")
    if filters.has_rank():
        require(len(filters) - filters_extra in (3, 4, 5),
                f"filters shape {filters} must have rank {3 + filters_extra}, {4 + filters_extra} "
                f"or {5 + filters_extra}.")
    if data.has_rank() and filters.has_rank():
        require(len(data) == len(filters) - filters_extra,
                f"data shape {data} and filters shape {filters} do not match in rank "
                f"(filters need rank {len(data) + filters_extra}).")
    rank = len(data) if data.has_rank() else (len(filters) - filters_extra if filters.has_rank() else None)
    attrs = node.attrs
    n = spatial_count(rank, *(len(attrs[a]) for a in _WINDOW_ATTRS))
    if n is not None:
        check_window_attrs(n, attrs, _WINDOW_ATTRS)
    return data, filters, n


def _spatial(node: Node, data: PartialShape, filters: PartialShape, n: int, filters_extra: int) -> list[Dimension]:
    attrs = node.attrs
    pb, pe = pads_or_zeros(attrs["pads_begin"], n), pads_or_zeros(attrs["pads_end"], n)
    out = []
    for i in range(n):
        dim = data[i + 2] if data.has_rank() else Dimension()
        kdim = filters[i + 2 + filters_extra] if filters.has_rank() else Dimension()
        dk_min, dk_max = kernel_interval(kdim, attrs["dilations"][i], i)
        out.append(out_dim(dim, dk_min, dk_max, attrs["strides"][i], (pb[i], pe[i]), attrs["auto_pad"], axis=i))
    return out


def _window_attrs() -> list[AttrSpec]:
    return [_STRIDES, _DILATIONS, _PADS_BEGIN, _PADS_END, _AUTO_PAD]


@define_op("Convolution", 1, inputs=2, attrs=_window_attrs())
def _infer_convolution(node: Node) -> list[tuple[Type, PartialShape]]:
    et = _element_type(node)
    data, filters, n = _ranks(node, 0)
    if n is None:
        return [(et, PartialShape.dynamic())]
    if data.has_rank() and filters.has_rank():
        require(data[1].compatible(filters[1]),
                f"data channels {data[1]} (shape {data}) differ from filters input channels {filters[1]} "
                f"(shape {filters}).")
    batch = data[0] if data.has_rank() else Dimension()
    c_out = filters[0] if filters.has_rank() else Dimension()
    return [(et, PartialShape([batch, c_out, *_spatial(node, data, filters, n, 0)]))]


def _groups(data: PartialShape, filters: PartialShape) -> Dimension:
    """The number of groups, merged from filters[0] and data channels / filters[2]."""
    groups = filters[0]
    cin_g = filters[2]
    if cin_g.is_static:
        require(cin_g.get_length() > 0, f"filters shape {filters}: input channels per group (dim 2) is 0.")
    if not data.has_rank():
        return groups
    channels = data[1]
    if channels.is_static and cin_g.is_static:
        c, k = channels.get_length(), cin_g.get_length()
        require(c % k == 0, f"data channels {c} (shape {data}) are not a multiple of the filters' input "
                            f"channels per group {k} (shape {filters}).")
        from_data: Dimension | None = Dimension(c // k)
    elif cin_g.is_static:
        from_data = _exact_quotient(channels, cin_g.get_length(), data, filters)
    else:
        from_data = None
    if from_data is not None:
        merged = groups.merge(from_data)
        require(merged is not None,
                f"data channels {channels} (shape {data}) need {from_data} group(s) of {cin_g} channels, "
                f"but the filters (shape {filters}) have {groups} group(s).")
        assert merged is not None
        groups = merged
    return groups


def _exact_quotient(channels: Dimension, k: int, data: PartialShape, filters: PartialShape) -> Dimension:
    """The group counts ``g`` with ``g * k`` inside the channel interval."""
    lo = -(-channels.min_length // k)
    if not channels.is_bounded():
        return Dimension(lo, -1)
    hi = channels.max_length // k
    require(lo <= hi, f"data channels {channels} (shape {data}) hold no multiple of the filters' input "
                      f"channels per group {k} (shape {filters}).")
    return Dimension(lo, hi)


@define_op("GroupConvolution", 1, inputs=2, attrs=[_STRIDES, _PADS_BEGIN, _PADS_END, _DILATIONS, _AUTO_PAD])
def _infer_group_convolution(node: Node) -> list[tuple[Type, PartialShape]]:
    et = _element_type(node)
    data, filters, n = _ranks(node, 1)
    if n is None:
        return [(et, PartialShape.dynamic())]
    batch = data[0] if data.has_rank() else Dimension()
    c_out = _groups(data, filters) * filters[1] if filters.has_rank() else Dimension()
    return [(et, PartialShape([batch, c_out, *_spatial(node, data, filters, n, 1)]))]


def _attrs(strides: Sequence[int], pads_begin: Sequence[int], pads_end: Sequence[int],
           dilations: Sequence[int], auto_pad: str | None) -> dict[str, object]:
    return {"strides": strides, "dilations": dilations, "pads_begin": pads_begin, "pads_end": pads_end,
            "auto_pad": normalize_auto_pad(auto_pad)}


def convolution(data: NodeInput, filters: NodeInput, strides: Sequence[int], pads_begin: Sequence[int],
                pads_end: Sequence[int], dilations: Sequence[int], auto_pad: str = "EXPLICIT",
                name: str | None = None) -> Node:
    """Convolution-1; ``auto_pad`` is explicit, same_upper, same_lower or valid (any case)."""
    return make_node("Convolution", 1, as_outputs(data, filters),
                     _attrs(strides, pads_begin, pads_end, dilations, auto_pad), name)


def group_convolution(data: NodeInput, filters: NodeInput, strides: Sequence[int], pads_begin: Sequence[int],
                      pads_end: Sequence[int], dilations: Sequence[int], auto_pad: str = "EXPLICIT",
                      name: str | None = None) -> Node:
    """GroupConvolution-1; filters are ``[GROUPS, C_OUT/GROUPS, C_IN/GROUPS, kernel...]``."""
    return make_node("GroupConvolution", 1, as_outputs(data, filters),
                     _attrs(strides, pads_begin, pads_end, dilations, auto_pad), name)
