"""Image ops (OpenVINO's op-spec folder "image"): Interpolate-1/4/11, GridSample-9 and the colour
conversions NV12toRGB-8, NV12toBGR-8, I420toRGB-8, I420toBGR-8.

* Interpolate-1: ``image`` and ``output_shape`` (1D integer: the sizes of the ``axes`` attribute's
  dims); attributes ``axes``, ``mode`` (nearest, linear, cubic, area), ``align_corners``,
  ``antialias``, ``pads_begin``, ``pads_end``. The output keeps the other dims as they are.
* Interpolate-4: ``image``, ``sizes`` (integer), ``scales`` (floating point) and optional ``axes``
  (integer; default all dims); ``shape_calculation_mode`` picks sizes or scales. Modes nearest,
  linear, linear_onnx, cubic.
* Interpolate-11: ``image``, ``scales_or_sizes`` (integer for sizes, floating point for scales) and
  optional ``axes``; adds the modes bilinear_pillow and bicubic_pillow.

  For versions 4 and 11 every dim is first zero-padded by ``pads_begin``/``pads_end`` (shorter
  lists are extended with zeros); a dim in ``axes`` becomes ``sizes[i]`` or ``floor(scales[i] ·
  padded)``, the others keep their padded size. Axes are unique and in ``[0, rank)``.
* GridSample-9: ``data`` [N, C, H, W] of a numeric type and ``grid`` [N, H_out, W_out, 2] of a
  floating-point type holding normalized (x, y) pairs; attributes ``align_corners`` (false),
  ``mode`` (bilinear, bicubic, nearest) and ``padding_mode`` (zeros, border, reflection). Output
  [N, C, H_out, W_out] of the data type. (The newest spec text also describes 5D volumetric data;
  the opset9 op of OpenVINO 2026.4 rejects it, and so does this builder.)
* Colour conversions (no attributes): inputs are NHWC of type u8 or floating point. The
  single-plane form is one ``[N, H*3/2, W, 1]`` tensor; the multi-plane forms are Y ``[N, H, W, 1]``
  plus UV ``[N, H/2, W/2, 2]`` (NV12) or U and V ``[N, H/2, W/2, 1]`` each (I420). The image height
  H and width W must be even. Output ``[N, H, W, 3]`` of the input type.
* RGBtoNV12-17, BGRtoNV12-17 (opset17; no Python builder in OpenVINO 2026.4, ``NodeFactory("opset17")``
  makes them): an NHWC image ``[N, H, W, 3]`` (H and W even) of u8 or a floating-point type to
  NV12: attribute ``single_plane`` (default true) gives one ``[N, H*3/2, W, 1]`` tensor, false two
  outputs, Y ``[N, H, W, 1]`` and UV ``[N, H/2, W/2, 2]``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ovconform.ir import AttrSpec, Dimension, Node, Output, PartialShape, Type, constant_value, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, require
from ovconform.opset._inputs import Infer, map_dim

__all__ = [
    "grid_sample", "i420_to_bgr", "i420_to_rgb", "interpolate", "interpolate_v1", "interpolate_v4", "nv12_to_bgr",
    "nv12_to_rgb", "rgb_to_nv12", "bgr_to_nv12",
]

MODES_1 = ("nearest", "linear", "cubic", "area")
MODES_4 = ("nearest", "linear", "linear_onnx", "cubic")
MODES_11 = (*MODES_4, "bilinear_pillow", "bicubic_pillow")
SHAPE_MODES = ("sizes", "scales")
COORDINATE_MODES = ("half_pixel", "pytorch_half_pixel", "asymmetric", "tf_half_pixel_for_nn", "align_corners")
NEAREST_MODES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple")


def _attrs_4(modes: tuple[str, ...]) -> list[AttrSpec]:
    return [AttrSpec("mode", "str", choices=modes), AttrSpec("shape_calculation_mode", "str", choices=SHAPE_MODES),
            AttrSpec("coordinate_transformation_mode", "str", "half_pixel", COORDINATE_MODES),
            AttrSpec("nearest_mode", "str", "round_prefer_floor", NEAREST_MODES),
            AttrSpec("antialias", "bool", False), AttrSpec("pads_begin", "ints", [0]),
            AttrSpec("pads_end", "ints", [0]), AttrSpec("cube_coeff", "float", -0.75)]


def _vector(node: Node, port: int, what: str, floating: bool) -> np.ndarray | None:
    et = node.get_input_element_type(port)
    kind = "a floating-point" if floating else "an integer"
    require(et.is_real() if floating else et.is_integral_number(), f"{what} element type {et} is not allowed; "
                                                                   f"it must be {kind} type.")
    shape = node.get_input_partial_shape(port)
    require(not shape.has_rank() or len(shape) == 1, f"{what} shape {shape} is not allowed; it must be 1D.")
    value = constant_value(node.input_value(port))
    return None if value is None else np.asarray(value).reshape(-1)


def _pads(node: Node, rank: int) -> tuple[list[int], list[int]]:
    out = []
    for name in ("pads_begin", "pads_end"):
        pads = list(node.attrs[name])
        require(len(pads) <= rank, f"attribute {name!r}={pads} has more values than the data rank {rank}.")
        require(all(p >= 0 for p in pads), f"attribute {name!r}={pads} must not be negative.")
        out.append(pads + [0] * (rank - len(pads)))
    return out[0], out[1]


def check_axes(axes: list[int], rank: int, count: int | None, what: str) -> list[int]:
    require(len(set(axes)) == len(axes), f"axes {axes} repeat an axis.")
    require(all(0 <= a < rank for a in axes), f"axes {axes} must be in [0, {rank - 1}] for data rank {rank}.")
    if count is not None:
        require(count == len(axes), f"{what} holds {count} value(s) but there are {len(axes)} axes {axes}.")
    return axes


def scaled_size(size: int, scale: float) -> int:
    """``floor(scale · size)`` with the scale as stored (f32), as the spec computes the output size."""
    return int(math.floor(float(np.float32(scale)) * size + 1e-5))


def _shifted(dim: Dimension, by: int) -> Dimension:
    """``dim + by`` (a padded dim)."""
    return map_dim(dim, lambda v: v + by)


def _scaled(dim: Dimension, scale: float) -> Dimension:
    """:func:`scaled_size` of ``dim`` (each bound of an interval)."""
    return map_dim(dim, lambda v: scaled_size(v, scale))


def _infer(node: Node, axes: list[int] | None, shape_mode: str, values: np.ndarray | None,
           padded_others: bool) -> PartialShape:
    data = node.get_input_partial_shape(0)
    if not data.has_rank():
        return PartialShape.dynamic()
    rank = len(data)
    require(rank >= 1, f"data shape {data} must have rank >= 1.")
    pb, pe = _pads(node, rank)
    padded = [_shifted(d, pb[i] + pe[i]) for i, d in enumerate(data.dims)]
    dims = list(padded) if padded_others else list(data.dims)
    if axes is None:
        return PartialShape.dynamic(rank)  # axes unknown at build time: any dim may change
    count = None if values is None else len(values)
    check_axes(axes, rank, count, "sizes" if shape_mode == "sizes" else "scales")
    for i, axis in enumerate(axes):
        if values is None:
            dims[axis] = Dimension()
        elif shape_mode == "sizes":
            require(int(values[i]) >= 0, f"sizes {values.tolist()} must not be negative.")
            dims[axis] = Dimension(int(values[i]))
        else:
            require(float(values[i]) > 0, f"scales {values.tolist()} must be positive.")
            dims[axis] = _scaled(padded[axis], float(values[i]))
    return PartialShape(dims)


def _numeric(node: Node) -> Type:
    et = node.get_input_element_type(0)
    require(et != Type.boolean, f"image element type {et} is not allowed; Interpolate needs a numeric type.")
    return et


def _axes_input(node: Node, port: int) -> list[int] | None:
    """Axes from an optional input (None when unknown at build time); default every dim."""
    if node.get_input_size() > port:
        value = _vector(node, port, "axes", floating=False)
        return None if value is None else [int(a) for a in value]
    data = node.get_input_partial_shape(0)
    return list(range(len(data))) if data.has_rank() else None


# -- definitions ---------------------------------------------------------------------------------------------

@define_op("Interpolate", 1, inputs=2, attrs=[
    AttrSpec("align_corners", "bool", True), AttrSpec("antialias", "bool", False), AttrSpec("axes", "ints"),
    AttrSpec("mode", "str", choices=MODES_1), AttrSpec("pads_begin", "ints", []), AttrSpec("pads_end", "ints", [])])
def _infer_interpolate_1(node: Node) -> list[tuple[Type, PartialShape]]:
    et = _numeric(node)
    sizes = _vector(node, 1, "output_shape", floating=False)
    return [(et, _infer(node, list(node.attrs["axes"]), "sizes", sizes, padded_others=False))]


@define_op("Interpolate", 4, inputs=(3, 4), attrs=_attrs_4(MODES_4))
def _infer_interpolate_4(node: Node) -> list[tuple[Type, PartialShape]]:
    et = _numeric(node)
    sizes = _vector(node, 1, "sizes", floating=False)
    scales = _vector(node, 2, "scales", floating=True)
    mode = node.attrs["shape_calculation_mode"]
    values = sizes if mode == "sizes" else scales
    return [(et, _infer(node, _axes_input(node, 3), mode, values, padded_others=True))]


@define_op("Interpolate", 11, inputs=(2, 3), attrs=_attrs_4(MODES_11))
def _infer_interpolate_11(node: Node) -> list[tuple[Type, PartialShape]]:
    et = _numeric(node)
    mode = node.attrs["shape_calculation_mode"]
    values = _vector(node, 1, "scales_or_sizes (shape_calculation_mode=" + mode + ")", floating=mode == "scales")
    return [(et, _infer(node, _axes_input(node, 2), mode, values, padded_others=True))]


# -- builders ------------------------------------------------------------------------------------------------

def _ints(value: NodeInput) -> Output:
    if isinstance(value, (Node, Output)):
        return as_output(value)
    return as_output(np.asarray(value, np.int64))


def _floats(value: NodeInput) -> Output:
    if isinstance(value, (Node, Output)):
        return as_output(value)
    return as_output(np.asarray(value, np.float32))


def _v4_attrs(mode: str, shape_calculation_mode: str, pads_begin: Any, pads_end: Any,
              coordinate_transformation_mode: str, nearest_mode: str, antialias: bool,
              cube_coeff: float) -> dict[str, Any]:
    return {"mode": mode, "shape_calculation_mode": shape_calculation_mode,
            "coordinate_transformation_mode": coordinate_transformation_mode, "nearest_mode": nearest_mode,
            "antialias": antialias, "pads_begin": [0] if pads_begin is None else pads_begin,
            "pads_end": [0] if pads_end is None else pads_end, "cube_coeff": cube_coeff}


def interpolate(image: NodeInput, scales_or_sizes: NodeInput, mode: str, shape_calculation_mode: str,
                pads_begin: list[int] | None = None, pads_end: list[int] | None = None,
                coordinate_transformation_mode: str = "half_pixel", nearest_mode: str = "round_prefer_floor",
                antialias: bool = False, cube_coeff: float = -0.75, axes: NodeInput | None = None,
                name: str | None = None) -> Node:
    """Interpolate-11 (openvino.opset16's ``interpolate``); literal sizes become i64, scales f32."""
    values = _ints(scales_or_sizes) if shape_calculation_mode == "sizes" else _floats(scales_or_sizes)
    inputs = [as_output(image), values] + ([] if axes is None else [_ints(axes)])
    attrs = _v4_attrs(mode, shape_calculation_mode, pads_begin, pads_end, coordinate_transformation_mode,
                      nearest_mode, antialias, cube_coeff)
    return make_node("Interpolate", 11, inputs, attrs, name)


def interpolate_v4(image: NodeInput, output_shape: NodeInput, scales: NodeInput, mode: str,
                   shape_calculation_mode: str, pads_begin: list[int] | None = None,
                   pads_end: list[int] | None = None, coordinate_transformation_mode: str = "half_pixel",
                   nearest_mode: str = "round_prefer_floor", antialias: bool = False, cube_coeff: float = -0.75,
                   axes: NodeInput | None = None, name: str | None = None) -> Node:
    """Interpolate-4 (openvino.opset10's ``interpolate``): both sizes and scales are inputs."""
    inputs = [as_output(image), _ints(output_shape), _floats(scales)] + ([] if axes is None else [_ints(axes)])
    attrs = _v4_attrs(mode, shape_calculation_mode, pads_begin, pads_end, coordinate_transformation_mode,
                      nearest_mode, antialias, cube_coeff)
    return make_node("Interpolate", 4, inputs, attrs, name)


def interpolate_v1(image: NodeInput, output_shape: NodeInput, attrs: dict[str, Any], name: str | None = None) -> Node:
    """Interpolate-1 (openvino.opset1's ``interpolate``): ``attrs`` holds axes, mode and optionally
    align_corners, antialias, pads_begin, pads_end."""
    return make_node("Interpolate", 1, [as_output(image), _ints(output_shape)], dict(attrs), name)


MODES = ("bilinear", "bicubic", "nearest")
PADDING = ("zeros", "border", "reflection")


@define_op("GridSample", 9, inputs=2, attrs=[
    AttrSpec("align_corners", "bool", False), AttrSpec("mode", "str", "bilinear", MODES),
    AttrSpec("padding_mode", "str", "zeros", PADDING)])
def _infer_grid_sample(node: Node) -> list[tuple[Type, PartialShape]]:
    et = node.get_input_element_type(0)
    require(et != Type.boolean, "data (input 0) has element type boolean; GridSample needs a numeric type.")
    gt = node.get_input_element_type(1)
    require(gt.is_real(), f"grid (input 1) has element type {gt}; it must be a floating-point type.")
    data, grid = node.get_input_partial_shape(0), node.get_input_partial_shape(1)
    data = data if data.has_rank() else PartialShape.dynamic(4)
    grid = grid if grid.has_rank() else PartialShape.dynamic(4)
    require(len(data) == 4, f"data (input 0) has shape {data}; it must be NCHW (rank 4).")
    require(len(grid) == 4, f"grid (input 1) has shape {grid}; it must be [N, H_out, W_out, 2].")
    require(grid[3].compatible(2), f"grid (input 1) has shape {grid}; its last dim must be 2 (x, y).")
    batch = data[0].merge(grid[0])
    require(batch is not None, f"data {data} and grid {grid} must have the same batch size.")
    assert batch is not None
    return [(et, PartialShape([batch, data[1], grid[1], grid[2]]))]


def grid_sample(data: NodeInput, grid: NodeInput, attributes: dict[str, Any] | None = None,
                name: str | None = None) -> Node:
    """GridSample-9 (``attributes`` as ``openvino.opset9.grid_sample`` takes them: align_corners, mode,
    padding_mode; missing ones take their defaults)."""
    attrs = dict(attributes or {})
    unknown = sorted(set(attrs) - {"align_corners", "mode", "padding_mode"})
    require(not unknown, f"GridSample: unknown attribute(s) {unknown}; allowed: align_corners, mode, padding_mode.")
    return make_node("GridSample", 9, [as_output(data), as_output(grid)], attrs, name)


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


def _planes(arg: NodeInput, arg_u: NodeInput | None, arg_v: NodeInput | None, op: str) -> list[Output]:
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


# -- RGB/BGR -> NV12 (opset17) -----------------------------------------------------------------------------------

def _to_nv12(node: Node) -> Infer:
    """One NV12 plane ``[N, H*3/2, W, 1]`` or (``single_plane`` false) Y ``[N, H, W, 1]`` and UV
    ``[N, H/2, W/2, 2]`` of an NHWC image ``[N, H, W, 3]`` with even H and W."""
    et = _check_type(node)
    image = _plane(node, 0, 3, "the image")
    batch, height, width = image[0], image[1], image[2]
    _even(height, "height")
    _even(width, "width")
    if node.attrs["single_plane"]:
        return [(et, PartialShape([batch, map_dim(height, lambda h: h * 3 // 2), width, 1]))]
    half = (map_dim(height, lambda h: h // 2), map_dim(width, lambda w: w // 2))
    return [(et, PartialShape([batch, height, width, 1])), (et, PartialShape([batch, *half, 2]))]


_SINGLE_PLANE = [AttrSpec("single_plane", "bool", True)]
define_op("RGBtoNV12", 17, inputs=1, attrs=_SINGLE_PLANE)(_to_nv12)
define_op("BGRtoNV12", 17, inputs=1, attrs=_SINGLE_PLANE)(_to_nv12)


def rgb_to_nv12(arg: NodeInput, single_plane: bool = True, name: str | None = None) -> Node:
    """RGBtoNV12-17 of an NHWC RGB image: one NV12 plane, or (``single_plane=False``) Y and UV planes."""
    return make_node("RGBtoNV12", 17, [as_output(arg)], {"single_plane": single_plane}, name)


def bgr_to_nv12(arg: NodeInput, single_plane: bool = True, name: str | None = None) -> Node:
    """BGRtoNV12-17 (as :func:`rgb_to_nv12`, the image's channels blue, green, red)."""
    return make_node("BGRtoNV12", 17, [as_output(arg)], {"single_plane": single_plane}, name)
