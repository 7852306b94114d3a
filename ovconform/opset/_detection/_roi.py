"""ROI pooling ops: ROIAlign-3/9, ROIAlignRotated-15, ROIPooling-2, PSROIPooling-1 and
DeformablePSROIPooling-1.

* ROIAlign-3/9 and ROIAlignRotated-15: bilinear ROI pooling into a fixed grid. Inputs: feature maps
  [N, C, H, W] (floating-point), ROIs of the same type — [num_rois, 4] ``(x1, y1, x2, y2)`` for
  ROIAlign, [num_rois, 5] ``(centre x, centre y, width, height, angle)`` for ROIAlignRotated — and
  batch indices [num_rois] (integer). Output [num_rois, C, pooled_h, pooled_w] of the maps' type.
  Attributes as OpenVINO writes them: ``pooled_h``, ``pooled_w``, ``sampling_ratio`` (0 =
  adaptive), ``spatial_scale``; ROIAlign ``mode`` (avg, max), ROIAlign-9 ``aligned_mode``
  (asymmetric, half_pixel_for_nn, half_pixel); ROIAlignRotated ``clockwise_mode``.
* ROIPooling-2: feature maps [N, C, H, W] and ROIs [num_rois, 5] (``[batch_id, x_1, y_1, x_2,
  y_2]``) of one floating-point type; output [num_rois, C, pooled_h, pooled_w]. Attributes as
  OpenVINO writes them: ``output_size`` and ``output_roi`` (both ``[pooled_h, pooled_w]``;
  OpenVINO's own spellings, filled by the builder), ``pooled_h``, ``pooled_w``, ``spatial_scale``,
  ``method`` (max, bilinear).
* PSROIPooling-1: the same inputs; attributes ``output_dim``, ``group_size``, ``spatial_scale``,
  ``mode`` (average, bilinear), ``spatial_bins_x``, ``spatial_bins_y``. The feature maps have
  ``output_dim * group_size²`` channels (average) or ``output_dim * spatial_bins_x *
  spatial_bins_y`` (bilinear); output [num_rois, output_dim, group_size, group_size].
* DeformablePSROIPooling-1: position-sensitive ROI pooling whose bins move by learned offsets.
  Inputs: feature maps [N, output_dim * group_size², H, W] (floating-point), ROIs [num_rois, 5]
  (``[batch_id, x_1, y_1, x_2, y_2]``) and optionally offsets [num_rois, 2 * num_classes,
  part_size, part_size], all of one type; ``output_dim`` must be a multiple of num_classes. Output
  [num_rois, output_dim, group_size, group_size]. Attributes as OpenVINO writes them:
  ``output_dim``, ``spatial_scale``, ``group_size``, ``mode`` (bilinear_deformable, the one mode
  OpenVINO implements), ``spatial_bins_x``, ``spatial_bins_y``, ``trans_std``, ``part_size``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ovconform.ir import AttrSpec, Dimension, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, require

__all__ = ["deformable_psroi_pooling", "psroi_pooling", "roi_align", "roi_align_rotated", "roi_pooling"]

_COMMON = [AttrSpec("pooled_h", "int"), AttrSpec("pooled_w", "int"), AttrSpec("sampling_ratio", "int"),
           AttrSpec("spatial_scale", "float")]
_MODE = AttrSpec("mode", "str", choices=("avg", "max"))
ALIGNED_MODES = ("asymmetric", "half_pixel_for_nn", "half_pixel")


def _merge(a: Dimension, b: Dimension, what: str) -> Dimension:
    require(a.compatible(b), f"{what}: {a} and {b} disagree.")
    return a if a.is_static or not b.is_static else b


def _infer_roi(node: Node, box_size: int) -> list[tuple[Type, PartialShape]]:
    a = node.attrs
    for name in ("pooled_h", "pooled_w"):
        require(a[name] > 0, f"attribute {name!r} is {a[name]}; it must be positive.")
    require(a["sampling_ratio"] >= 0, f"sampling_ratio is {a['sampling_ratio']}; it must be >= 0 (0 = adaptive).")
    require(a["spatial_scale"] > 0, f"spatial_scale is {a['spatial_scale']}; it must be positive.")
    et, rt, bt = (node.get_input_element_type(i) for i in range(3))
    require(et.is_real(), f"feature maps (input 0) have element type {et}; they must be floating-point.")
    require(rt == et, f"ROIs (input 1) have element type {rt}; they must match the feature maps ({et}).")
    require(bt.is_integral_number(), f"batch indices (input 2) have element type {bt}; they must be integers.")
    maps, rois, idx = (node.get_input_partial_shape(i) for i in range(3))
    maps = maps if maps.has_rank() else PartialShape.dynamic(4)
    rois = rois if rois.has_rank() else PartialShape.dynamic(2)
    idx = idx if idx.has_rank() else PartialShape.dynamic(1)
    require(len(maps) == 4, f"feature maps (input 0) have shape {maps}; they must be NCHW (rank 4).")
    require(len(rois) == 2 and rois[1].compatible(box_size),
            f"ROIs (input 1) have shape {rois}; they must be [num_rois, {box_size}].")
    require(len(idx) == 1, f"batch indices (input 2) have shape {idx}; they must be 1-D [num_rois].")
    num = _merge(rois[0], idx[0], "the number of ROIs (input 1 dim 0) and of batch indices (input 2)")
    return [(et, PartialShape([num, maps[1], a["pooled_h"], a["pooled_w"]]))]


define_op("ROIAlign", 3, inputs=3, attrs=[*_COMMON, _MODE])(lambda node: _infer_roi(node, 4))
define_op("ROIAlign", 9, inputs=3, attrs=[*_COMMON, _MODE, AttrSpec("aligned_mode", "str", "asymmetric",
                                                                     ALIGNED_MODES)])(lambda node: _infer_roi(node, 4))
define_op("ROIAlignRotated", 15, inputs=3, attrs=[*_COMMON, AttrSpec("clockwise_mode", "bool", False)])(
    lambda node: _infer_roi(node, 5))


def roi_align(data: NodeInput, rois: NodeInput, batch_indices: NodeInput, pooled_h: int, pooled_w: int,
              sampling_ratio: int, spatial_scale: float, mode: str, aligned_mode: str | None = "asymmetric",
              name: str | None = None, *, version: int = 9) -> Node:
    """ROIAlign-9 (the arguments of ``openvino.opset9.roi_align``; ``version=3`` for ROIAlign-3,
    which has no ``aligned_mode``: it must stay asymmetric)."""
    require(version in (3, 9), f"ROIAlign: version {version} is not one of (3, 9).")
    attrs = {"pooled_h": pooled_h, "pooled_w": pooled_w, "sampling_ratio": sampling_ratio,
             "spatial_scale": float(spatial_scale), "mode": mode.lower() if isinstance(mode, str) else mode}
    aligned = (aligned_mode or "asymmetric").lower()
    if version == 3:
        require(aligned == "asymmetric", f"ROIAlign-3 has no aligned_mode; got {aligned_mode!r} (use version 9).")
    else:
        attrs["aligned_mode"] = aligned
    inputs = [as_output(data), as_output(rois), as_output(batch_indices, Type.i64)]
    return make_node("ROIAlign", version, inputs, attrs, name)


def roi_align_rotated(data: NodeInput, rois: NodeInput, batch_indices: NodeInput, pooled_h: int, pooled_w: int,
                      sampling_ratio: int, spatial_scale: float, clockwise_mode: bool,
                      name: str | None = None) -> Node:
    """ROIAlignRotated-15 (the arguments of ``openvino.opset15.roi_align_rotated``)."""
    attrs = {"pooled_h": pooled_h, "pooled_w": pooled_w, "sampling_ratio": sampling_ratio,
             "spatial_scale": float(spatial_scale), "clockwise_mode": bool(clockwise_mode)}
    inputs = [as_output(data), as_output(rois), as_output(batch_indices, Type.i64)]
    return make_node("ROIAlignRotated", 15, inputs, attrs, name)


def _rois(node: Node, index: int = 1) -> PartialShape:
    et, rt = node.get_input_element_type(0), node.get_input_element_type(index)
    require(et.is_real(), f"feature maps (input 0) have element type {et}; they must be floating-point.")
    require(rt == et, f"ROIs (input {index}) have element type {rt}; they must match the feature maps ({et}).")
    shape = node.get_input_partial_shape(index)
    if not shape.has_rank():
        return PartialShape.dynamic(2)
    require(len(shape) == 2 and shape[1].compatible(5),
            f"ROIs (input {index}) have shape {shape}; they must be [num_rois, 5].")
    return shape


def _maps(node: Node) -> PartialShape:
    shape = node.get_input_partial_shape(0)
    if not shape.has_rank():
        return PartialShape.dynamic(4)
    require(len(shape) == 4, f"feature maps (input 0) have shape {shape}; they must be NCHW (rank 4).")
    return shape


@define_op("ROIPooling", 2, inputs=2, attrs=[
    AttrSpec("output_size", "ints", []), AttrSpec("output_roi", "ints", []), AttrSpec("pooled_h", "int"),
    AttrSpec("pooled_w", "int"), AttrSpec("spatial_scale", "float"),
    AttrSpec("method", "str", "max", ("max", "bilinear"))])
def _infer_roi_pooling(node: Node) -> list[tuple[Type, PartialShape]]:
    a = node.attrs
    pooled = [a["pooled_h"], a["pooled_w"]]
    require(all(p > 0 for p in pooled), f"pooled_h={pooled[0]} and pooled_w={pooled[1]} must be positive.")
    for name in ("output_size", "output_roi"):
        require(a[name] in ([], pooled), f"attribute {name!r} is {a[name]}; it must be [pooled_h, pooled_w] = "
                                         f"{pooled}.")
    require(a["spatial_scale"] > 0, f"spatial_scale is {a['spatial_scale']}; it must be positive.")
    maps, rois = _maps(node), _rois(node)
    return [(node.get_input_element_type(0), PartialShape([rois[0], maps[1], *pooled]))]


def roi_pooling(input: NodeInput, coords: NodeInput, output_roi: Sequence[int] | None = None,  # noqa: A002
                spatial_scale: float = 1.0, method: str = "max", name: str | None = None, *,
                output_size: Sequence[int] | None = None) -> Node:
    """ROIPooling-2 (``openvino.opset2.roi_pooling``'s arguments: ``output_roi`` is [pooled_h, pooled_w];
    ``output_size`` is its older name)."""
    size = list(output_roi if output_roi is not None else output_size or [])
    require(len(size) == 2, f"ROIPooling: the pooled size must be [pooled_h, pooled_w]; got {size}.")
    attrs = {"output_size": size, "output_roi": size, "pooled_h": size[0], "pooled_w": size[1],
             "spatial_scale": float(spatial_scale), "method": method.lower()}
    return make_node("ROIPooling", 2, [as_output(input), as_output(coords)], attrs, name)


@define_op("PSROIPooling", 1, inputs=2, attrs=[
    AttrSpec("output_dim", "int"), AttrSpec("group_size", "int", 1), AttrSpec("spatial_scale", "float"),
    AttrSpec("mode", "str", "average", ("average", "bilinear")), AttrSpec("spatial_bins_x", "int", 1),
    AttrSpec("spatial_bins_y", "int", 1)])
def _infer_psroi_pooling(node: Node) -> list[tuple[Type, PartialShape]]:
    a = node.attrs
    for name in ("output_dim", "group_size", "spatial_bins_x", "spatial_bins_y"):
        require(a[name] > 0, f"attribute {name!r} is {a[name]}; it must be positive.")
    require(a["spatial_scale"] > 0, f"spatial_scale is {a['spatial_scale']}; it must be positive.")
    maps, rois = _maps(node), _rois(node)
    if a["mode"] == "average":
        per, what = a["group_size"] ** 2, "output_dim * group_size²"
    else:
        per, what = a["spatial_bins_x"] * a["spatial_bins_y"], "output_dim * spatial_bins_x * spatial_bins_y"
    channels = a["output_dim"] * per
    require(not maps[1].is_static or maps[1].get_length() == channels,
            f"feature maps {maps} have {maps[1]} channels; mode {a['mode']!r} needs {what} = {channels}.")
    g = a["group_size"]
    return [(node.get_input_element_type(0), PartialShape([rois[0], a["output_dim"], g, g]))]


def psroi_pooling(input: NodeInput, coords: NodeInput, output_dim: int, group_size: int,  # noqa: A002
                  spatial_scale: float, spatial_bins_x: int, spatial_bins_y: int, mode: str,
                  name: str | None = None) -> Node:
    """PSROIPooling-1 (the argument order of ``openvino.opset1.psroi_pooling``)."""
    attrs = {"output_dim": output_dim, "group_size": group_size, "spatial_scale": float(spatial_scale),
             "mode": mode.lower(), "spatial_bins_x": spatial_bins_x, "spatial_bins_y": spatial_bins_y}
    return make_node("PSROIPooling", 1, [as_output(input), as_output(coords)], attrs, name)


_NAMES = ("feature maps", "ROIs", "offsets")


@define_op("DeformablePSROIPooling", 1, inputs=(2, 3), attrs=[
    AttrSpec("output_dim", "int"), AttrSpec("spatial_scale", "float"), AttrSpec("group_size", "int", 1),
    AttrSpec("mode", "str", "bilinear_deformable", ("bilinear_deformable",)), AttrSpec("spatial_bins_x", "int", 1),
    AttrSpec("spatial_bins_y", "int", 1), AttrSpec("trans_std", "float", 1.0), AttrSpec("part_size", "int", 1)])
def _infer_deformable_psroi_pooling(node: Node) -> list[tuple[Type, PartialShape]]:
    a = node.attrs
    for name in ("output_dim", "group_size", "spatial_bins_x", "spatial_bins_y", "part_size"):
        require(a[name] > 0, f"attribute {name!r} is {a[name]}; it must be positive.")
    require(a["spatial_scale"] > 0, f"spatial_scale is {a['spatial_scale']}; it must be positive.")
    et = node.get_input_element_type(0)
    require(et.is_real(), f"feature maps (input 0) have element type {et}; they must be floating-point.")
    shapes = []
    for i, rank in enumerate((4, 2, 4)[:node.get_input_size()]):
        it = node.get_input_element_type(i)
        require(it == et, f"{_NAMES[i]} (input {i}) have element type {it}; they must match the feature maps ({et}).")
        shape = node.get_input_partial_shape(i)
        shape = shape if shape.has_rank() else PartialShape.dynamic(rank)
        require(len(shape) == rank, f"{_NAMES[i]} (input {i}) have shape {shape}; they must have rank {rank}.")
        shapes.append(shape)
    g = a["group_size"]
    channels = a["output_dim"] * g * g
    require(shapes[0][1].compatible(channels), f"feature maps {shapes[0]} have {shapes[0][1]} channels; they need "
                                               f"output_dim * group_size² = {channels}.")
    require(shapes[1][1].compatible(5), f"ROIs (input 1) have shape {shapes[1]}; they must be [num_rois, 5].")
    if len(shapes) == 3:
        off = shapes[2]
        part = a["part_size"]
        require(off[2].compatible(part) and off[3].compatible(part),
                f"offsets {off} must be [num_rois, 2 * num_classes, part_size, part_size] with part_size {part}.")
        require(off[0].compatible(shapes[1][0]), f"offsets {off} and ROIs {shapes[1]} disagree on num_rois.")
        if off[1].is_static:
            classes2 = off[1].get_length()
            require(classes2 > 0 and classes2 % 2 == 0 and a["output_dim"] % (classes2 // 2) == 0,
                    f"offsets have {classes2} channels; they must be 2 * num_classes with output_dim "
                    f"({a['output_dim']}) a multiple of num_classes.")
    return [(et, PartialShape([shapes[1][0], a["output_dim"], g, g]))]


def deformable_psroi_pooling(feature_maps: NodeInput, coords: NodeInput, output_dim: int, spatial_scale: float,
                             group_size: int = 1, mode: str = "bilinear_deformable", spatial_bins_x: int = 1,
                             spatial_bins_y: int = 1, trans_std: float = 1.0, part_size: int = 1,
                             offsets: NodeInput | None = None, name: str | None = None) -> Node:
    """DeformablePSROIPooling-1 (the arguments of ``openvino.opset1.deformable_psroi_pooling``)."""
    inputs = [as_output(feature_maps), as_output(coords)]
    if offsets is not None:
        inputs.append(as_output(offsets))
    attrs = {"output_dim": output_dim, "spatial_scale": float(spatial_scale), "group_size": group_size,
             "mode": mode.lower(), "spatial_bins_x": spatial_bins_x, "spatial_bins_y": spatial_bins_y,
             "trans_std": float(trans_std), "part_size": part_size}
    return make_node("DeformablePSROIPooling", 1, inputs, attrs, name)
