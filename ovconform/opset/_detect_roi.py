"""ROIAlign-3/9 and ROIAlignRotated-15: bilinear ROI pooling into a fixed grid.

Inputs: feature maps [N, C, H, W] (floating-point), ROIs of the same type — [num_rois, 4]
``(x1, y1, x2, y2)`` for ROIAlign, [num_rois, 5] ``(centre x, centre y, width, height, angle)``
for ROIAlignRotated — and batch indices [num_rois] (integer). Output [num_rois, C, pooled_h,
pooled_w] of the maps' type. Attributes as OpenVINO writes them: ``pooled_h``, ``pooled_w``,
``sampling_ratio`` (0 = adaptive), ``spatial_scale``; ROIAlign ``mode`` (avg, max), ROIAlign-9
``aligned_mode`` (asymmetric, half_pixel_for_nn, half_pixel); ROIAlignRotated ``clockwise_mode``.
"""

from __future__ import annotations

from ovconform.ir import AttrSpec, Dimension, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, require

__all__ = ["roi_align", "roi_align_rotated"]

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
