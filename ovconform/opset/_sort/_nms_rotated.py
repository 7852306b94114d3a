"""NMSRotated-13: non-maximum suppression of rotated boxes.

Inputs: ``boxes`` [B, N, 5] as ``[x_center, y_center, width, height, angle]`` (radians) and
``scores`` [B, C, N], one floating-point type; ``max_output_boxes_per_class`` (an integer type),
``iou_threshold`` and ``score_threshold`` (floating-point), each a scalar or a 1-element 1-D
tensor, all required. Attributes: ``sort_result_descending``, ``output_type`` (i64, i32),
``clockwise``. Outputs, as OpenVINO infers them: ``selected_indices`` [0..B * C * min(N, M), 3]
(``output_type``; dynamic when M is not known at build time), ``selected_scores`` of the same
shape (f32 for every input type, as OpenVINO infers it) and ``valid_outputs`` [1]
(``output_type``).
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import AttrSpec, Dimension, Node, PartialShape, Type, constant_value, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, require
from ovconform.opset._inputs import Infer
from ovconform.opset._sort._nms_checks import INDEX_OUTPUT_TYPES, batched_boxes, float_pair, index_type, times, up_to

__all__ = ["nms_rotated"]

_NAMES = ("boxes", "scores", "max_output_boxes_per_class", "iou_threshold", "score_threshold")
ATTRS = [AttrSpec("sort_result_descending", "bool", True),
         AttrSpec("output_type", "type", Type.i64, INDEX_OUTPUT_TYPES),
         AttrSpec("clockwise", "bool", True)]


def _scalars(node: Node) -> None:
    for i in range(2, 5):
        et = node.get_input_element_type(i)
        ok = et.is_integral_number() if i == 2 else et.is_real()
        require(ok, f"{_NAMES[i]} (input {i}) has element type {et}; it must be "
                    f"{'an integer' if i == 2 else 'a floating-point'} type.")
        shape = node.get_input_partial_shape(i)
        require(not shape.has_rank() or len(shape) == 0 or (len(shape) == 1 and shape[0].compatible(1)),
                f"{_NAMES[i]} (input {i}) has shape {shape}; it must be a scalar or hold 1 element.")


@define_op("NMSRotated", 13, inputs=5, attrs=ATTRS)
def _infer_nms_rotated(node: Node) -> Infer:
    float_pair(node)
    boxes, scores = batched_boxes(node, 5)
    _scalars(node)
    out_t = index_type(node)
    value = constant_value(node.input_value(2))
    if value is None:
        rows = Dimension.dynamic()
    else:
        limit = max(int(np.asarray(value).reshape(-1)[0]), 0)
        per_class = Dimension(min(boxes[1].get_length(), limit)) if boxes[1].is_static else Dimension.dynamic()
        rows = up_to(times(times(per_class, scores[0]), scores[1]))
    return [(out_t, PartialShape([rows, 3])), (Type.f32, PartialShape([rows, 3])), (out_t, PartialShape([1]))]


def nms_rotated(boxes: NodeInput, scores: NodeInput, max_output_boxes_per_class: NodeInput,
                iou_threshold: NodeInput, score_threshold: NodeInput, sort_result_descending: bool = True,
                output_type: str | Type = "i64", clockwise: bool = True, name: str | None = None) -> Node:
    """NMSRotated-13 (the arguments of ``openvino.opset13.nms_rotated``). Literal inputs become
    Constants: the count as i64, the thresholds of the boxes' type."""
    first = as_output(boxes)
    ft = first.get_element_type()
    inputs = [first, as_output(scores), as_output(max_output_boxes_per_class, Type.i64),
              as_output(iou_threshold, ft), as_output(score_threshold, ft)]
    attrs = {"sort_result_descending": sort_result_descending, "output_type": output_type, "clockwise": clockwise}
    return make_node("NMSRotated", 13, inputs, attrs, name)
