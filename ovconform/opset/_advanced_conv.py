"""ConvolutionBackpropData-1, GroupConvolutionBackpropData-1 and Col2Im-15 (part of the "advanced" family).

Transposed convolution of data ``[N, C_IN, spatial...]`` (1 to 3 spatial axes) with filters
``[C_IN, C_OUT, kernel...]`` (group: ``[G, C_IN/G, C_OUT/G, kernel...]``). Without the optional
``output_shape`` input, each output size is ``(in - 1)·s + (k - 1)·d + 1 - pb - pe + op``
(``op`` the ``output_padding``); pads are zero unless ``auto_pad`` is explicit. With
``output_shape`` the output has exactly those spatial sizes: the full transposed result is cropped
by ``total = (in - 1)·s + (k - 1)·d + 1 + op - out`` elements, ``ceil(total/2)`` of them at the
beginning for same_upper, ``floor(total/2)`` for same_lower, ``pads_begin`` for explicit and 0
for valid (OpenVINO's rule).

Col2Im-15 sums sliding-window columns ``[N, C·kh·kw, L]`` (or ``[C·kh·kw, L]``) back into images
``[N, C, H, W]`` of ``output_size``, with strides, dilations and pads as in a 2D convolution.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ovconform.ir import AttrSpec, Dimension, Node, Output, PartialShape, Type, constant_value, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, as_outputs, require, same_type
from ovconform.opset._window import AUTO_PAD, check_window_attrs, dilated, normalize_auto_pad, pads_or_zeros

__all__ = ["col2im", "convolution_backprop_data", "group_convolution_backprop_data"]

_INT_TYPES = (Type.i32, Type.i64)


def map_dim(dim: Dimension, f: Callable[[int], int]) -> Dimension:
    """``f`` (increasing) applied to a dimension interval."""
    if dim.is_static:
        return Dimension(f(dim.get_length()))
    hi = f(dim.max_length) if dim.is_bounded() else -1
    return Dimension(max(0, f(dim.min_length)), hi)


def int_vector(node: Node, port: int, what: str, length: int | None) -> np.ndarray | None:
    """Check input ``port`` is a 1D i32/i64 tensor (of ``length`` values when known); its value
    when known at build time, else None."""
    et = node.get_input_element_type(port)
    require(et in _INT_TYPES, f"{what} element type {et} is not allowed; allowed: i32, i64.")
    shape = node.get_input_partial_shape(port)
    if shape.has_rank():
        require(len(shape) == 1, f"{what} shape {shape} is not allowed; it must be 1D.")
        if length is not None:
            require(shape[0].compatible(length), f"{what} shape {shape} must hold {length} value(s).")
    value = constant_value(node.input_value(port))
    return None if value is None else np.asarray(value).reshape(-1).astype(np.int64)


def _ints(value: NodeInput) -> Output:
    """A node input as is; literal integers as an i64 Constant."""
    return as_output(value) if isinstance(value, (Node, Output)) else as_output(np.asarray(value, np.int64))


# -- (Group)ConvolutionBackpropData ---------------------------------------------------------------------------

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
            got = map_dim(dim, lambda v, s=s, extra=extra: (v - 1) * s + extra)
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


# -- Col2Im ----------------------------------------------------------------------------------------------------

def col2im_blocks(size: Sequence[int], kernel: Sequence[int], attrs: dict[str, Any]) -> list[int]:
    """Number of sliding blocks per spatial axis (each must be positive)."""
    out = []
    for i in range(2):
        span = size[i] + attrs["pads_begin"][i] + attrs["pads_end"][i] - dilated(kernel[i], attrs["dilations"][i])
        require(span >= 0, f"output_size {list(size)} with pads and kernel {list(kernel)} (dilations "
                           f"{attrs['dilations']}) hold no block on axis {i}.")
        out.append(span // attrs["strides"][i] + 1)
    return out


@define_op("Col2Im", 15, inputs=3, attrs=[AttrSpec("strides", "ints", [1, 1]), AttrSpec("dilations", "ints", [1, 1]),
                                          AttrSpec("pads_begin", "ints", [0, 0]), AttrSpec("pads_end", "ints", [0, 0])])
def _infer_col2im(node: Node) -> list[tuple[Type, PartialShape]]:
    et = node.get_input_element_type(0)
    require(et != Type.boolean, f"data element type {et} is not allowed; Col2Im needs a numeric type.")
    check_window_attrs(2, node.attrs, ("strides", "dilations", "pads_begin", "pads_end"), may_be_empty=())
    data = node.get_input_partial_shape(0)
    size = int_vector(node, 1, "output_size", 2)
    kernel = int_vector(node, 2, "kernel_size", 2)
    for v, what in ((size, "output_size"), (kernel, "kernel_size")):
        require(v is None or (len(v) == 2 and bool(np.all(v > 0))), f"{what} {v} must hold 2 positive values.")
    if not data.has_rank():
        return [(et, PartialShape.dynamic())]
    require(len(data) in (2, 3), f"data shape {data} must have rank 2 ([C·kh·kw, L]) or 3 ([N, C·kh·kw, L]).")
    channels = Dimension()
    if kernel is not None:
        volume = math.prod(int(k) for k in kernel)
        cols = data[-2]
        if cols.is_static:
            require(cols.get_length() % volume == 0, f"data shape {data}: dim -2 ({cols}) is not a multiple of the "
                                                     f"kernel volume {volume} (kernel_size {kernel.tolist()}).")
            channels = Dimension(cols.get_length() // volume)
        if size is not None:
            blocks = math.prod(col2im_blocks(size.tolist(), kernel.tolist(), node.attrs))
            require(data[-1].compatible(blocks), f"data shape {data}: dim -1 must be the number of blocks {blocks} "
                                                 f"for output_size {size.tolist()} and kernel_size {kernel.tolist()}.")
    spatial = [Dimension(int(s)) for s in size] if size is not None else [Dimension(), Dimension()]
    lead = [data[0]] if len(data) == 3 else []
    return [(et, PartialShape([*lead, channels, *spatial]))]


def col2im(data: NodeInput, output_size: NodeInput, kernel_size: NodeInput, strides: Sequence[int] | None = None,
           dilations: Sequence[int] | None = None, pads_begin: Sequence[int] | None = None,
           pads_end: Sequence[int] | None = None, name: str | None = None) -> Node:
    """Col2Im-15 (literal sizes become i64 Constants)."""
    attrs = {"strides": strides or [1, 1], "dilations": dilations or [1, 1], "pads_begin": pads_begin or [0, 0],
             "pads_end": pads_end or [0, 0]}
    return make_node("Col2Im", 15, [as_output(data), _ints(output_size), _ints(kernel_size)], attrs, name)
