"""ROI pooling builders: ROIPooling-2 and PSROIPooling-1.

ROIPooling-2: feature maps [N, C, H, W] and ROIs [num_rois, 5] (``[batch_id, x_1, y_1, x_2, y_2]``)
of one floating-point type; output [num_rois, C, pooled_h, pooled_w]. Attributes as OpenVINO writes
them: ``output_size`` and ``output_roi`` (both ``[pooled_h, pooled_w]``; OpenVINO's own spellings,
filled by the builder), ``pooled_h``, ``pooled_w``, ``spatial_scale``, ``method`` (max, bilinear).

PSROIPooling-1: the same inputs; attributes ``output_dim``, ``group_size``, ``spatial_scale``,
``mode`` (average, bilinear), ``spatial_bins_x``, ``spatial_bins_y``. The feature maps have
``output_dim * group_size²`` channels (average) or ``output_dim * spatial_bins_x * spatial_bins_y``
(bilinear); output [num_rois, output_dim, group_size, group_size].
"""

from __future__ import annotations

from collections.abc import Sequence

from ovconform.ir import AttrSpec, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, require

__all__ = ["psroi_pooling", "roi_pooling"]


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
