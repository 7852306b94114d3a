"""DeformablePSROIPooling-1: position-sensitive ROI pooling whose bins move by learned offsets.

Inputs: feature maps [N, output_dim * group_size², H, W] (floating-point), ROIs [num_rois, 5]
(``[batch_id, x_1, y_1, x_2, y_2]``) and optionally offsets [num_rois, 2 * num_classes,
part_size, part_size], all of one type; ``output_dim`` must be a multiple of num_classes. Output
[num_rois, output_dim, group_size, group_size]. Attributes as OpenVINO writes them:
``output_dim``, ``spatial_scale``, ``group_size``, ``mode`` (bilinear_deformable, the one mode
OpenVINO implements), ``spatial_bins_x``, ``spatial_bins_y``, ``trans_std``, ``part_size``.
"""

from __future__ import annotations

from ovconform.ir import AttrSpec, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, require

__all__ = ["deformable_psroi_pooling"]

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
