"""Tests of opset6's ExperimentalDetectron ops and GenerateProposals-9 (issue #22): TopKROIs-6 (spec folder
"sort"), PriorGridGenerator-6, ROIFeatureExtractor-6, GenerateProposalsSingleImage-6, DetectionOutput-6 and
GenerateProposals-9 ("detection") — builder inference and errors (against OpenVINO's shape inference where
openvino is installed), IR spelling and round trip, REFERENCE kernels against literal values worked out
from the spec's steps, the case strategies (NMS and top-k really act), and the broken devices of
``tests/plugins/detectron_faults.py`` caught by the op suite.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _op_helpers import P, evaluate_node, out
from _opcase_checks import CASE_SETTINGS, check_case_runs, check_ir_spelling
from _session import assert_fails_only_its_ops, assert_passes_every_test_of, once_per_session, op_fault_runs
from hypothesis import given
from hypothesis import strategies as st
from plugins import detectron_faults as faults

from ovconform import Model, opset, read_model, serialize
from ovconform.errors import ValidationError
from ovconform.ir import Type
from ovconform.ir.op_families import family_of
from ovconform.ir.opset_table import OPSET_VERSIONS
from ovconform.opcases import all_case_keys, case_strategy, generate_cases
from reference_plugin.evaluate import evaluate
from reference_plugin.ops.op_experimental_detectron_roi_feature_extractor import pyramid_levels

F32 = np.float32
KEYS = [("ExperimentalDetectronTopKROIs", 6), ("ExperimentalDetectronPriorGridGenerator", 6),
        ("ExperimentalDetectronROIFeatureExtractor", 6), ("ExperimentalDetectronGenerateProposalsSingleImage", 6),
        ("ExperimentalDetectronDetectionOutput", 6), ("GenerateProposals", 9)]
IR_ATTRS = {
    "ExperimentalDetectronTopKROIs": ["max_rois"],
    "ExperimentalDetectronPriorGridGenerator": ["flatten", "h", "w", "stride_x", "stride_y"],
    "ExperimentalDetectronROIFeatureExtractor": ["output_size", "sampling_ratio", "pyramid_scales", "aligned"],
    "ExperimentalDetectronGenerateProposalsSingleImage": ["min_size", "nms_threshold", "pre_nms_count",
                                                          "post_nms_count"],
    "ExperimentalDetectronDetectionOutput": ["score_threshold", "nms_threshold", "max_delta_log_wh", "num_classes",
                                             "post_nms_count", "max_detections_per_image",
                                             "class_agnostic_box_regression", "deltas_weights"],
    "GenerateProposals": ["min_size", "nms_threshold", "pre_nms_count", "post_nms_count", "normalized", "nms_eta",
                          "roi_num_type"],
}
EDDO = {"score_threshold": 0.05, "nms_threshold": 0.5, "max_delta_log_wh": 4.135, "num_classes": 3,
        "post_nms_count": 10, "max_detections_per_image": 5, "class_agnostic_box_regression": True,
        "deltas_weights": [10.0, 10.0, 5.0, 5.0]}
ROI_ATTRS = {"output_size": 2, "sampling_ratio": 2, "pyramid_scales": [4, 8], "aligned": False}


@pytest.mark.parametrize(("op", "version"), KEYS)
def test_ir_spelling_versions_and_families(op: str, version: int) -> None:
    check_ir_spelling(op, version, IR_ATTRS[op])
    assert OPSET_VERSIONS[op] == (version,)
    assert family_of(op) == ("sort" if op == "ExperimentalDetectronTopKROIs" else "detection")
    assert (op, version) in all_case_keys()


# -- builders: shapes and errors ----------------------------------------------------------------------------------

def _nodes() -> list[Any]:
    f = P([7, 4])
    return [
        opset.experimental_detectron_topk_rois(P([10, 4]), P([10]), 5),
        opset.experimental_detectron_prior_grid_generator(P([3, 4]), P([1, 8, 5, 6]), P([1, 3, 40, 48]),
                                                          {"h": 5, "w": 0, "stride_x": 0.0, "stride_y": 8.0}),
        opset.experimental_detectron_prior_grid_generator(P([3, 4]), P([1, 8, 5, 6]), P([1, 3, 40, 48]),
                                                          {"flatten": False}),
        opset.experimental_detectron_roi_feature_extractor([f, P([1, 8, 20, 20]), P([1, 8, 10, 10])],
                                                           {**ROI_ATTRS, "output_size": 3}),
        opset.experimental_detectron_generate_proposals_single_image(P([3]), P([60, 4]), P([12, 4, 5]),
                                                                     P([3, 4, 5]), 0.0, 0.7, 20, 10),
        opset.experimental_detectron_detection_output(f, P([7, 12]), P([7, 3]), P([1, 3]), EDDO),
        opset.generate_proposals(P([2, 3]), P([4, 5, 3, 4]), P([2, 12, 4, 5]), P([2, 3, 4, 5]), 0.0, 0.7, 20, 10),
        opset.generate_proposals(P([2, 4]), P([4, 5, 3, 4]), P([-1, 12, 4, 5]), P([2, 3, 4, 5]), 0.0, 0.7, 20, 10,
                                 roi_num_type="i32"),
    ]


SHAPES = [["[5,4]"], ["[90,4]"], ["[5,6,3,4]"], ["[7,8,3,3]", "[7,4]"], ["[10,4]", "[10]"],
          ["[5,4]", "[5]", "[5]"], ["[0..20,4]", "[0..20]", "[2]"], ["[0..20,4]", "[0..20]", "[2]"]]


def test_builders_infer_openvinos_shapes_and_types() -> None:
    nodes = _nodes()
    assert [[out(n, i) for i in range(n.get_output_size())] for n in nodes] == SHAPES
    assert nodes[5].get_output_element_type(1) == Type.i32  # classes, as OpenVINO infers them
    assert nodes[6].get_output_element_type(2) == Type.i64 and nodes[7].get_output_element_type(2) == Type.i32
    assert nodes[6].attrs["nms_eta"] == 1.0 and nodes[6].attrs["normalized"] is True


def test_shapes_equal_openvinos_shape_inference() -> None:
    ov = pytest.importorskip("openvino")
    from openvino._pyopenvino import NodeFactory

    for node in _nodes():
        ins = [ov.opset1.parameter(list(node.get_input_partial_shape(i).to_shape()) if
                                   node.get_input_partial_shape(i).is_static else
                                   ov.PartialShape(str(node.get_input_partial_shape(i))), np.float32).output(0)
               for i in range(node.get_input_size())]
        attrs = {k: (str(v) if isinstance(v, Type) else v) for k, v in node.attrs.items()}
        theirs = NodeFactory(f"opset{node.version}").create(node.type_name, ins, attrs)
        ours = [str(node.output(i).get_partial_shape()).replace("0..", "..") for i in range(node.get_output_size())]
        assert [str(theirs.get_output_partial_shape(i)) for i in range(theirs.get_output_size())] == ours, node


@pytest.mark.parametrize(("make", "message"), [
    (lambda: opset.experimental_detectron_topk_rois(P([10, 4]), P([10]), -1), "max_rois is -1"),
    (lambda: opset.experimental_detectron_topk_rois(P([10, 5]), P([10]), 2), r"must be \[N, 4\]"),
    (lambda: opset.experimental_detectron_topk_rois(P([10, 4]), P([9]), 2), "disagree on the number of ROIs"),
    (lambda: opset.experimental_detectron_topk_rois(P([10, 4], Type.i32), P([10], Type.i32)), "floating-point"),
    (lambda: opset.experimental_detectron_prior_grid_generator(P([3, 4]), P([1, 8, 5, 6]), P([1, 3, 40, 48]),
                                                               {"h": 6}), r"'h' is 6; it must be in \[0, 5\]"),
    (lambda: opset.experimental_detectron_prior_grid_generator(P([3, 4]), P([1, 8, 5, 6]), P([1, 3, 40, 48]),
                                                               {"stride_x": -1.0}), "'stride_x' is -1.0"),
    (lambda: opset.experimental_detectron_roi_feature_extractor([P([7, 4]), P([1, 8, 20, 20])], ROI_ATTRS),
     r"pyramid_scales \[4, 8\] must hold one positive integer per pyramid level \(1 given\)"),
    (lambda: opset.experimental_detectron_roi_feature_extractor([P([7, 4]), P([1, 8, 20, 20]), P([1, 4, 9, 9])],
                                                                ROI_ATTRS), "every level must have 8 channels"),
    (lambda: opset.experimental_detectron_roi_feature_extractor([P([7, 4]), P([1, 8, 2, 2]), P([1, 8, 1, 1])],
                                                                {**ROI_ATTRS, "output_size": 0}), "output_size is 0"),
    (lambda: opset.experimental_detectron_detection_output(P([7, 4]), P([7, 12]), P([7, 3]), P([1, 3]),
                                                           {**EDDO, "deltas_weights": [1.0, 1.0]}), "deltas_weights"),
    (lambda: opset.experimental_detectron_detection_output(P([7, 4]), P([7, 8]), P([7, 3]), P([1, 3]), EDDO),
     "must have 12 and 3 columns"),
    (lambda: opset.experimental_detectron_generate_proposals_single_image(P([3]), P([60, 4]), P([12, 4, 5]),
                                                                          P([3, 4, 6]), 0.0, 0.7, 20, 10),
     "disagree on dim 2"),
    (lambda: opset.generate_proposals(P([2, 3]), P([4, 5, 3, 4]), P([2, 12, 4, 5]), P([2, 3, 4, 5]), 0.0, 0.7, 20,
                                      10, nms_eta=1.5), r"nms_eta is 1.5; it must be in \[0, 1\]"),
    (lambda: opset.generate_proposals(P([2, 3]), P([4, 5, 3, 4]), P([2, 12, 4, 5]), P([2, 3, 4, 5]), 0.0, 0.7, 20,
                                      10, roi_num_type="f32"), "roi_num_type is f32; it must be i32 or i64"),
    (lambda: opset.generate_proposals(P([2, 3]), P([4, 5, 2, 4]), P([2, 12, 4, 5]), P([2, 3, 4, 5]), 0.0, 0.7, 20,
                                      10), "disagree on the number of anchors"),
    (lambda: opset.generate_proposals(P([3, 3]), P([4, 5, 3, 4]), P([2, 12, 4, 5]), P([2, 3, 4, 5]), 0.0, 0.7, 20,
                                      10), "disagree on N"),
])
def test_builders_refuse_bad_inputs_with_the_value_and_what_is_allowed(make: Any, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        make()


def test_ir_round_trip_keeps_every_attribute() -> None:
    for node in _nodes():
        params = [node.input_value(i).node for i in range(node.get_input_size())]
        model = Model(node.outputs(), params)
        back = read_model(*serialize(model))
        (twin,) = [n for n in back.get_ordered_ops() if n.type_name == node.type_name]
        assert twin.version == node.version and twin.attrs == node.attrs
        assert [str(o.get_partial_shape()) for o in twin.outputs()] == [str(o.get_partial_shape())
                                                                         for o in node.outputs()]


# -- REFERENCE kernels against the spec's steps --------------------------------------------------------------------

def test_topk_rois_descending_and_stable_on_ties() -> None:
    rois = np.arange(20, dtype=F32).reshape(5, 4)
    probs = np.array([0.1, 0.9, 0.5, 0.9, 0.3], F32)
    (got,) = evaluate_node(opset.experimental_detectron_topk_rois(P([5, 4]), P([5]), 4), rois, probs)
    np.testing.assert_array_equal(got, rois[[1, 3, 2, 4]])


def test_prior_grid_shifts_x_by_columns_and_y_by_rows() -> None:
    priors = np.array([[-2, -3, 2, 3]], F32)
    node = opset.experimental_detectron_prior_grid_generator(P([1, 4]), P([1, 1, 2, 3]), P([1, 1, 20, 30]),
                                                             {"stride_y": 4.0})
    (got,) = evaluate_node(node, priors, np.zeros((1, 1, 2, 3), F32), np.zeros((1, 1, 20, 30), F32))
    want = [[-2 + 10 * (x + 0.5), -3 + 4 * (y + 0.5), 2 + 10 * (x + 0.5), 3 + 4 * (y + 0.5)]
            for y in range(2) for x in range(3)]  # stride_x 0: 30 / 3 columns
    np.testing.assert_array_equal(got, np.array(want, F32))
    node4d = opset.experimental_detectron_prior_grid_generator(P([1, 4]), P([1, 1, 2, 3]), P([1, 1, 20, 30]),
                                                               {"flatten": False, "stride_y": 4.0})
    (got4d,) = evaluate_node(node4d, priors, np.zeros((1, 1, 2, 3), F32), np.zeros((1, 1, 20, 30), F32))
    np.testing.assert_array_equal(got4d.reshape(-1, 4), got)


def test_prior_grid_smaller_than_the_feature_map_fills_its_rows_first() -> None:
    node = opset.experimental_detectron_prior_grid_generator(P([1, 4]), P([1, 1, 2, 3]), P([1, 1, 20, 30]),
                                                             {"h": 1, "w": 2})
    (got,) = evaluate_node(node, np.zeros((1, 4), F32), np.zeros((1, 1, 2, 3), F32), np.zeros((1, 1, 20, 30), F32))
    np.testing.assert_array_equal(got[:2], [[7.5, 10, 7.5, 10], [22.5, 10, 22.5, 10]])  # steps 30/2, 20/1
    np.testing.assert_array_equal(got[2:], 0)  # undefined in the spec; REFERENCE leaves 0


def test_roi_levels_follow_the_spec_formula() -> None:
    sides = np.array([20, 111, 113, 223, 225, 447, 449, 1000], F32)
    rois = np.stack([np.zeros_like(sides), np.zeros_like(sides), sides, sides], axis=1)
    assert pyramid_levels(rois, 4).tolist() == [0, 0, 1, 1, 2, 2, 3, 3]
    assert pyramid_levels(rois, 2).tolist() == [0, 0, 1, 1, 1, 1, 1, 1]  # clamped to the levels there are
    assert pyramid_levels(np.array([[5, 5, 5, 9]], F32), 4).tolist() == [4]  # no area: no level


@pytest.mark.parametrize("aligned", [False, True])
def test_roi_features_are_roialign_on_the_mapped_level(aligned: bool) -> None:
    rng = np.random.default_rng(3)
    maps = [rng.uniform(-1, 1, (1, 2, 16, 16)).astype(F32), rng.uniform(-1, 1, (1, 2, 8, 8)).astype(F32)]
    rois = np.array([[4, 6, 40, 30], [0, 0, 60, 63], [10, 3, 200, 190]], F32)  # levels 0, 0, 1
    attrs = {**ROI_ATTRS, "aligned": aligned}
    node = opset.experimental_detectron_roi_feature_extractor([P([3, 4]), P([1, 2, 16, 16]), P([1, 2, 8, 8])], attrs)
    features, rois_out = evaluate_node(node, rois, *maps)
    np.testing.assert_array_equal(rois_out, rois)
    for r, level in enumerate([0, 0, 1]):
        roi = rois[r:r + 1] - (0.5 * 4 * 2 ** level if aligned else 0)  # ROIAlign asymmetric, shifted by half a pixel
        align = opset.roi_align(P([1, 2, 16 >> level, 16 >> level]), P([1, 4]), P([1], Type.i32), 2, 2, 2,
                                1 / (4 * 2 ** level), "avg", version=9)
        (want,) = evaluate_node(align, maps[level], roi.astype(F32), np.zeros(1, np.int32))
        np.testing.assert_allclose(features[r], want[0], rtol=1e-6, atol=1e-6)


def _single(anchors: np.ndarray, scores: np.ndarray, deltas: np.ndarray | None = None, *, min_size: float = 0.0,
            nms: float = 0.5, pre: int = 10, post: int = 4, image: tuple[int, int] = (100, 100)) -> list[np.ndarray]:
    a, w = scores.shape[0], scores.shape[2]
    deltas = np.zeros((4 * a, 1, w), F32) if deltas is None else deltas
    node = opset.experimental_detectron_generate_proposals_single_image(
        P([3]), P(list(anchors.shape)), P(list(deltas.shape)), P(list(scores.shape)), min_size, nms, pre, post)
    return evaluate_node(node, np.array([*image, 1], F32), anchors, deltas, scores)


def test_single_image_nms_keeps_the_best_of_overlapping_boxes_and_pads_with_zeros() -> None:
    anchors = np.array([[0, 0, 20, 20], [1, 1, 21, 21], [50, 50, 70, 70]], F32)  # W = 3 positions, A = 1
    rois, scores = _single(anchors, np.array([[[0.5, 0.9, 0.7]]], F32))
    np.testing.assert_array_equal(rois, [[1, 1, 21, 21], [50, 50, 70, 70], [0, 0, 0, 0], [0, 0, 0, 0]])
    np.testing.assert_array_equal(scores, F32([0.9, 0.7, 0, 0]))
    rois, _ = _single(anchors, np.array([[[0.5, 0.9, 0.7]]], F32), nms=0.95)  # IoU 0.82 < 0.95: both stay
    assert rois[:3].tolist() == [[1, 1, 21, 21], [50, 50, 70, 70], [0, 0, 20, 20]]


def test_single_image_removes_small_boxes_decodes_and_clips() -> None:
    anchors = np.array([[0, 0, 20, 20], [40, 40, 42, 42]], F32)
    rois, scores = _single(anchors, np.array([[[0.5, 0.9]]], F32), min_size=4.0, post=2)
    np.testing.assert_array_equal(rois, [[0, 0, 20, 20], [0, 0, 0, 0]])  # the 3-px box is removed, not kept at 0
    np.testing.assert_array_equal(scores, F32([0.5, 0]))
    deltas = np.zeros((4, 1, 2), F32)
    deltas[:, 0, 0] = [0.5, -0.25, np.log(2), 5.0]  # d_log_h past log(1000 / 16) is clamped
    rois, _ = _single(anchors, np.array([[[0.9, 0.5]]], F32), deltas, post=1, image=(400, 30))
    w, cx = 21 * 2, 10.5 + 0.5 * 21
    h = 21 * np.exp(F32(np.log(1000 / 16)))
    cy = 10.5 - 0.25 * 21
    want = [max(0, cx - w / 2), max(0, cy - h / 2), min(29, cx + w / 2 - 1), min(399, cy + h / 2 - 1)]
    np.testing.assert_allclose(rois[0], want, rtol=1e-6)


def _gp(anchors: np.ndarray, scores: np.ndarray, info: np.ndarray, **kw: Any) -> list[np.ndarray]:
    n, a, h, w = scores.shape
    deltas = np.zeros((n, 4 * a, h, w), F32)
    args = {"min_size": 0.0, "nms_threshold": 0.7, "pre_nms_count": 10, "post_nms_count": 10, **kw}
    node = opset.generate_proposals(P(list(info.shape)), P(list(anchors.shape)), P(list(deltas.shape)),
                                    P(list(scores.shape)), **args)
    return evaluate_node(node, info, anchors, deltas, scores)


def test_generate_proposals_adaptive_nms_threshold() -> None:
    anchors = np.array([[[[0, 0, 10, 10], [0, 2, 10, 12], [4, 0, 14, 10]]]], F32)  # IoU 0.67 and 0.43 with box 0
    scores = np.array([0.9, 0.8, 0.7], F32).reshape(1, 3, 1, 1)
    info = np.array([[100, 100, 1]], F32)
    rois, probs, counts = _gp(anchors, scores, info)
    np.testing.assert_array_equal(rois, anchors[0, 0])
    assert probs.tolist() == pytest.approx([0.9, 0.8, 0.7]) and counts.tolist() == [3]
    rois, _, counts = _gp(anchors, scores, info, nms_eta=0.5)  # 0.7 -> 0.35 after the first box
    np.testing.assert_array_equal(rois, anchors[0, 0, :1])
    assert counts.dtype == np.int64 and counts.tolist() == [1]
    rois, _, _ = _gp(anchors, scores, info, nms_threshold=0.5, nms_eta=0.5)  # 0.5 is not above 0.5: no change
    np.testing.assert_array_equal(rois, anchors[0, 0, [0, 2]])


def test_generate_proposals_per_image_counts_offset_and_scaled_min_size() -> None:
    anchors = np.array([[[[0, 0, 9, 9], [20, 20, 23, 23]]]], F32)  # 10 and 4 px wide when not normalized
    scores = np.array([[0.9, 0.8], [0.3, 0.6]], F32).reshape(2, 2, 1, 1)
    info = np.array([[100, 100, 1], [100, 100, 2]], F32)
    rois, probs, counts = _gp(anchors, scores, info, min_size=3.0, normalized=False, roi_num_type="i32")
    assert counts.dtype == np.int32 and counts.tolist() == [2, 1]  # image 1: 4 < 3 * 2, the small box goes
    np.testing.assert_array_equal(rois, [[0, 0, 9, 9], [20, 20, 23, 23], [0, 0, 9, 9]])
    assert probs.tolist() == pytest.approx([0.9, 0.8, 0.3])
    _, _, counts = _gp(anchors, scores, info, min_size=3.5)  # normalized: 3 px wide, below 3.5
    assert counts.tolist() == [1, 1]


def _eddo(rois: np.ndarray, scores: np.ndarray, deltas: np.ndarray | None = None, **kw: Any) -> list[np.ndarray]:
    n, c = scores.shape
    deltas = np.zeros((n, 4 * c), F32) if deltas is None else deltas
    attrs = {**EDDO, "num_classes": c, **kw}
    node = opset.experimental_detectron_detection_output(P([n, 4]), P([n, 4 * c]), P([n, c]), P([1, 3]), attrs)
    return evaluate_node(node, rois, deltas, scores, np.array([[256, 256, 1]], F32))


def test_detection_output_orders_class_major_or_by_score_when_truncated() -> None:
    rois = np.array([[10, 10, 40, 40], [100, 100, 140, 150], [11, 10, 41, 40]], F32)
    scores = np.array([[0.0, 0.3, 0.8], [0.0, 0.9, 0.2], [0.0, 0.4, 0.01]], F32)
    boxes, classes, probs = _eddo(rois, scores)  # class 1: ROI 1, ROI 2 (ROI 0 suppressed by 2); class 2: 0, 1
    assert classes.tolist() == [1, 1, 2, 2, 0] and probs.tolist() == pytest.approx([0.9, 0.4, 0.8, 0.2, 0])
    np.testing.assert_array_equal(boxes[:4], rois[[1, 2, 0, 1]])
    np.testing.assert_array_equal(boxes[4], 0)
    boxes, classes, probs = _eddo(rois, scores, max_detections_per_image=3)
    assert classes.tolist() == [1, 2, 1] and probs.tolist() == pytest.approx([0.9, 0.8, 0.4])
    _, classes, probs = _eddo(rois, scores, post_nms_count=1, max_detections_per_image=2)
    assert classes.tolist() == [1, 2] and probs.tolist() == pytest.approx([0.9, 0.8])


def test_detection_output_background_and_clipping_follow_the_spec() -> None:
    rois = np.array([[200, 210, 300, 290]], F32)
    scores = np.array([[0.6, 0.5]], F32)
    boxes, classes, probs = _eddo(rois, scores, max_detections_per_image=2, class_agnostic_box_regression=False)
    assert classes.tolist() == [0, 1] and probs.tolist() == pytest.approx([0.6, 0.5])
    np.testing.assert_array_equal(boxes, [[200, 210, 255, 255]] * 2)
    _, classes, _ = _eddo(rois, scores, max_detections_per_image=2)
    assert classes.tolist() == [1, 0]  # class_agnostic_box_regression true: no background; a zero row
    deltas = np.zeros((1, 8), F32)
    deltas[0, 4:] = [10, -10, 5 * np.log(2), 0]  # weights 10, 10, 5, 5: dx 1, dy -1, width x2
    boxes, _, _ = _eddo(np.array([[10, 20, 29, 39]], F32), scores, deltas, max_detections_per_image=1)
    np.testing.assert_allclose(boxes[0], [40 - 20, 10 - 10, 40 + 20 - 1, 10 + 10 - 1], rtol=1e-6)  # centre (40, 10)


# -- the case strategies --------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("op", "version"), KEYS)
@CASE_SETTINGS
@given(data=st.data())
def test_cases_are_valid_and_run(op: str, version: int, data: st.DataObject) -> None:
    case = data.draw(case_strategy(op, version))
    node, outs = check_case_runs(case, op, version)
    for i, got in enumerate(outs):
        assert got.dtype == node.output(i).get_element_type().to_dtype()
        assert np.all(np.isfinite(got.astype(np.float64)))
    if op == "ExperimentalDetectronTopKROIs":
        assert node.attrs["max_rois"] <= case.inputs["input_rois"].shape[0]  # no undefined rows
    if op == "ExperimentalDetectronDetectionOutput":
        assert np.all(outs[2] > 0)  # max_detections_per_image detections, no undefined rows
        assert np.all(outs[0][:, 2:] <= 255)  # nothing to clip above (OpenVINO CPU does not)


def _survivors(op: str, outs: list[np.ndarray]) -> int:
    if op == "GenerateProposals":
        return int(outs[2].sum())
    return int(np.count_nonzero(outs[1]))


@pytest.mark.parametrize("op", ["ExperimentalDetectronGenerateProposalsSingleImage", "GenerateProposals",
                                "ExperimentalDetectronDetectionOutput"])
def test_nms_and_top_n_act_in_the_first_cases(op: str) -> None:
    """Among the op suite's first cases, NMS removes boxes (fewer survive than NMS had) and top-n cuts."""
    version = 9 if op == "GenerateProposals" else 6
    suppressed = limited = 0
    for case in generate_cases(op, version, 10):
        (node,) = [n for n in case.model.get_ordered_ops() if n.type_name == op]
        outs = evaluate(case.model, case.inputs)
        relaxed = Model(_rebuilt(node).outputs(), case.model.get_parameters())
        wide = evaluate(relaxed, case.inputs)
        suppressed += _survivors(op, outs) < _survivors(op, wide)
        if op == "ExperimentalDetectronDetectionOutput":
            limited += node.attrs["max_detections_per_image"] < _survivors(op, wide)
        else:
            scores = case.inputs["scores"]
            per_image = scores[0].size if op == "GenerateProposals" else scores.size
            limited += node.attrs["pre_nms_count"] < per_image
    assert suppressed >= 3 and limited >= 2, f"NMS acted in {suppressed} of 10 cases, the limit in {limited}"


def _rebuilt(node: Any) -> Any:
    """The node with NMS switched off (threshold 1) and no output limit below the boxes there are."""
    ins = [node.input_value(i) for i in range(node.get_input_size())]
    a = dict(node.attrs)
    if node.type_name == "ExperimentalDetectronDetectionOutput":
        a.update(nms_threshold=1.0, max_detections_per_image=10_000, post_nms_count=10_000)
        return opset.experimental_detectron_detection_output(*ins, a)
    a.update(nms_threshold=1.0)
    if node.type_name == "GenerateProposals":
        return opset.generate_proposals(*ins, **a)
    return opset.experimental_detectron_generate_proposals_single_image(*ins, **a)


# -- the broken devices ---------------------------------------------------------------------------------------------

ALL = sorted(set(faults.OPS.values()))


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, dict[str, Any]]]:
    return once_per_session(tmp_path_factory, "detectron_fault_runs",
                            lambda d: op_fault_runs(d, "detectron_faults", list(faults.FAULTS), ALL))


def test_reference_passes_every_test_of_these_ops(runs: dict[str, Any]) -> None:
    assert_passes_every_test_of(runs["REFERENCE"], ALL)


@pytest.mark.parametrize("fault", sorted(faults.FAULTS))
def test_each_fault_fails_its_op_only(runs: dict[str, Any], fault: str) -> None:
    assert_fails_only_its_ops(runs[getattr(faults, fault).device_name], fault, [faults.OPS[fault]])
