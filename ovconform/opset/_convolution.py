"""Convolution ops (OpenVINO's op-spec folder "convolution"): Convolution-1, GroupConvolution-1,
ConvolutionBackpropData-1, GroupConvolutionBackpropData-1 and DeformableConvolution-1/8.

Data is ``[N, C_IN, spatial...]`` (1 to 3 spatial axes; DeformableConvolution 2). Convolution
filters are ``[C_OUT, C_IN, kernel...]``; GroupConvolution filters are ``[GROUPS, C_OUT/GROUPS,
C_IN/GROUPS, kernel...]``. Output is ``[N, C_OUT, out...]`` with ``out`` as in
:mod:`ovconform.opset._window`. Attribute values are stored in IR spelling
(``auto_pad="explicit"``); pads are kept as given even when ``auto_pad`` computes its own (kernels
use :func:`ovconform.opset._window.resolve_pads`).

Transposed convolution (the BackpropData ops) of data ``[N, C_IN, spatial...]`` with filters
``[C_IN, C_OUT, kernel...]`` (group: ``[G, C_IN/G, C_OUT/G, kernel...]``). Without the optional
``output_shape`` input, each output size is ``(in - 1)·s + (k - 1)·d + 1 - pb - pe + op``
(``op`` the ``output_padding``); pads are zero unless ``auto_pad`` is explicit. With
``output_shape`` the output has exactly those spatial sizes: the full transposed result is cropped
by ``total = (in - 1)·s + (k - 1)·d + 1 + op - out`` elements, ``ceil(total/2)`` of them at the
beginning for same_upper, ``floor(total/2)`` for same_lower, ``pads_begin`` for explicit and 0
for valid (OpenVINO's rule).

DeformableConvolution-1/8: a 2-D grouped convolution whose kernel taps are moved by learned
offsets (and, from version 8, weighted by a mask). Inputs: data [N, C_IN, H, W], offsets [N,
deformable_group * 2 * KH * KW, OH, OW] (per tap a y then an x offset), filters [C_OUT, C_IN /
group, KH, KW], DeformableConvolution-8 an optional mask [N, deformable_group * KH * KW, OH, OW];
all of one floating-point type. Attributes as OpenVINO writes them: ``strides``, ``dilations``,
``pads_begin``, ``pads_end``, ``auto_pad``, ``group``, ``deformable_group``; version 8 adds
``bilinear_interpolation_pad``.

BinaryConvolution-1: a 2-D convolution of binary data [N, C_IN, H, W] (any numeric type holding 0
or 1) with binary filters [C_OUT, C_IN, KH, KW] of element type u1; attributes those of Convolution
plus ``mode`` (only ``xnor-popcount``: 0 stands for -1, 1 for 1) and ``pad_value`` (a float filling
the padding). Output [N, C_OUT, OH, OW] of the data type.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ovconform.ir import AttrSpec, Dimension, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, as_outputs, require, same_type
from ovconform.opset._inputs import _ints, int_vector, map_dim
from ovconform.opset._window import (
    AUTO_PAD,
    check_window_attrs,
    dilated,
    kernel_interval,
    normalize_auto_pad,
    out_dim,
    pads_or_zeros,
    spatial_count,
)

__all__ = [
    "binary_convolution", "convolution", "convolution_backprop_data", "deformable_convolution", "group_convolution",
    "group_convolution_backprop_data",
]

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


BINARY_MODES = ("xnor-popcount",)


@define_op("BinaryConvolution", 1, inputs=2, attrs=[
    *_window_attrs(), AttrSpec("mode", "str", choices=BINARY_MODES), AttrSpec("pad_value", "float")])
def _infer_binary_convolution(node: Node) -> list[tuple[Type, PartialShape]]:
    """Convolution's output shape, for rank-4 data of a numeric type and rank-4 u1 filters."""
    et, kernel_t = node.get_input_element_type(0), node.get_input_element_type(1)
    require(et != Type.boolean and et != Type.string and et != Type.u1,
            f"data (input 0) has element type {et}; BinaryConvolution needs a numeric type holding 0 or 1.")
    require(kernel_t == Type.u1, f"filters (input 1) have element type {kernel_t}; BinaryConvolution needs u1.")
    data, filters = node.get_input_partial_shape(0), node.get_input_partial_shape(1)
    for what, shape in (("data", data), ("filters", filters)):
        require(not shape.has_rank() or len(shape) == 4, f"{what} shape {shape} must have rank 4 (2 spatial dims).")
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


def binary_convolution(data: NodeInput, filters: NodeInput, strides: Sequence[int], pads_begin: Sequence[int],
                       pads_end: Sequence[int], dilations: Sequence[int], mode: str, pad_value: float,
                       auto_pad: str = "EXPLICIT", name: str | None = None) -> Node:
    """BinaryConvolution-1 (as ``openvino.opset1.binary_convolution``): ``filters`` of element type u1,
    ``mode`` ``"xnor-popcount"``; ``pad_value`` fills the padding."""
    attrs = {**_attrs(strides, pads_begin, pads_end, dilations, auto_pad), "mode": mode, "pad_value": float(pad_value)}
    return make_node("BinaryConvolution", 1, as_outputs(data, filters), attrs, name)


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


def _strided(dim: Dimension, stride: int, extra: int) -> Dimension:
    """``(dim - 1) * stride + extra``: a backprop-data output size from an input size."""
    return map_dim(dim, lambda v: (v - 1) * stride + extra)


def _backprop_spatial(node: Node, data: PartialShape, filters: PartialShape, n: int, lead: int) -> list[Dimension]:
    attrs = node.attrs
    op = pads_or_zeros(attrs["output_padding"], n)
    if node.get_input_size() == 3:
        sizes = int_vector(node, 2, "output_shape", n)
        if sizes is None:
            return [Dimension()] * n
        require(len(sizes) == n and bool(np.all(sizes > 0)),
                f"output_shape {sizes.tolist()} must hold {n} positive value(s), one per spatial axis.")
        return [Dimension(int(s)) for s in sizes]
    explicit = attrs["auto_pad"] == "explicit"
    pb = pads_or_zeros(attrs["pads_begin"], n) if explicit else [0] * n
    pe = pads_or_zeros(attrs["pads_end"], n) if explicit else [0] * n
    out = []
    for i in range(n):
        kd = filters[lead + i] if filters.has_rank() else Dimension()
        dim = data[2 + i] if data.has_rank() else Dimension()
        s, d = attrs["strides"][i], attrs["dilations"][i]
        if kd.is_static:
            k = kd.get_length()
            require(k > 0, f"filters shape {filters}: spatial dim {i} is 0.")
            extra = dilated(k, d) - pb[i] - pe[i] + op[i]
            got = _strided(dim, s, extra)
            if got.is_static:
                require(got.get_length() > 0, f"the output size on spatial axis {i} would be {got.get_length()}; "
                                              f"the pads ({pb[i]}, {pe[i]}) crop everything.")
            out.append(got)
        else:
            out.append(Dimension())
    return out


def _backprop_infer(lead: int) -> Callable[[Node], list[tuple[Type, PartialShape]]]:
    """Inference of ConvolutionBackpropData (``lead`` = 2) and its group form (``lead`` = 3)."""

    def infer(node: Node) -> list[tuple[Type, PartialShape]]:
        et = same_type(node, 0, 1)
        require(et != Type.boolean, f"element type {et} is not allowed; the op needs a numeric type.")
        data, filters = node.get_input_partial_shape(0), node.get_input_partial_shape(1)
        if data.has_rank():
            require(len(data) in (3, 4, 5), f"data shape {data} must have rank 3, 4 or 5 ([N, C, 1-3 spatial dims]).")
        if filters.has_rank():
            require(len(filters) - lead in (1, 2, 3), f"filters shape {filters} must have rank {lead + 1} to "
                                                      f"{lead + 3}.")
        if data.has_rank() and filters.has_rank():
            require(len(data) - 2 == len(filters) - lead,
                    f"data shape {data} and filters shape {filters} do not match in rank.")
        n = len(data) - 2 if data.has_rank() else (len(filters) - lead if filters.has_rank() else None)
        if n is None:
            return [(et, PartialShape.dynamic())]
        attrs = node.attrs
        check_window_attrs(n, attrs, ("strides", "dilations", "pads_begin", "pads_end", "output_padding"),
                           may_be_empty=("pads_begin", "pads_end", "output_padding"))
        batch = data[0] if data.has_rank() else Dimension()
        c_out = _channels(data, filters, lead)
        return [(et, PartialShape([batch, c_out, *_backprop_spatial(node, data, filters, n, lead)]))]

    return infer


def _channels(data: PartialShape, filters: PartialShape, lead: int) -> Dimension:
    if not filters.has_rank():
        return Dimension()
    if lead == 2:
        if data.has_rank():
            require(data[1].compatible(filters[0]), f"data channels {data[1]} (shape {data}) differ from the "
                                                    f"filters' input channels {filters[0]} (shape {filters}).")
        return filters[1]
    groups, cin_g, cout_g = filters[0], filters[1], filters[2]
    if data.has_rank() and data[1].is_static and groups.is_static and cin_g.is_static:
        require(data[1].get_length() == groups.get_length() * cin_g.get_length(),
                f"data channels {data[1]} (shape {data}) must equal groups x input channels per group "
                f"{groups} x {cin_g} (filters shape {filters}).")
    return groups * cout_g if groups.is_static and cout_g.is_static else Dimension()


def _backprop_attrs() -> list[AttrSpec]:
    return [AttrSpec("strides", "ints"), AttrSpec("dilations", "ints"), AttrSpec("pads_begin", "ints"),
            AttrSpec("pads_end", "ints"), AttrSpec("auto_pad", "str", "explicit", AUTO_PAD),
            AttrSpec("output_padding", "ints", [])]


define_op("ConvolutionBackpropData", 1, inputs=(2, 3), attrs=_backprop_attrs())(_backprop_infer(2))
_GROUP_ATTRS = [AttrSpec("strides", "ints"), AttrSpec("pads_begin", "ints"), AttrSpec("pads_end", "ints"),
                AttrSpec("dilations", "ints"), AttrSpec("auto_pad", "str", "explicit", AUTO_PAD),
                AttrSpec("output_padding", "ints", [])]
define_op("GroupConvolutionBackpropData", 1, inputs=(2, 3), attrs=_GROUP_ATTRS)(_backprop_infer(3))


def _backprop(op: str, data: NodeInput, filters: NodeInput, strides: Sequence[int], output_shape: NodeInput | None,
              pads_begin: Sequence[int] | None, pads_end: Sequence[int] | None, dilations: Sequence[int] | None,
              auto_pad: str | None, output_padding: Sequence[int] | None, name: str | None) -> Node:
    n = len(strides)
    inputs = as_outputs(data, filters)
    if output_shape is not None:
        inputs.append(_ints(output_shape))
    attrs: dict[str, Any] = {"strides": strides, "dilations": [1] * n if dilations is None else dilations,
                             "pads_begin": [0] * n if pads_begin is None else pads_begin,
                             "pads_end": [0] * n if pads_end is None else pads_end,
                             "auto_pad": normalize_auto_pad(auto_pad),
                             "output_padding": [0] * n if output_padding is None else output_padding}
    return make_node(op, 1, inputs, attrs, name)


def convolution_backprop_data(data: NodeInput, filters: NodeInput, strides: Sequence[int],
                              output_shape: NodeInput | None = None, pads_begin: Sequence[int] | None = None,
                              pads_end: Sequence[int] | None = None, dilations: Sequence[int] | None = None,
                              auto_pad: str | None = None, output_padding: Sequence[int] | None = None,
                              name: str | None = None) -> Node:
    """ConvolutionBackpropData-1 (transposed convolution); arguments in openvino.opset16's order."""
    return _backprop("ConvolutionBackpropData", data, filters, strides, output_shape, pads_begin, pads_end,
                     dilations, auto_pad, output_padding, name)


def group_convolution_backprop_data(data: NodeInput, filters: NodeInput, strides: Sequence[int],
                                    output_shape: NodeInput | None = None, pads_begin: Sequence[int] | None = None,
                                    pads_end: Sequence[int] | None = None, dilations: Sequence[int] | None = None,
                                    auto_pad: str = "EXPLICIT", output_padding: Sequence[int] | None = None,
                                    name: str | None = None) -> Node:
    """GroupConvolutionBackpropData-1; filters ``[G, C_IN/G, C_OUT/G, kernel...]``."""
    return _backprop("GroupConvolutionBackpropData", data, filters, strides, output_shape, pads_begin, pads_end,
                     dilations, auto_pad, output_padding, name)


_ATTRS = [AttrSpec("strides", "ints"), AttrSpec("dilations", "ints"), AttrSpec("pads_begin", "ints"),
          AttrSpec("pads_end", "ints"), AttrSpec("auto_pad", "str", "explicit", AUTO_PAD),
          AttrSpec("group", "int", 1), AttrSpec("deformable_group", "int", 1)]
_NAMES = ("data", "offsets", "filters", "mask")


def _shapes(node: Node) -> list[PartialShape]:
    et = node.get_input_element_type(0)
    require(et.is_real(), f"data (input 0) has element type {et}; it must be floating-point.")
    shapes = []
    for i in range(node.get_input_size()):
        it = node.get_input_element_type(i)
        require(it == et, f"{_NAMES[i]} (input {i}) has element type {it}; it must match the data ({et}).")
        shape = node.get_input_partial_shape(i)
        shape = shape if shape.has_rank() else PartialShape.dynamic(4)
        require(len(shape) == 4, f"{_NAMES[i]} (input {i}) has shape {shape}; it must have rank 4 (2-D only).")
        shapes.append(shape)
    return shapes


def _divides(dim: Dimension, k: int, what: str) -> None:
    require(not dim.is_static or dim.get_length() % k == 0, f"{what} {dim} is not a multiple of {k}.")


def _check_channels(node: Node, shapes: list[PartialShape]) -> None:
    a = node.attrs
    data, offsets, filters = shapes[:3]
    group, dgroup = a["group"], a["deformable_group"]
    require(group > 0 and dgroup > 0, f"group={group} and deformable_group={dgroup} must be positive.")
    _divides(data[1], group, "data channels")
    _divides(data[1], dgroup, "data channels")
    _divides(filters[0], group, "filters output channels")
    if data[1].is_static and filters[1].is_static:
        require(data[1].get_length() == group * filters[1].get_length(),
                f"data channels {data[1]} must equal group ({group}) x filters input channels {filters[1]}.")
    taps = filters[2] * filters[3]
    if taps.is_static:
        for i, per in ((1, 2), (3, 1)):
            if i < len(shapes):
                want = Dimension(dgroup * per * taps.get_length())
                require(shapes[i][1].compatible(want), f"{_NAMES[i]} channels {shapes[i][1]} must be deformable_group "
                                                       f"x {'2 x ' if per == 2 else ''}KH x KW = {want}.")
    for i in (1, 3)[:len(shapes) - 2]:
        require(shapes[i][0].compatible(data[0]), f"{_NAMES[i]} batch {shapes[i][0]} differs from the data's "
                                                  f"{data[0]}.")


def _infer(node: Node) -> list[tuple[Type, PartialShape]]:
    shapes = _shapes(node)
    check_window_attrs(2, node.attrs, ("strides", "dilations", "pads_begin", "pads_end"))
    _check_channels(node, shapes)
    data, offsets, filters = shapes[:3]
    spatial = _spatial(node, data, filters, 2, 0)
    for i in (1, 3)[:len(shapes) - 2]:
        for axis in range(2):
            require(shapes[i][2 + axis].compatible(spatial[axis]),
                    f"{_NAMES[i]} spatial dims {shapes[i]} must equal the output's {spatial}.")
    return [(node.get_input_element_type(0), PartialShape([data[0], filters[0], *spatial]))]


define_op("DeformableConvolution", 1, inputs=3, attrs=_ATTRS)(_infer)
define_op("DeformableConvolution", 8, inputs=(3, 4),
          attrs=[*_ATTRS, AttrSpec("bilinear_interpolation_pad", "bool", False)])(_infer)


def deformable_convolution(data: NodeInput, offsets: NodeInput, filters: NodeInput, strides: Sequence[int],
                           pads_begin: Sequence[int], pads_end: Sequence[int], dilations: Sequence[int],
                           mask: NodeInput | None = None, auto_pad: str = "EXPLICIT", group: int = 1,
                           deformable_group: int = 1, bilinear_interpolation_pad: bool = False,
                           name: str | None = None, *, version: int = 8) -> Node:
    """DeformableConvolution-8 (the arguments of ``openvino.opset8.deformable_convolution``);
    ``version=1`` for DeformableConvolution-1, which has no mask and no bilinear_interpolation_pad."""
    require(version in (1, 8), f"DeformableConvolution: version {version} is not one of (1, 8).")
    attrs = {"strides": strides, "dilations": dilations, "pads_begin": pads_begin, "pads_end": pads_end,
             "auto_pad": normalize_auto_pad(auto_pad), "group": group, "deformable_group": deformable_group}
    inputs = [as_output(data), as_output(offsets), as_output(filters)]
    if version == 1:
        require(mask is None and not bilinear_interpolation_pad,
                "DeformableConvolution-1 has no mask and no bilinear_interpolation_pad (use version 8).")
    else:
        attrs["bilinear_interpolation_pad"] = bilinear_interpolation_pad
        if mask is not None:
            inputs.append(as_output(mask))
    return make_node("DeformableConvolution", version, inputs, attrs, name)
