"""Interpolate-1, Interpolate-4 and Interpolate-11 (part of the "advanced" family).

* Interpolate-1: ``image`` and ``output_shape`` (1D integer: the sizes of the ``axes`` attribute's
  dims); attributes ``axes``, ``mode`` (nearest, linear, cubic, area), ``align_corners``,
  ``antialias``, ``pads_begin``, ``pads_end``. The output keeps the other dims as they are.
* Interpolate-4: ``image``, ``sizes`` (integer), ``scales`` (floating point) and optional ``axes``
  (integer; default all dims); ``shape_calculation_mode`` picks sizes or scales. Modes nearest,
  linear, linear_onnx, cubic.
* Interpolate-11: ``image``, ``scales_or_sizes`` (integer for sizes, floating point for scales) and
  optional ``axes``; adds the modes bilinear_pillow and bicubic_pillow.

For versions 4 and 11 every dim is first zero-padded by ``pads_begin``/``pads_end`` (shorter lists
are extended with zeros); a dim in ``axes`` becomes ``sizes[i]`` or ``floor(scales[i] · padded)``,
the others keep their padded size. Axes are unique and in ``[0, rank)``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ovconform.ir import AttrSpec, Dimension, Node, Output, PartialShape, Type, constant_value, define_op, make_node
from ovconform.opset._advanced_conv import map_dim
from ovconform.opset._helpers import NodeInput, as_output, require

__all__ = ["interpolate", "interpolate_v1", "interpolate_v4"]

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


def _infer(node: Node, axes: list[int] | None, shape_mode: str, values: np.ndarray | None,
           padded_others: bool) -> PartialShape:
    data = node.get_input_partial_shape(0)
    if not data.has_rank():
        return PartialShape.dynamic()
    rank = len(data)
    require(rank >= 1, f"data shape {data} must have rank >= 1.")
    pb, pe = _pads(node, rank)
    padded = [map_dim(d, lambda v, i=i: v + pb[i] + pe[i]) for i, d in enumerate(data.dims)]
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
            dims[axis] = map_dim(padded[axis], lambda v, s=float(values[i]): scaled_size(v, s))
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
