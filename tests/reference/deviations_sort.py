"""OpenVINO CPU deviations from the spec for the NMS ops of the "sort" family added for issue #22
(MatrixNms-8, MulticlassNms-8/9, NMSRotated-13; records as in openvino_deviations.py)."""

from __future__ import annotations

import numpy as np
from openvino_deviations import SPEC, Deviation, Witness, _case, _param, input_value, op_nodes

from ovconform import opset as ops
from ovconform.ir import Node, Type, bf16_to_f32
from ovconform.opcases import OpCase
from reference_plugin.evaluate import evaluate
from reference_plugin.ops._common_nms import by_score
from reference_plugin.ops.op_multiclass_nms import iou, nms_class

# -- MatrixNms-8: sort_result_type "classid" per image ------------------------------------------------------


def _matrix_nms_class_order_differs(case: OpCase) -> bool:
    """A MatrixNms with sort_result_type classid per image (not across the batch) whose spec output,
    ordered by class, is not also ordered by score inside some image."""
    for node in op_nodes(case, "MatrixNms", (8,)):
        if node.attrs["sort_result_type"] != "classid" or node.attrs["sort_result_across_batch"]:
            continue
        boxes, scores = input_value(case, node, 0), input_value(case, node, 1)
        if boxes is None or scores is None:
            return True
        pb, ps = _param("boxes", boxes), _param("scores", scores)  # the node alone, on its inputs
        alone = _case("MatrixNms", 8, ops.matrix_nms(pb, ps, **node.attrs).outputs(), [pb, ps], {})
        rows, _, counts = evaluate(alone.model, [boxes, scores])
        start = 0
        for count in np.asarray(counts).reshape(-1):
            score = np.asarray(rows[start:start + int(count), 1], np.float64)
            if np.any(np.diff(score) > 0):
                return True
            start += int(count)
    return False


def _matrix_nms_class_witness() -> Witness:
    boxes = np.array([[[0.0, 0.0, 0.2, 0.2], [0.5, 0.5, 0.7, 0.7]]], np.float32)
    scores = np.array([[[0.3, 0.05], [0.05, 0.9]]], np.float32)
    pb, ps = _param("boxes", boxes), _param("scores", scores)
    node = ops.matrix_nms(pb, ps, sort_result_type="classid", score_threshold=0.1)
    case = _case("MatrixNms", 8, node.outputs(), [pb, ps], {"boxes": boxes, "scores": scores})
    rows = np.array([[0, 0.3, 0.0, 0.0, 0.2, 0.2], [1, 0.9, 0.5, 0.5, 0.7, 0.7]], np.float32)
    return Witness(case, [rows, np.array([[0], [1]], np.int64), np.array([2], np.int64)])


# -- MulticlassNms-8/9: the adaptive threshold of nms_eta -------------------------------------------------


def _lazy_adaptive(boxes: np.ndarray, scores: np.ndarray, iou_thr: np.float32, score_thr: np.float32, top_k: int,
                   eta: np.float32, norm: np.float32) -> list[int]:
    """What OpenVINO CPU selects (as OpenVINO's reference code multiclass_nms.cpp), but for IoU ties:
    each candidate is compared with every box selected so far under the current, already lowered,
    threshold."""
    threshold, chosen = iou_thr, []
    for k in by_score(scores, [i for i in range(scores.size) if scores[i] >= score_thr], top_k):
        if any(iou(boxes[k], boxes[j], norm) > threshold for j in chosen):
            continue
        chosen.append(k)
        if eta < 1 and threshold > 0.5:
            threshold = np.float32(threshold * eta)
    return chosen


def _multiclass_groups(case: OpCase, node: Node) -> list[tuple[np.ndarray, np.ndarray]] | None:
    """(boxes [n, 4], scores [n]) of every image and class of a MulticlassNms (None: an input is unknown)."""
    values = [input_value(case, node, i) for i in range(node.get_input_size())]
    if any(v is None for v in values):
        return None
    boxes, scores = (np.asarray(v, np.float32) for v in values[:2])
    if len(values) == 3:  # per-class format: image b owns roisnum[b] boxes of every class
        cuts = np.concatenate([[0], np.cumsum(np.asarray(values[2], np.int64).reshape(-1))])
        return [(boxes[c, lo:hi], scores[c, lo:hi]) for lo, hi in zip(cuts[:-1], cuts[1:], strict=True)
                for c in range(scores.shape[0])]
    return [(boxes[b], scores[b, c]) for b in range(scores.shape[0]) for c in range(scores.shape[1])]


def _multiclass_eta_differs(case: OpCase) -> bool:
    """A MulticlassNms with nms_eta < 1 where a class of some image selects other boxes under the
    lowered threshold applied late (OpenVINO) than under the spec's threshold at each selection."""
    for node in op_nodes(case, "MulticlassNms", (8, 9)):
        a = node.attrs
        if a["nms_eta"] >= 1 or a["iou_threshold"] <= 0.5:
            continue
        groups = _multiclass_groups(case, node)
        if groups is None:
            return True
        args = (np.float32(a["iou_threshold"]), np.float32(a["score_threshold"]), a["nms_top_k"],
                np.float32(a["nms_eta"]), np.float32(0 if a["normalized"] else 1))
        if any(nms_class(bx, sc, *args) != _lazy_adaptive(bx, sc, *args) for bx, sc in groups):
            return True
    return False


def _multiclass_eta_witness() -> Witness:
    boxes = np.array([[[0, 0, 1, 1], [2, 2, 3, 3], [0, 0, 1, 0.5]]], np.float32)
    scores = np.array([[[0.9, 0.8, 0.7]]], np.float32)
    pb, ps = _param("boxes", boxes), _param("scores", scores)
    node = ops.multiclass_nms(pb, ps, sort_result_type="score", iou_threshold=0.7, nms_eta=0.8, version=8)
    case = _case("MulticlassNms", 8, node.outputs(), [pb, ps], {"boxes": boxes, "scores": scores})
    rows = np.array([[0, 0.9, 0, 0, 1, 1], [0, 0.8, 2, 2, 3, 3], [0, 0.7, 0, 0, 1, 0.5]], np.float32)
    return Witness(case, [rows, np.array([[0], [1], [2]], np.int64), np.array([3], np.int64)])


# -- MulticlassNms-8/9: an IoU equal to the threshold --------------------------------------------------------


def _multiclass_iou_tie(case: OpCase) -> bool:
    """A MulticlassNms where two boxes of one image and class overlap with an IoU equal to a threshold the
    op can use (iou_threshold, lowered by nms_eta while above 0.5)."""
    for node in op_nodes(case, "MulticlassNms", (8, 9)):
        a = node.attrs
        groups = _multiclass_groups(case, node)
        if groups is None:
            return True
        thresholds, t, eta = {np.float32(a["iou_threshold"])}, np.float32(a["iou_threshold"]), np.float32(a["nms_eta"])
        while eta < 1 and t > 0.5:
            t = np.float32(t * eta)
            thresholds.add(t)
        norm = np.float32(0 if a["normalized"] else 1)
        for boxes, _ in groups:
            if any(iou(boxes[i], boxes[j], norm) in thresholds for i in range(len(boxes)) for j in range(i)):
                return True
    return False


def _multiclass_tie_witness() -> Witness:
    boxes = np.array([[[0, 0, 1, 1], [0, 0, 1, 0.5], [2, 2, 3, 3]]], np.float32)
    scores = np.array([[[0.9, 0.8, 0.7]]], np.float32)
    pb, ps = _param("boxes", boxes), _param("scores", scores)
    node = ops.multiclass_nms(pb, ps, sort_result_type="score", iou_threshold=0.5, version=8)
    case = _case("MulticlassNms", 8, node.outputs(), [pb, ps], {"boxes": boxes, "scores": scores})
    rows = np.array([[0, 0.9, 0, 0, 1, 1], [0, 0.8, 0, 0, 1, 0.5], [0, 0.7, 2, 2, 3, 3]], np.float32)
    return Witness(case, [rows, np.array([[0], [1], [2]], np.int64), np.array([3], np.int64)])


# -- NMSRotated-13: a score equal to score_threshold ----------------------------------------------------------


def _rotated_score_tie(case: OpCase) -> bool:
    for node in op_nodes(case, "NMSRotated", (13,)):
        scores, threshold = input_value(case, node, 1), input_value(case, node, 4)
        if scores is None or threshold is None:
            return True
        et = node.get_input_element_type(1)
        values = (bf16_to_f32(scores) if et == Type.bf16 else np.asarray(scores)).astype(np.float32)
        t_et = node.get_input_element_type(4)
        t = (bf16_to_f32(threshold) if t_et == Type.bf16 else np.asarray(threshold)).astype(np.float32).reshape(-1)
        if np.any(values == t[0]):
            return True
    return False


def _rotated_score_witness() -> Witness:
    boxes = np.array([[[0, 0, 2, 2, 0], [0.5, 0, 1, 2, 0], [5, 5, 1, 1, 0]]], np.float32)
    scores = np.array([[[0.9, 0.8, 0.7]]], np.float32)
    pb, ps = _param("boxes", boxes), _param("scores", scores)
    node = ops.nms_rotated(pb, ps, np.array(5, np.int64), np.array(0.5, np.float32), np.array(0.7, np.float32))
    case = _case("NMSRotated", 13, node.outputs(), [pb, ps], {"boxes": boxes, "scores": scores})
    return Witness(case, [np.array([[0, 0, 0], [0, 0, 1], [0, 0, 2]], np.int64),
                          np.array([[0, 0, 0.9], [0, 0, 0.8], [0, 0, 0.7]], np.float32), np.array([3], np.int64)])


DEVIATIONS: tuple[Deviation, ...] = (
    Deviation(
        "MatrixNms", (8,), _matrix_nms_class_order_differs,
        "sort_result_type classid with sort_result_across_batch false: OpenVINO CPU leaves each image's boxes "
        "in score order (the spec sorts them by class id, ascending, per image; OpenVINO's reference code "
        "matrix_nms.cpp sorts by class only across the batch)",
        f"{SPEC}/sort/matrix-non-max-suppression-8.html",
        "one image, two far apart boxes, class 0 scores [0.3, 0.05], class 1 scores [0.05, 0.9], score_threshold "
        "0.1: the spec gives class 0 (box 0, 0.3) then class 1 (box 1, 0.9); CPU gives the class 1 row first. "
        "Across the batch CPU sorts by class as the spec does; MulticlassNms sorts by class per image.",
        _matrix_nms_class_witness),
    Deviation(
        "MulticlassNms", (8, 9), _multiclass_eta_differs,
        "nms_eta < 1: OpenVINO CPU compares each candidate with every selected box under the threshold as "
        "lowered by all selections so far (the spec's step 8 suppresses with the threshold of the moment each "
        "box is selected, so an early box never suppresses under a later, lower threshold)",
        f"{SPEC}/sort/multiclass-non-max-suppression-9.html",
        "iou_threshold 0.7, nms_eta 0.8, one class: boxes A [0,0,1,1] (0.9), B [2,2,3,3] (0.8), X [0,0,1,0.5] "
        "(0.7), IoU(A, X) = 0.5. The spec selects A (threshold 0.56: X stays), B (threshold 0.448; X does not "
        "overlap B), then X; CPU drops X (IoU with A 0.5 > 0.448). Found in 3 of 300 drawn MulticlassNms-8 "
        "cases; with nms_eta 1 or iou_threshold <= 0.5 CPU agrees.",
        _multiclass_eta_witness),
    Deviation(
        "MulticlassNms", (8, 9), _multiclass_iou_tie,
        "an IoU equal to the (adaptive) iou_threshold: OpenVINO CPU suppresses the box (the spec's step 8 "
        "suppresses only boxes whose IoU is greater than the threshold)",
        f"{SPEC}/sort/multiclass-non-max-suppression-9.html",
        "one class, boxes [0,0,1,1] (0.9), [0,0,1,0.5] (0.8), [2,2,3,3] (0.7), iou_threshold 0.5: IoU of the "
        "first two is exactly 0.5, the spec keeps all three, CPU drops the second. Found by a stimulus case with "
        "whole-pixel boxes and iou_threshold 3/8; the cases draw odd multiples of 1/2048, which such IoUs never "
        "equal. NMSRotated keeps such a box as the spec says.",
        _multiclass_tie_witness),
    Deviation(
        "NMSRotated", (13,), _rotated_score_tie,
        "a score equal to score_threshold: OpenVINO CPU drops the box (the spec's step 6 selects a box whose score "
        "is greater than or equal to score_threshold)",
        f"{SPEC}/sort/nms-rotated-13.html",
        "three boxes with scores 0.9, 0.8, 0.7 that do not overlap above the IoU threshold 0.5 (two at IoU "
        "exactly 0.5, which CPU keeps, as the spec says), score_threshold 0.7: the spec selects all three, CPU "
        "only the first two. Scores above the threshold agree.",
        _rotated_score_witness),
)
