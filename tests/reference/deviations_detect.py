"""OpenVINO CPU deviations from the spec for the "detect" family (records as in openvino_deviations.py)."""

from __future__ import annotations

import numpy as np
from openvino_deviations import SPEC, Deviation, Witness, _case, _param, input_value, op_nodes

from ovconform import opset as ops
from ovconform.ir import Node
from ovconform.opcases import OpCase
from reference_plugin.evaluate import evaluate
from reference_plugin.ops.op_non_max_suppression import corners, iou, select


def _sparse_empty_constant_indices(case: OpCase) -> bool:
    for node in op_nodes(case, "SparseFillEmptyRows", (16,)):
        src = node.input_value(2).node
        if src.type_name == "Constant" and np.asarray(src.data).size == 0:
            return True
    return False


def _sparse_empty_witness() -> Witness:
    values, default = np.zeros(0, np.float32), np.array(7, np.float32)
    pv, pd = _param("values", values), _param("default_value", default)
    node = ops.sparse_fill_empty_rows(pv, ops.constant(np.array([3, 2], np.int32)),
                                      ops.constant(np.zeros((0, 2), np.int32)), pd)
    case = _case("SparseFillEmptyRows", 16, node.outputs(), [pv, pd], {"values": values, "default_value": default})
    expected = [np.array([[0, 0], [1, 0], [2, 0]], np.int32), np.full(3, 7, np.float32), np.ones(3, bool)]
    return Witness(case, expected)




SPARSE_DEVIATIONS: tuple[Deviation, ...] = (
    Deviation(
        "SparseFillEmptyRows", (16,), _sparse_empty_constant_indices,
        "no entries, with indices a Constant: OpenVINO CPU returns uninitialized memory in place of the first "
        "default entries (the spec gives one (row, 0) = default_value entry per row)",
        f"{SPEC}/sparse/sparse-fill-empty-rows-16.html",
        "values [] (f32), dense_shape [3, 2] and indices [0, 2] as Constants, default 7: the spec gives indices "
        "[[0, 0], [1, 0], [2, 0]] and values [7, 7, 7]; CPU gives indices [[-55505146, 21931], [0, 0], [1, 0]] "
        "and values [-7.6e36, 3e-41, 0]. With indices (and dense_shape) as Parameters CPU follows the spec.",
        _sparse_empty_witness),
)


# -- NonMaxSuppression --------------------------------------------------------------------------------------------

def _nms_inputs(case: OpCase, node: Node) -> tuple[np.ndarray, np.ndarray, list[float]] | None:
    values = [input_value(case, node, i) for i in range(node.get_input_size())]
    if any(v is None for v in values):
        return None
    scalars = [float(np.asarray(v).reshape(-1)[0]) for v in values[2:]]
    scalars += [0.0] * (4 - len(scalars))
    boxes = corners(np.asarray(values[0], np.float32), node.attrs["box_encoding"] == "center")
    return boxes, np.asarray(values[1], np.float32), scalars


def _nms_selected(case: OpCase, node: Node) -> int | None:
    found = _nms_inputs(case, node)
    if found is None:
        return None
    boxes, scores, (limit, iou_thr, score_thr, sigma) = found
    return sum(len(select(boxes[b], scores[b, c], int(limit), np.float32(iou_thr), np.float32(score_thr),
                          np.float32(sigma), node.version))
               for b in range(scores.shape[0]) for c in range(scores.shape[1]))


def _nms_fixed_size_differs(case: OpCase) -> bool:
    for node in op_nodes(case, "NonMaxSuppression", (1, 3, 4)):
        found = _nms_inputs(case, node)
        selected = _nms_selected(case, node)
        if found is None or selected is None:
            return True
        _, scores, (limit, *_) = found
        b, c, n = scores.shape
        size = min(n, max(int(limit), 0) * c) if node.version < 4 else b * c * min(n, max(int(limit), 0))
        if selected != size:
            return True
    return False


def _nms_iou_tie(case: OpCase) -> bool:
    for node in op_nodes(case, "NonMaxSuppression", (1, 3, 4, 5, 9)):
        found = _nms_inputs(case, node)
        if found is None:
            return True
        boxes, _, (_, iou_thr, _, _) = found
        for batch in boxes:
            for k in range(batch.shape[0]):
                if (iou(batch[k], batch) == np.float32(iou_thr)).any():
                    return True
    return False


def _nms_case(version: int, boxes: np.ndarray, scores: np.ndarray, limit: int, iou_thr: float) -> tuple[OpCase, Node]:
    pb, ps = _param("boxes", boxes), _param("scores", scores)
    node = ops.non_max_suppression(pb, ps, np.array(limit, np.int64), np.array(iou_thr, np.float32),
                                   np.array(0.0, np.float32), version=version)
    case = _case("NonMaxSuppression", version, node.outputs(), [pb, ps], {"boxes": boxes, "scores": scores})
    return case, node


_BOXES = np.array([[[0, 0, 1, 1], [2, 2, 3, 3], [0, 0, 1, 1], [0.5, 0, 1.5, 1]]], np.float32)
_SCORES = np.array([[[0.9, 0.8, 0.7, 0.6], [0.1, 0.95, 0.3, 0.2]]], np.float32)



def _nms_padding_witness_short() -> Witness:
    case, _ = _nms_case(4, _BOXES, _SCORES, 3, 0.2)
    rows = [[0, 1, 1], [0, 0, 0], [0, 0, 1], [0, 1, 2], [-1, -1, -1], [-1, -1, -1]]
    return Witness(case, [np.array(rows, np.int64)])


def _nms_tie_witness() -> Witness:
    case, _ = _nms_case(9, _BOXES, _SCORES, 10, 1 / 3)  # IoU(box 0, box 3) is exactly 1/3 in f32
    rows = [[0, 1, 1], [0, 0, 0], [0, 0, 1], [0, 0, 3], [0, 1, 2], [0, 1, 3]]
    scores = [[0, 1, 0.95], [0, 0, 0.9], [0, 0, 0.8], [0, 0, 0.6], [0, 1, 0.3], [0, 1, 0.2]]
    return Witness(case, [np.array(rows, np.int64), np.array(scores, np.float32), np.array([6], np.int64)])


def _nms5_soft(case: OpCase) -> bool:
    for node in op_nodes(case, "NonMaxSuppression", (5,)):
        found = _nms_inputs(case, node)
        if found is None or found[2][3] > 0:
            return True
    return False


def _nms5_soft_witness() -> Witness:
    boxes = np.array([[[2.5782301, 2.9474514, 2.2406826, 1.2324625], [1.5332203, 0.6345145, 1.5339261, 2.9350324],
                       [2.2147918, 0.93873626, 2.4099584, 2.578233]]], np.float32)
    scores = np.array([[[0.1405, 0.5545, 0.5215]]], np.float32)
    pb, ps = _param("boxes", boxes), _param("scores", scores)
    node = ops.non_max_suppression(pb, ps, np.array(2, np.int64), np.array(0.25, np.float32),
                                   np.array(0.0, np.float32), np.array(1.0, np.float32), box_encoding="center",
                                   sort_result_descending=False, version=5)
    case = _case("NonMaxSuppression", 5, node.outputs(), [pb, ps], {"boxes": boxes, "scores": scores})
    expected = evaluate(case.model, [boxes, scores])  # box 1, then box 0 (box 2 overlaps box 1 too much)
    assert expected[0][:, 2].tolist() == [1, 0]
    return Witness(case, expected)


NMS_DEVIATIONS: tuple[Deviation, ...] = (
    Deviation(
        "NonMaxSuppression", (5,), _nms5_soft,
        "soft_nms_sigma > 0: OpenVINO CPU keeps (and decays) boxes whose IoU with a selected box exceeds "
        "iou_threshold, as version 9 does; NonMaxSuppression-5's func drops them (0 when iou > iou_threshold)",
        f"{SPEC}/sort/no-max-suppression-5.html",
        "3 centre-encoded boxes, scores [0.14, 0.55, 0.52], M 2, IoU threshold 0.25, sigma 1: box 2 overlaps the "
        "selected box 1 with IoU > 0.25, so the spec selects boxes 1 and 0; CPU selects 1 and 2 (with the "
        "decayed score). With sigma 0 CPU follows the spec.",
        _nms5_soft_witness),
    Deviation(
        "NonMaxSuppression", (1, 3, 4), _nms_fixed_size_differs,
        "fewer (or more) selected boxes than the fixed output size: OpenVINO CPU returns exactly the selected "
        "rows (the spec's output has min(N, M * C) rows for versions 1 and 3, B * C * min(N, M) for version 4, "
        "the unused ones filled with -1)",
        f"{SPEC}/sort/no-max-suppression-4.html",
        "boxes [[0,0,1,1], [2,2,3,3], [0,0,1,1], [0.5,0,1.5,1]], scores [[0.9, 0.8, 0.7, 0.6], [0.1, 0.95, 0.3, "
        "0.2]], M 3, IoU threshold 0.2: the spec gives 4 rows and two rows of -1 (the node's shape is [6, 3]); "
        "CPU returns a [4, 3] tensor. Versions 1 and 3 (declared [min(4, 3 * 2), 3] = [4, 3]) return all 6 "
        "selected rows for IoU threshold 0.5. With every slot filled CPU agrees.",
        _nms_padding_witness_short),
    Deviation(
        "NonMaxSuppression", (1, 3, 4, 5, 9), _nms_iou_tie,
        "an IoU equal to iou_threshold: OpenVINO CPU suppresses the box (the spec removes only boxes whose IoU "
        "is greater than the threshold)",
        f"{SPEC}/sort/no-max-suppression-9.html",
        "the boxes above with IoU threshold 1/3: box 3 overlaps box 0 with IoU exactly 1/3 (f32), the spec keeps "
        "it for class 0, CPU drops it; threshold 0 drops disjoint boxes (IoU 0) and threshold 1 drops "
        "duplicates likewise, in every version.",
        _nms_tie_witness),
)

# -- Proposal ------------------------------------------------------------------------------------------------------

def _proposal_tf_non_square(case: OpCase) -> bool:
    for node in op_nodes(case, "Proposal", (1, 4)):
        image = input_value(case, node, 2)
        if node.attrs["framework"] == "tensorflow" and (image is None or image.reshape(-1)[0] != image.reshape(-1)[1]):
            return True
    return False


def _proposal_tf_witness() -> Witness:
    probs = np.array([[[[0.2]], [[0.9]]]], np.float32)
    deltas, image = np.zeros((1, 4, 1, 1), np.float32), np.array([40, 48, 1], np.float32)
    params = [_param(name, value) for name, value in (("class_probs", probs), ("bbox_deltas", deltas),
                                                      ("image_shape", image))]
    attrs = {"base_size": 16, "pre_nms_topn": 1, "post_nms_topn": 1, "nms_thresh": 0.5, "feat_stride": 16,
             "min_size": 1, "ratio": [1.0], "scale": [6.0], "framework": "tensorflow"}
    node = ops.proposal(*params, attrs)
    case = _case("Proposal", 4, node.outputs(), params,
                 {"class_probs": probs, "bbox_deltas": deltas, "image_shape": image})
    return Witness(case, [np.array([[0, 0, 0, 48, 40]], np.float32), np.array([0.9], np.float32)])


PROPOSAL_DEVIATIONS: tuple[Deviation, ...] = (
    Deviation(
        "Proposal", (1, 4), _proposal_tf_non_square,
        "framework tensorflow with image height != width: OpenVINO CPU clips x to the image height and y to its "
        "width (the spec's reference clips x to the width, y to the height)",
        f"{SPEC}/detection/proposal-4.html",
        "one 96 x 96 anchor at (0, 0), zero deltas, image [40, 48, 1]: the spec gives the ROI [0, 0, 48, 40]; CPU "
        "gives [0, 0, 40, 48]. Square images agree, and the Caffe framework clips as the spec does.",
        _proposal_tf_witness),
)

DEVIATIONS: tuple[Deviation, ...] = (*SPARSE_DEVIATIONS, *NMS_DEVIATIONS, *PROPOSAL_DEVIATIONS)
