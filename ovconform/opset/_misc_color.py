"""Colour-conversion builders: NV12toRGB-8, NV12toBGR-8, I420toRGB-8, I420toBGR-8 (no attributes).

Inputs are NHWC of type u8 or floating point. The single-plane form is one ``[N, H*3/2, W, 1]``
tensor; the multi-plane forms are Y ``[N, H, W, 1]`` plus UV ``[N, H/2, W/2, 2]`` (NV12) or U and V
``[N, H/2, W/2, 1]`` each (I420). The image height H and width W must be even. Output
``[N, H, W, 3]`` of the input type.
"""

from __future__ import annotations

from ovconform.ir import Dimension, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, require

__all__ = ["i420_to_bgr", "i420_to_rgb", "nv12_to_bgr", "nv12_to_rgb"]

Infer = list[tuple[Type, PartialShape]]


def _check_type(node: Node) -> Type:
    et = node.get_input_element_type(0)
    require(et == Type.u8 or et.is_real(), f"input 0 has element type {et}; {node.type_name} needs u8 or a "
                                           "floating-point type.")
    for i in range(1, node.get_input_size()):
        other = node.get_input_element_type(i)
        require(other == et, f"input {i} has element type {other}; every plane must have the type of input 0 ({et}).")
    return et


def _plane(node: Node, index: int, channels: int, what: str) -> PartialShape:
    shape = node.get_input_partial_shape(index)
    if not shape.has_rank():
        return PartialShape([Dimension(), Dimension(), Dimension(), channels])
    require(len(shape) == 4, f"{what} (input {index}) has shape {shape}; it must have rank 4 (NHWC).")
    require(shape[3].compatible(channels), f"{what} (input {index}) has shape {shape}; its channel dim must be "
                                           f"{channels}.")
    return shape


def _even(d: Dimension, what: str) -> None:
    require(not d.is_static or d.get_length() % 2 == 0, f"the image {what} {d} must be even.")


def _infer_single(node: Node, et: Type) -> Infer:
    shape = _plane(node, 0, 1, "the single YUV plane")
    height = shape[1]
    if height.is_static:
        rows = height.get_length()
        require(rows % 3 == 0, f"the single YUV plane {shape} has height {rows}; it must be 1.5x the image height "
                               "(a multiple of 3).")
        height = Dimension(rows * 2 // 3)
    else:
        height = Dimension()
    _even(height, "height")
    _even(shape[2], "width")
    return [(et, PartialShape([shape[0], height, shape[2], 3]))]


def _infer_planes(node: Node, et: Type, chroma: list[tuple[int, str]]) -> Infer:
    y = _plane(node, 0, 1, "the Y plane")
    _even(y[1], "height")
    _even(y[2], "width")
    batch, height, width = y[0], y[1], y[2]
    for index, (channels, what) in enumerate(chroma, start=1):
        c = _plane(node, index, channels, what)
        merged = batch.merge(c[0])
        require(merged is not None, f"{what} {c} has batch {c[0]}; the Y plane {y} has batch {batch}.")
        assert merged is not None
        batch = merged
        for dim, full, name in ((c[1], height, "height"), (c[2], width, "width")):
            require(not (dim.is_static and full.is_static) or 2 * dim.get_length() == full.get_length(),
                    f"{what} {c} must have half the {name} of the Y plane {y}.")
        if c[1].is_static and not height.is_static:
            height = Dimension(2 * c[1].get_length())
        if c[2].is_static and not width.is_static:
            width = Dimension(2 * c[2].get_length())
    return [(et, PartialShape([batch, height, width, 3]))]


def _nv12(node: Node) -> Infer:
    et = _check_type(node)
    if node.get_input_size() == 1:
        return _infer_single(node, et)
    return _infer_planes(node, et, [(2, "the UV plane")])


def _i420(node: Node) -> Infer:
    et = _check_type(node)
    if node.get_input_size() == 1:
        return _infer_single(node, et)
    require(node.get_input_size() == 3, f"{node.type_name} takes 1 input (single plane) or 3 (Y, U, V); got "
                                        f"{node.get_input_size()}.")
    return _infer_planes(node, et, [(1, "the U plane"), (1, "the V plane")])


define_op("NV12toRGB", 8, inputs=(1, 2))(_nv12)
define_op("NV12toBGR", 8, inputs=(1, 2))(_nv12)
define_op("I420toRGB", 8, inputs=(1, 3))(_i420)
define_op("I420toBGR", 8, inputs=(1, 3))(_i420)


def nv12_to_rgb(arg: NodeInput, arg_uv: NodeInput | None = None, name: str | None = None) -> Node:
    """NV12toRGB-8 of a single NV12 plane, or of a Y plane ``arg`` and an interleaved UV plane ``arg_uv``."""
    return make_node("NV12toRGB", 8, [as_output(a) for a in (arg, arg_uv) if a is not None], {}, name)


def nv12_to_bgr(arg: NodeInput, arg_uv: NodeInput | None = None, name: str | None = None) -> Node:
    """NV12toBGR-8 (as :func:`nv12_to_rgb`, channels blue, green, red)."""
    return make_node("NV12toBGR", 8, [as_output(a) for a in (arg, arg_uv) if a is not None], {}, name)


def _planes(arg: NodeInput, arg_u: NodeInput | None, arg_v: NodeInput | None, op: str) -> list:
    require((arg_u is None) == (arg_v is None), f"{op}: give both the U and the V plane, or neither (single plane).")
    return [as_output(a) for a in (arg, arg_u, arg_v) if a is not None]


def i420_to_rgb(arg: NodeInput, arg_u: NodeInput | None = None, arg_v: NodeInput | None = None,
                name: str | None = None) -> Node:
    """I420toRGB-8 of a single I420 plane, or of Y, U and V planes."""
    return make_node("I420toRGB", 8, _planes(arg, arg_u, arg_v, "I420toRGB"), {}, name)


def i420_to_bgr(arg: NodeInput, arg_u: NodeInput | None = None, arg_v: NodeInput | None = None,
                name: str | None = None) -> Node:
    """I420toBGR-8 (as :func:`i420_to_rgb`, channels blue, green, red)."""
    return make_node("I420toBGR", 8, _planes(arg, arg_u, arg_v, "I420toBGR"), {}, name)
