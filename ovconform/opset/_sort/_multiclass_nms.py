"""MulticlassNms-8/9 (OpenVINO's spec pages "MulticlassNonMaxSuppression-8/9"; IR type
``MulticlassNms``).

Inputs: ``boxes`` [B, N, 4] as ``[xmin, ymin, xmax, ymax]`` and ``scores`` [B, C, N] (boxes
shared by the classes), one floating-point type; version 9 also takes the second format:
``boxes`` [C, M, 4], ``scores`` [C, M] and ``roisnum`` [B] (i32 or i64: the boxes of each image,
M in all). Attributes as OpenVINO writes them: ``sort_result_type`` (classid, score, none),
``output_type`` (i64, i32), ``nms_top_k``, ``keep_top_k``, ``background_class`` (each -1 or
more), ``sort_result_across_batch``, ``iou_threshold``, ``score_threshold``, ``nms_eta`` (in
[0, 1]), ``normalized``.

Outputs, as OpenVINO infers them: ``selected_outputs`` [0..R, 6] (the boxes' type),
``selected_indices`` [0..R, 1] and ``selected_num`` [B] (``output_type``), where
R = B * min(C * min(N, nms_top_k), keep_top_k) (-1: no limit; with roisnum N is M and B is
roisnum's length).
"""

from __future__ import annotations

from ovconform.ir import AttrSpec, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, require
from ovconform.opset._inputs import Infer
from ovconform.opset._sort._nms_checks import (
    INDEX_OUTPUT_TYPES,
    SORT_RESULT_TYPES,
    at_least_minus_one,
    batched_boxes,
    float_pair,
    index_type,
    ranked,
    times,
    top,
    up_to,
)

__all__ = ["multiclass_nms"]

ATTRS = [
    AttrSpec("sort_result_type", "str", "none", SORT_RESULT_TYPES),
    AttrSpec("output_type", "type", Type.i64, INDEX_OUTPUT_TYPES),
    AttrSpec("nms_top_k", "int", -1),
    AttrSpec("keep_top_k", "int", -1),
    AttrSpec("sort_result_across_batch", "bool", False),
    AttrSpec("iou_threshold", "float", 0.0),
    AttrSpec("score_threshold", "float", 0.0),
    AttrSpec("background_class", "int", -1),
    AttrSpec("nms_eta", "float", 1.0),
    AttrSpec("normalized", "bool", True),
]


def _per_class_format(node: Node) -> tuple[PartialShape, PartialShape]:
    """boxes [C, M, 4], scores [C, M], roisnum [B]: (boxes, roisnum)."""
    boxes = ranked(node, 0, 3, "boxes", "[num_classes, num_boxes, 4] (with roisnum)")
    scores = ranked(node, 1, 2, "scores", "[num_classes, num_boxes] (with roisnum)")
    rois = ranked(node, 2, 1, "roisnum", "[num_batches]")
    rt = node.get_input_element_type(2)
    require(rt in (Type.i32, Type.i64), f"roisnum (input 2) has element type {rt}; it must be i32 or i64.")
    require(boxes[2].compatible(4), f"boxes (input 0) have shape {boxes}; the last dim must be 4.")
    require(boxes[0].compatible(scores[0]) and boxes[1].compatible(scores[1]),
            f"boxes {boxes} and scores {scores} disagree on the classes or boxes (with roisnum they are "
            "[C, M, 4] and [C, M]).")
    return boxes, rois


def _infer_multiclass_nms(node: Node) -> Infer:
    et = float_pair(node)
    at_least_minus_one(node, "nms_top_k", "keep_top_k", "background_class")
    eta = node.attrs["nms_eta"]
    require(0.0 <= eta <= 1.0, f"attribute nms_eta={eta}; it must be in [0, 1].")
    out_t = index_type(node)
    if node.get_input_size() == 3:
        boxes, rois = _per_class_format(node)
        n, classes, images = boxes[1], boxes[0], rois[0]
    else:
        boxes, scores = batched_boxes(node, 4)
        n, classes, images = boxes[1], scores[1], scores[0]
    per_batch = top(times(top(n, node.attrs["nms_top_k"]), classes), node.attrs["keep_top_k"])
    rows = up_to(times(per_batch, images))
    return [(et, PartialShape([rows, 6])), (out_t, PartialShape([rows, 1])), (out_t, PartialShape([images]))]


define_op("MulticlassNms", 8, inputs=2, attrs=ATTRS)(_infer_multiclass_nms)
define_op("MulticlassNms", 9, inputs=(2, 3), attrs=ATTRS)(_infer_multiclass_nms)


def multiclass_nms(boxes: NodeInput, scores: NodeInput, roisnum: NodeInput | None = None,
                   sort_result_type: str = "none", sort_result_across_batch: bool = False,
                   output_type: str | Type = "i64", iou_threshold: float = 0.0, score_threshold: float = 0.0,
                   nms_top_k: int = -1, keep_top_k: int = -1, background_class: int = -1, nms_eta: float = 1.0,
                   normalized: bool = True, name: str | None = None, *, version: int = 9) -> Node:
    """MulticlassNms-9 (the arguments of ``openvino.opset9.multiclass_nms``; ``roisnum`` selects the
    per-class format); ``version=8`` for MulticlassNms-8 (no ``roisnum``)."""
    require(version in (8, 9), f"MulticlassNms: version {version} is not one of (8, 9).")
    require(version == 9 or roisnum is None, "MulticlassNms-8 has no roisnum input (use version 9).")
    inputs = [as_output(boxes), as_output(scores)]
    if roisnum is not None:
        inputs.append(as_output(roisnum, Type.i64))
    attrs = {"sort_result_type": sort_result_type.lower(), "output_type": output_type, "nms_top_k": nms_top_k,
             "keep_top_k": keep_top_k, "sort_result_across_batch": sort_result_across_batch,
             "iou_threshold": iou_threshold, "score_threshold": score_threshold,
             "background_class": background_class, "nms_eta": nms_eta, "normalized": normalized}
    return make_node("MulticlassNms", version, inputs, attrs, name)
