"""Tier-3 "detect" family, part 6: DetectionOutput-1/8 and Proposal-1/4 — IR attributes, builder inference and
errors, and the REFERENCE kernel on hand-computed detections."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from ovconform import opset
from ovconform.errors import ValidationError
from ovconform.ir import Model, Node, get_opdef
from ovconform.opcases import OpCase, all_case_keys, case_strategy
from reference_plugin._evaluate import evaluate

P = opset.parameter
DO_ATTRS = ["background_label_id", "top_k", "variance_encoded_in_target", "keep_top_k", "code_type",
            "share_location", "nms_threshold", "confidence_threshold", "clip_after_nms", "clip_before_nms",
            "decrease_label_id", "normalized", "input_height", "input_width", "objectness_score"]
BASE = {"keep_top_k": [-1], "nms_threshold": 0.5, "normalized": True, "variance_encoded_in_target": True}
# two priors: [0, 0, 0.4, 0.4] and [0.1, 0.1, 0.5, 0.5] (IoU 0.9 / 2.3), a third far away
PRIORS = np.array([[[0, 0, 0.4, 0.4, 0.1, 0.1, 0.5, 0.5, 0.6, 0.6, 1, 1]]], np.float32)


def run(node: Node, *inputs: np.ndarray) -> np.ndarray:
    params = [n for n in (node.input_value(i).node for i in range(node.get_input_size())) if n.type_name == "Parameter"]
    (out,) = evaluate(Model(node.outputs(), params), list(inputs))
    return out.reshape(-1, 7)


def detect(attrs: dict[str, Any], loc: np.ndarray, conf: np.ndarray, priors: np.ndarray = PRIORS,
           version: int = 8) -> np.ndarray:
    node = opset.detection_output(P(list(loc.shape)), P(list(conf.shape)), P(list(priors.shape)), {**BASE, **attrs},
                                  version=version)
    return run(node, loc, conf, priors)


def test_attributes_and_cases() -> None:
    assert [a.name for a in get_opdef("DetectionOutput", 8).attrs] == DO_ATTRS
    assert [a.name for a in get_opdef("DetectionOutput", 1).attrs] == ["num_classes", *DO_ATTRS]
    assert {("DetectionOutput", 1), ("DetectionOutput", 8)} <= set(all_case_keys())


@pytest.mark.parametrize(("attrs", "rows"), [({"keep_top_k": [4]}, 8), ({"top_k": 2}, 12), ({}, 18)])
def test_output_rows(attrs: dict[str, Any], rows: int) -> None:
    node = opset.detection_output(P([2, 12]), P([2, 9]), P([1, 1, 12]), {**BASE, **attrs})
    assert str(node.output(0).get_partial_shape()) == f"[1,1,{rows},7]"
    node = opset.detection_output(P([2, 12]), P([2, 9]), P([2, 2, 15]), {**BASE, **attrs, "num_classes": 3,
                                                                        "normalized": False,
                                                                        "variance_encoded_in_target": False},
                                  version=1)
    assert str(node.output(0).get_partial_shape()) == f"[1,1,{rows},7]"


@pytest.mark.parametrize(("make", "message"), [
    (lambda: opset.detection_output(P([2, 12]), P([2, 9]), P([1, 1, 10]), BASE),
     r"priors \[1,1,10\]: dim 2 must be a positive multiple of the prior size 4"),
    (lambda: opset.detection_output(P([2, 12]), P([2, 10]), P([1, 1, 12]), BASE),
     r"class predictions \[2,10\]: dim 1 must be a multiple of the 3 priors"),
    (lambda: opset.detection_output(P([2, 16]), P([2, 9]), P([1, 1, 12]), BASE),
     r"box logits \(input 0\) has shape \[2,16\]; dim 1 must be 12"),
    (lambda: opset.detection_output(P([2, 12]), P([2, 9]), P([1, 2, 12]), BASE),
     r"priors \(input 2\) has shape \[1,2,12\]; dim 1 must be 1"),
    (lambda: opset.detection_output(P([2, 12]), P([3, 9]), P([1, 1, 12]), BASE), "disagree on N"),
    (lambda: opset.detection_output(P([2, 12]), P([2, 9]), P([1, 1, 12]), {**BASE, "code_type": "CORNER"}),
     "CORNER"),
    (lambda: opset.detection_output(P([2, 12]), P([2, 9]), P([1, 1, 12]), BASE, P([2, 5]), P([2, 12])),
     r"ARM confidences \(input 3\) has shape \[2,5\]; dim 1 must be 6"),
])
def test_errors_name_the_node(make: Any, message: str) -> None:
    with pytest.raises(ValidationError, match="DetectionOutput-8 node.*" + message):
        make()


def test_builder_argument_errors() -> None:
    with pytest.raises(ValidationError, match="DetectionOutput-8 has no num_classes"):
        opset.detection_output(P([2, 12]), P([2, 9]), P([1, 1, 12]), {**BASE, "num_classes": 3})
    with pytest.raises(ValidationError, match="ARM confidences and ARM box logits come together"):
        opset.detection_output(P([2, 12]), P([2, 9]), P([1, 1, 12]), BASE, P([2, 6]))


def test_caffe_nms_per_class_and_the_end_marker() -> None:
    loc = np.zeros((1, 12), np.float32)
    conf = np.array([[0.1, 0.9, 0.3, 0.1, 0.8, 0.6, 0.5, 0.2, 0.7]], np.float32)  # [prior, class]
    out = detect({}, loc, conf)
    # class 1: priors 0 (0.9) and 1 (0.8) overlap by IoU 0.39 <= 0.5: both kept, then prior 2 (0.2)
    # class 2: priors 2 (0.7), 1 (0.6), 0 (0.3); background class 0 is skipped
    want = [[0, 1, 0.9, 0, 0, 0.4, 0.4], [0, 1, 0.8, 0.1, 0.1, 0.5, 0.5], [0, 1, 0.2, 0.6, 0.6, 1, 1],
            [0, 2, 0.7, 0.6, 0.6, 1, 1], [0, 2, 0.6, 0.1, 0.1, 0.5, 0.5], [0, 2, 0.3, 0, 0, 0.4, 0.4]]
    np.testing.assert_allclose(out[:6], want, rtol=1e-6)
    assert out[6, 0] == -1 and not out[6, 1:].any() and not out[7:].any()
    out = detect({"nms_threshold": 0.3, "confidence_threshold": 0.25, "keep_top_k": [3]}, loc, conf)
    # IoU 0.39 > 0.3 now drops the second of priors 0/1; keep_top_k keeps the 3 best of 4
    np.testing.assert_allclose(out[:3, :3], [[0, 1, 0.9], [0, 2, 0.7], [0, 2, 0.6]], rtol=1e-6)
    assert out.shape == (3, 7)


def test_decoding_modes_and_label_styles() -> None:
    loc = np.array([[0.1, 0, 0, 0, 0, 0, math.log(2), 0, 0, 0, 0, 0]], np.float32)
    conf = np.array([[0.0, 0.9, 0.0, 0.8, 0.0, 0.7]], np.float32)  # 3 priors, 2 classes
    out = detect({"nms_threshold": 1.0}, loc, conf)
    np.testing.assert_allclose(out[0, 3:], [0.1, 0, 0.4, 0.4], rtol=1e-6)  # CORNER: prior + delta
    out = detect({"nms_threshold": 1.0, "code_type": "caffe.PriorBoxParameter.CENTER_SIZE"}, loc, conf)
    np.testing.assert_allclose(out[0, 3:], [0.04, 0, 0.44, 0.4], rtol=1e-5, atol=1e-7)  # centre moved by 0.1 * 0.4
    np.testing.assert_allclose(out[1, 3:], [-0.1, 0.1, 0.7, 0.5], rtol=1e-5, atol=1e-7)  # width doubled
    out = detect({"nms_threshold": 1.0, "code_type": "caffe.PriorBoxParameter.CENTER_SIZE", "clip_after_nms": True},
                 loc, conf)
    np.testing.assert_allclose(out[1, 3:], [0, 0.1, 0.7, 0.5], rtol=1e-5, atol=1e-7)
    out = detect({"nms_threshold": 1.0, "decrease_label_id": True}, loc, conf)
    np.testing.assert_allclose(out[:3, :3], [[0, 0, 0.9], [0, 0, 0.8], [0, 0, 0.7]], rtol=1e-6)  # label - 1


def test_variances_pixels_and_arm_inputs() -> None:
    priors = np.array([[[0, 0, 0, 8, 8, 0, 10, 10, 20, 20], [0.5, 0.5, 0.5, 0.5, 0, 0, 0, 0, 0, 0]]], np.float32)
    loc = np.array([[0.2, 0, 0, 0, 0, 0, 0, 0]], np.float32)
    conf = np.array([[0.0, 0.9, 0.0, 0.8]], np.float32)
    attrs = {"normalized": False, "variance_encoded_in_target": False, "input_width": 20, "input_height": 20}
    out = detect(attrs, loc, conf, priors)
    np.testing.assert_allclose(out[0, 3:], [0.1, 0, 0.4, 0.4], rtol=1e-6)  # 8 / 20 + 0.5 * 0.2
    node = opset.detection_output(P([1, 8]), P([1, 4]), P([1, 2, 10]), {**BASE, **attrs, "objectness_score": 0.5},
                                  P([1, 4]), P([1, 8]))
    out = run(node, loc, conf, priors, np.array([[0, 0.9, 0, 0.1]], np.float32), np.zeros((1, 8), np.float32))
    # prior 1's objectness 0.1 < 0.5: it becomes background; prior 0 decodes through the ARM deltas (0)
    # first, and each of the two decodes divides pixel coordinates by 20 (as the reference does)
    np.testing.assert_allclose(out[0, :7], [0, 1, 0.9, 0.1, 0, 0.02, 0.02], rtol=1e-6)
    assert out[1, 0] == -1


def test_cases_evaluate() -> None:
    for version in (1, 8):
        @settings(max_examples=15, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(case_strategy("DetectionOutput", version))
        def check(case: OpCase) -> None:
            params = case.model.get_parameters()
            (out,) = evaluate(case.model, [case.inputs[p.friendly_name] for p in params])
            assert out.shape[-1] == 7

        check()


# -- Proposal-1/4 -------------------------------------------------------------------------------------------------

PR_ATTRS = ["base_size", "pre_nms_topn", "post_nms_topn", "nms_thresh", "feat_stride", "min_size", "ratio", "scale",
            "clip_before_nms", "clip_after_nms", "normalize", "box_size_scale", "box_coordinate_scale", "framework"]
PR = {"base_size": 16, "pre_nms_topn": 10, "post_nms_topn": 3, "nms_thresh": 0.7, "feat_stride": 16, "min_size": 1,
      "ratio": [1.0], "scale": [1.0], "clip_before_nms": False}


def propose(attrs: dict[str, Any], probs: np.ndarray, deltas: np.ndarray, image: np.ndarray,
            version: int = 4) -> list[np.ndarray]:
    params = [P(list(a.shape)) for a in (probs, deltas, image)]
    node = opset.proposal(*params, {**PR, **attrs}, version=version)
    return evaluate(Model(node.outputs(), params), [probs, deltas, image])


def test_proposal_attributes_shapes_and_errors() -> None:
    for version in (1, 4):
        assert [a.name for a in get_opdef("Proposal", version).attrs] == PR_ATTRS
        assert ("Proposal", version) in all_case_keys()
    node = opset.proposal(P([2, 6, 3, 4]), P([2, 12, 3, 4]), P([3]), {**PR, "ratio": [0.5, 1.0, 2.0]})
    assert [str(o.get_partial_shape()) for o in node.outputs()] == ["[6,5]", "[6]"]
    node = opset.proposal(P([-1, 2, 3, 4]), P([-1, 4, 3, 4]), P([4]), PR, version=1)
    assert [str(o.get_partial_shape()) for o in node.outputs()] == ["[?,5]"]
    for make, message in [
        (lambda: opset.proposal(P([2, 4, 3, 4]), P([2, 4, 3, 4]), P([3]), PR), "need 2 and 4 channels"),
        (lambda: opset.proposal(P([2, 2, 3, 4]), P([2, 4, 3, 5]), P([3]), PR), "disagree on dim 3"),
        (lambda: opset.proposal(P([2, 2, 3, 4]), P([2, 4, 3, 4]), P([5]), PR), r"image_shape .* \[3\] or \[4\]"),
        (lambda: opset.proposal(P([2, 2, 3, 4]), P([2, 4, 3, 4]), P([3]), {**PR, "post_nms_topn": 0}),
         "'post_nms_topn' is 0; it must be positive"),
        (lambda: opset.proposal(P([2, 2, 3, 4]), P([2, 4, 3, 4]), P([3]), {**PR, "framework": "caffe"}), "caffe"),
    ]:
        with pytest.raises(ValidationError, match="Proposal-4 node.*" + message):
            make()


def test_proposal_anchors_decode_nms_and_padding() -> None:
    from reference_plugin.ops.op_proposal import anchors
    np.testing.assert_array_equal(anchors({**PR, "ratio": [1.0, 0.5]}, False), [[0, 0, 15, 15], [-3.5, 2, 18.5, 13]])
    np.testing.assert_array_equal(anchors(PR, True), [[-8, -8, 8, 8]])
    # 1 x 2 positions, one anchor; zero deltas: Caffe boxes are the anchors with the +1 convention
    probs = np.array([[[[0.1, 0.2]], [[0.6, 0.9]]]], np.float32)
    deltas = np.zeros((1, 4, 1, 2), np.float32)
    image = np.array([64, 64, 1], np.float32)
    rois, scores = propose({}, probs, deltas, image)
    np.testing.assert_array_equal(rois, [[0, 16, 0, 32, 16], [0, 0, 0, 16, 16], [-1, 0, 0, 0, 0]])
    np.testing.assert_array_equal(scores, np.float32([0.9, 0.6, 0]))
    # the boxes touch (IoU 17/527 with the +1 convention) but survive; nms_thresh 0.01 drops the second
    rois, scores = propose({"nms_thresh": 0.01}, probs, deltas, image)
    np.testing.assert_array_equal(rois[:2], [[0, 16, 0, 32, 16], [-1, 0, 0, 0, 0]])
    (rois,) = propose({"normalize": True}, probs, deltas, image, version=1)
    np.testing.assert_allclose(rois[0], [0, 0.25, 0, 0.5, 0.25])
    # min_size 20 (x image scale 1) zeroes both scores; a dx of 0.5 moves the box by half its width
    _, scores = propose({"min_size": 20}, probs, deltas, image)
    np.testing.assert_array_equal(scores, [0, 0, 0])
    deltas[0, 0, 0, 1] = 0.5
    rois, _ = propose({}, probs, deltas, image)
    np.testing.assert_array_equal(rois[0], [0, 24, 0, 40, 16])


def test_proposal_clipping_and_tensorflow() -> None:
    probs = np.array([[[[0.1]], [[0.9]]]], np.float32)
    deltas = np.array([[[[0.0]], [[0.0]], [[math.log(4)]], [[0.0]]]], np.float32)  # 4x wider
    image = np.array([40, 48, 1], np.float32)
    rois, _ = propose({}, probs, deltas, image)
    np.testing.assert_array_equal(rois[0], [0, -24, 0, 40, 16])
    rois, _ = propose({"clip_before_nms": True}, probs, deltas, image)
    np.testing.assert_array_equal(rois[0], [0, 0, 0, 40, 16])
    rois, _ = propose({"clip_after_nms": True}, probs, deltas, image)
    np.testing.assert_array_equal(rois[0], [0, 0, 0, 40, 16])
    rois, _ = propose({"framework": "tensorflow", "scale": [6.0]}, probs, np.zeros_like(deltas), image)
    np.testing.assert_array_equal(rois[0], [0, 0, 0, 48, 40])  # the anchor clipped to the image first
