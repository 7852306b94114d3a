"""OpenVINO CPU deviations from the spec for opset6's ExperimentalDetectron ops and GenerateProposals-9
(records as in openvino_deviations.py). The case strategies keep away from them (their docstrings say
how); the predicates are the safety net of the cross-check."""

from __future__ import annotations

import numpy as np
from openvino_deviations import SPEC, Deviation, Witness, _case, _param, input_value, op_nodes

from ovconform import opset as ops
from ovconform.ir import Node
from ovconform.opcases import OpCase
from reference_plugin.ops.op_experimental_detectron_detection_output import refine
from reference_plugin.ops.op_experimental_detectron_generate_proposals_single_image import single_image
from reference_plugin.ops.op_generate_proposals import image_boxes

F32 = np.float32


def _inputs(case: OpCase, node: Node, count: int) -> list[np.ndarray] | None:
    values = [input_value(case, node, i) for i in range(count)]
    return None if any(v is None for v in values) else [np.asarray(v, np.float32) for v in values]


# -- ExperimentalDetectronDetectionOutput-6 ----------------------------------------------------------------------

def _eddo_background_passes(case: OpCase) -> bool:
    for node in op_nodes(case, "ExperimentalDetectronDetectionOutput", (6,)):
        if node.attrs["class_agnostic_box_regression"]:
            continue
        values = _inputs(case, node, 4)
        if values is None or np.any(values[2][:, 0] > F32(node.attrs["score_threshold"])):
            return True
    return False


def _eddo_box_past_image(case: OpCase) -> bool:
    for node in op_nodes(case, "ExperimentalDetectronDetectionOutput", (6,)):
        values = _inputs(case, node, 4)
        if values is None:
            return True
        rois, deltas, _, info = values
        free = refine(rois, deltas, np.array([np.inf, np.inf], F32), dict(node.attrs))
        info = info.reshape(-1)
        if np.any(free[..., 0::2] > info[1] - 1) or np.any(free[..., 1::2] > info[0] - 1):
            return True
    return False


def _eddo_case(rois: np.ndarray, scores: np.ndarray, agnostic: bool, limit: int) -> OpCase:
    n, classes = scores.shape
    deltas = np.zeros((n, 4 * classes), np.float32)
    info = np.array([[256, 256, 1]], np.float32)
    values = {"rois": rois, "deltas": deltas, "scores": scores, "im_info": info}
    params = [_param(name, value) for name, value in values.items()]
    attrs = {"score_threshold": 0.05, "nms_threshold": 0.5, "max_delta_log_wh": 4.135, "num_classes": classes,
             "post_nms_count": 10, "max_detections_per_image": limit, "class_agnostic_box_regression": agnostic,
             "deltas_weights": [10.0, 10.0, 5.0, 5.0]}
    node = ops.experimental_detectron_detection_output(*params, attrs)
    return _case("ExperimentalDetectronDetectionOutput", 6, node.outputs(), params, values)


def _eddo_background_witness() -> Witness:
    rois, scores = np.array([[10, 10, 50, 60]], np.float32), np.array([[0.9, 0.8]], np.float32)
    box = np.array([10, 10, 50, 60], np.float32)
    return Witness(_eddo_case(rois, scores, False, 2),
                   [np.stack([box, box]), np.array([0, 1], np.int32), np.array([0.9, 0.8], np.float32)])


def _eddo_clip_witness() -> Witness:
    rois, scores = np.array([[200, 210, 300, 290]], np.float32), np.array([[0.01, 0.8]], np.float32)
    return Witness(_eddo_case(rois, scores, True, 1),
                   [np.array([[200, 210, 255, 255]], np.float32), np.array([1], np.int32),
                    np.array([0.8], np.float32)])


EDDO_DEVIATIONS: tuple[Deviation, ...] = (
    Deviation(
        "ExperimentalDetectronDetectionOutput", (6,), _eddo_background_passes,
        "class_agnostic_box_regression false: OpenVINO CPU never returns the background class 0 (the spec: "
        "'false means background classes should not be deleted')",
        f"{SPEC}/detection/experimental-detectron-detection-output-6.html",
        "one ROI [10, 10, 50, 60], zero deltas, scores [0.9, 0.8] (classes 0 and 1), threshold 0.05, "
        "max_detections_per_image 2: the spec gives class 0 (0.9) then class 1 (0.8); CPU gives class 1 and a zero "
        "row. OpenVINO's reference code also starts at class 1. With true both drop class 0.",
        _eddo_background_witness),
    Deviation(
        "ExperimentalDetectronDetectionOutput", (6,), _eddo_box_past_image,
        "a refined box past the image's right or bottom edge: OpenVINO CPU clips only at 0 (the spec clips boxes to "
        "the image)",
        f"{SPEC}/detection/experimental-detectron-detection-output-6.html",
        "ROI [200, 210, 300, 290] in a 256 x 256 image, zero deltas, class 1 score 0.8: the spec gives "
        "[200, 210, 255, 255]; CPU gives [200, 210, 300, 290] (as OpenVINO's reference code, which reads im_info "
        "but never uses it).",
        _eddo_clip_witness),
)


# -- ExperimentalDetectronGenerateProposalsSingleImage-6 ----------------------------------------------------------

def _single_small_box_fills_a_row(case: OpCase) -> bool:
    for node in op_nodes(case, "ExperimentalDetectronGenerateProposalsSingleImage", (6,)):
        values = _inputs(case, node, 4)
        if values is None:
            return True
        info, anchors, deltas, scores = values
        a = node.attrs
        boxes, _ = image_boxes(anchors, deltas, scores, info[0], info[1], F32(1))
        sizes = np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]) + F32(1)
        kept, _ = single_image(info, anchors, deltas, scores, a["min_size"], a["nms_threshold"], a["pre_nms_count"],
                               a["post_nms_count"])
        if np.any(sizes < F32(a["min_size"])) and len(kept) < a["post_nms_count"]:
            return True
    return False


def _single_witness() -> Witness:
    values = {"im_info": np.array([100, 100, 1], np.float32),
              "anchors": np.array([[10, 10, 40, 40], [60, 60, 61, 61]], np.float32),
              "deltas": np.zeros((4, 1, 2), np.float32), "scores": np.array([[[0.9, 0.8]]], np.float32)}
    params = [_param(name, value) for name, value in values.items()]
    node = ops.experimental_detectron_generate_proposals_single_image(*params, 4.0, 0.7, 10, 2)
    case = _case("ExperimentalDetectronGenerateProposalsSingleImage", 6, node.outputs(), params, values)
    return Witness(case, [np.array([[10, 10, 40, 40], [0, 0, 0, 0]], np.float32), np.array([0.9, 0], np.float32)])


SINGLE_DEVIATIONS: tuple[Deviation, ...] = (
    Deviation(
        "ExperimentalDetectronGenerateProposalsSingleImage", (6,), _single_small_box_fills_a_row,
        "a proposal below min_size with fewer survivors than post_nms_count: OpenVINO CPU keeps it with score 0 in "
        "a row the spec fills with zeros (the spec removes it)",
        f"{SPEC}/detection/experimental-detectron-generate-proposals-single-image-6.html",
        "anchors [10, 10, 40, 40] (score 0.9) and [60, 60, 61, 61] (0.8, 2 px wide), zero deltas, min_size 4, "
        "post_nms_count 2: the spec gives the first box then a zero row and scores [0.9, 0]; CPU gives "
        "[60, 60, 61, 61] with score 0 as the second row (as OpenVINO's reference code).",
        _single_witness),
)


# -- GenerateProposals-9 -------------------------------------------------------------------------------------------

def _gp_eta_below_one(case: OpCase) -> bool:
    return any(node.attrs["nms_eta"] != 1.0 for node in op_nodes(case, "GenerateProposals", (9,)))


def _gp_eta_witness() -> Witness:
    anchors = np.array([[[[0, 0, 10, 10], [0, 2, 10, 12], [4, 0, 14, 10]]]], np.float32)  # [1, 1, 3, 4]
    values = {"im_info": np.array([[100, 100, 1]], np.float32), "anchors": anchors,
              "deltas": np.zeros((1, 12, 1, 1), np.float32),
              "scores": np.array([0.9, 0.8, 0.7], np.float32).reshape(1, 3, 1, 1)}
    params = [_param(name, value) for name, value in values.items()]
    node = ops.generate_proposals(*params, 0.0, 0.7, 10, 10, normalized=True, nms_eta=0.5)
    case = _case("GenerateProposals", 9, node.outputs(), params, values)
    return Witness(case, [anchors[0, 0, :1], np.array([0.9], np.float32), np.array([1], np.int64)])


GP_DEVIATIONS: tuple[Deviation, ...] = (
    Deviation(
        "GenerateProposals", (9,), _gp_eta_below_one,
        "nms_eta below 1: OpenVINO refuses the model ('Check m_attrs.nms_eta == 1.0 failed'); the spec allows "
        "[0, 1] and adapts the NMS threshold",
        f"{SPEC}/detection/generate-proposals-9.html",
        "anchors [0, 0, 10, 10], [0, 2, 10, 12], [4, 0, 14, 10] (scores 0.9, 0.8, 0.7; IoU 0.67 and 0.43 with the "
        "first), zero deltas, nms_threshold 0.7, nms_eta 0.5: the spec keeps the first box, the threshold drops to "
        "0.35 and removes the other two; OpenVINO's validation refuses the node (its CPU kernel and reference code "
        "have no nms_eta).",
        _gp_eta_witness, openvino_refuses=True),
)

DEVIATIONS: tuple[Deviation, ...] = (*EDDO_DEVIATIONS, *SINGLE_DEVIATIONS, *GP_DEVIATIONS)
