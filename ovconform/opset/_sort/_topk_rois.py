"""ExperimentalDetectronTopKROIs-6 (OpenVINO's op-spec folder "sort"): the ``max_rois`` ROIs of the
highest probability.

Inputs: ``input_rois`` [N, 4] and ``rois_probs`` [N] (floating-point, one type). Attribute
``max_rois`` (non-negative, default 0). Output: [max_rois, 4] of the input type, as OpenVINO infers
it (rows past N are left undefined by the spec).
"""

from __future__ import annotations

from ovconform.ir import AttrSpec, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, require

__all__ = ["experimental_detectron_topk_rois"]


@define_op("ExperimentalDetectronTopKROIs", 6, inputs=2, attrs=[AttrSpec("max_rois", "int", 0)])
def _infer(node: Node) -> list[tuple[Type, PartialShape]]:
    limit = node.attrs["max_rois"]
    require(limit >= 0, f"max_rois is {limit}; it must not be negative.")
    et = node.get_input_element_type(0)
    require(et.is_real(), f"input_rois (input 0) have element type {et}; they must be floating-point.")
    pt = node.get_input_element_type(1)
    require(pt == et, f"rois_probs (input 1) have element type {pt}; they must match input_rois ({et}).")
    rois, probs = node.get_input_partial_shape(0), node.get_input_partial_shape(1)
    require(not rois.has_rank() or (len(rois) == 2 and rois[1].compatible(4)),
            f"input_rois (input 0) have shape {rois}; they must be [N, 4].")
    require(not probs.has_rank() or len(probs) == 1, f"rois_probs (input 1) have shape {probs}; they must be [N].")
    require(not rois.has_rank() or not probs.has_rank() or rois[0].compatible(probs[0]),
            f"input_rois {rois} and rois_probs {probs} disagree on the number of ROIs.")
    return [(et, PartialShape([limit, 4]))]


def experimental_detectron_topk_rois(input_rois: NodeInput, rois_probs: NodeInput, max_rois: int = 0,
                                     name: str | None = None) -> Node:
    """ExperimentalDetectronTopKROIs-6 (OpenVINO's Python API has no builder; the arguments of its
    C++ constructor)."""
    return make_node("ExperimentalDetectronTopKROIs", 6, [as_output(input_rois), as_output(rois_probs)],
                     {"max_rois": max_rois}, name)
