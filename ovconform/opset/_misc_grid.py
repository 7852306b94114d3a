"""GridSample-9 builder: ``data`` [N, C, H, W] of a numeric type and ``grid`` [N, H_out, W_out, 2] of a
floating-point type holding normalized (x, y) pairs; attributes ``align_corners`` (false),
``mode`` (bilinear, bicubic, nearest) and ``padding_mode`` (zeros, border, reflection). Output
[N, C, H_out, W_out] of the data type. (The newest spec text also describes 5D volumetric data;
the opset9 op of OpenVINO 2026.4 rejects it, and so does this builder.)"""

from __future__ import annotations

from typing import Any

from ovconform.ir import AttrSpec, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, require

__all__ = ["grid_sample"]

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
