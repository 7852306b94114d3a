"""DeformableConvolution-1/8: a 2-D grouped convolution whose kernel taps are moved by learned
offsets (and, from version 8, weighted by a mask).

Inputs: data [N, C_IN, H, W], offsets [N, deformable_group * 2 * KH * KW, OH, OW] (per tap a
y then an x offset), filters [C_OUT, C_IN / group, KH, KW], DeformableConvolution-8 an optional
mask [N, deformable_group * KH * KW, OH, OW]; all of one floating-point type. Output
[N, C_OUT, OH, OW] as for Convolution. Attributes as OpenVINO writes them: ``strides``,
``dilations``, ``pads_begin``, ``pads_end``, ``auto_pad``, ``group``, ``deformable_group``;
version 8 adds ``bilinear_interpolation_pad``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ovconform.ir import AttrSpec, Dimension, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._conv import _spatial
from ovconform.opset._helpers import NodeInput, as_output, require
from ovconform.opset._window import AUTO_PAD, check_window_attrs, normalize_auto_pad

__all__ = ["deformable_convolution"]

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
