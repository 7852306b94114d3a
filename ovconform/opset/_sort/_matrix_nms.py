"""MatrixNms-8 (OpenVINO's spec page "MatrixNonMaxSuppression-8"; IR type ``MatrixNms``).

Inputs: ``boxes`` [B, N, 4] as ``[xmin, ymin, xmax, ymax]`` and ``scores`` [B, C, N], one
floating-point type. Attributes as OpenVINO writes them: ``sort_result_type`` (classid, score,
none; the spec calls it *sort_result* and its value ``class``), ``sort_result_across_batch``,
``output_type`` (i64, i32), ``score_threshold``, ``nms_top_k``, ``keep_top_k``,
``background_class`` (each -1 or more), ``decay_function`` (gaussian, linear),
``gaussian_sigma``, ``post_threshold``, ``normalized``.

Outputs, as OpenVINO infers them: ``selected_outputs`` [0..R, 6] (the boxes' type),
``selected_indices`` [0..R, 1] and ``selected_num`` [B] (``output_type``), where
R = B * min(C * min(N, nms_top_k), keep_top_k) with -1 meaning no limit (dynamic when a dim is).
"""

from __future__ import annotations

from ovconform.ir import AttrSpec, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output
from ovconform.opset._inputs import Infer
from ovconform.opset._sort._nms_checks import (
    INDEX_OUTPUT_TYPES,
    SORT_RESULT_TYPES,
    at_least_minus_one,
    batched_boxes,
    float_pair,
    index_type,
    times,
    top,
    up_to,
)

__all__ = ["matrix_nms"]

DECAY_FUNCTIONS = ("gaussian", "linear")

ATTRS = [
    AttrSpec("sort_result_type", "str", "none", SORT_RESULT_TYPES),
    AttrSpec("output_type", "type", Type.i64, INDEX_OUTPUT_TYPES),
    AttrSpec("nms_top_k", "int", -1),
    AttrSpec("keep_top_k", "int", -1),
    AttrSpec("sort_result_across_batch", "bool", False),
    AttrSpec("score_threshold", "float", 0.0),
    AttrSpec("background_class", "int", -1),
    AttrSpec("decay_function", "str", "linear", DECAY_FUNCTIONS),
    AttrSpec("gaussian_sigma", "float", 2.0),
    AttrSpec("post_threshold", "float", 0.0),
    AttrSpec("normalized", "bool", True),
]


@define_op("MatrixNms", 8, inputs=2, attrs=ATTRS)
def _infer_matrix_nms(node: Node) -> Infer:
    et = float_pair(node)
    boxes, scores = batched_boxes(node, 4)
    at_least_minus_one(node, "nms_top_k", "keep_top_k", "background_class")
    out_t = index_type(node)
    per_batch = top(times(top(boxes[1], node.attrs["nms_top_k"]), scores[1]), node.attrs["keep_top_k"])
    rows = up_to(times(per_batch, scores[0]))
    return [(et, PartialShape([rows, 6])), (out_t, PartialShape([rows, 1])), (out_t, PartialShape([scores[0]]))]


def matrix_nms(boxes: NodeInput, scores: NodeInput, sort_result_type: str = "none",
               sort_result_across_batch: bool = False, output_type: str | Type = "i64", score_threshold: float = 0.0,
               nms_top_k: int = -1, keep_top_k: int = -1, background_class: int = -1,
               decay_function: str = "linear", gaussian_sigma: float = 2.0, post_threshold: float = 0.0,
               normalized: bool = True, name: str | None = None) -> Node:
    """MatrixNms-8 (the arguments of ``openvino.opset8.matrix_nms``): outputs ``selected_outputs``,
    ``selected_indices`` and ``selected_num``."""
    attrs = {"sort_result_type": sort_result_type.lower(), "output_type": output_type, "nms_top_k": nms_top_k,
             "keep_top_k": keep_top_k, "sort_result_across_batch": sort_result_across_batch,
             "score_threshold": score_threshold, "background_class": background_class,
             "decay_function": decay_function.lower(), "gaussian_sigma": gaussian_sigma,
             "post_threshold": post_threshold, "normalized": normalized}
    return make_node("MatrixNms", 8, [as_output(boxes), as_output(scores)], attrs, name)
