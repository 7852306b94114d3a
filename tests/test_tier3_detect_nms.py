"""Tier-3 "detect" family, part 5: NonMaxSuppression-1/3/4/5/9 — IR attributes, builder inference
(fixed, bounded and dynamic output shapes) and errors, the REFERENCE kernel on hand-checked
selections and against a naive greedy loop."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ovconform import opset
from ovconform.errors import ValidationError
from ovconform.ir import Model, Node, Type, get_opdef
from ovconform.opcases import OpCase, all_case_keys, case_strategy
from reference_plugin._evaluate import evaluate

P = opset.parameter
nms = opset.non_max_suppression
SETTINGS = settings(max_examples=25, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))
VERSIONS = (1, 3, 4, 5, 9)
BOXES = np.array([[[0, 0, 1, 1], [2, 2, 3, 3], [0, 0, 1, 1], [0.5, 0, 1.5, 1]]], np.float32)
SCORES = np.array([[[0.9, 0.8, 0.7, 0.6], [0.1, 0.95, 0.3, 0.2]]], np.float32)


def run(node: Node, *inputs: np.ndarray) -> list[np.ndarray]:
    params = [n for n in (node.input_value(i).node for i in range(node.get_input_size())) if n.type_name == "Parameter"]
    return evaluate(Model(node.outputs(), params), list(inputs))


def f32(v: float) -> np.ndarray:
    return np.array(v, np.float32)


@pytest.mark.parametrize("version", VERSIONS)
def test_attributes_inputs_and_cases(version: int) -> None:
    names = ["box_encoding", "sort_result_descending"] + (["output_type"] if version >= 3 else [])
    assert [a.name for a in get_opdef("NonMaxSuppression", version).attrs] == names
    assert ("NonMaxSuppression", version) in all_case_keys()
    node = nms(P([1, 4, 4]), P([1, 2, 4]), version=version)
    assert node.get_input_size() == (6 if version == 9 else 5)  # defaults added as OpenVINO adds them
    assert node.input_value(2).get_element_type() == Type.i64


@pytest.mark.parametrize(("version", "shapes"), [
    (1, ["[6,3]"]), (3, ["[6,3]"]), (4, ["[24,3]"]), (5, ["[0..24,3]", "[0..24,3]", "[1]"]),
    (9, ["[0..24,3]", "[0..24,3]", "[1]"]),
])
def test_output_shapes_follow_openvino(version: int, shapes: list[str]) -> None:
    node = nms(P([2, 6, 4]), P([2, 3, 6]), np.array(4, np.int64), f32(0.5), version=version)
    assert [str(node.output(i).get_partial_shape()) for i in range(node.get_output_size())] == shapes
    dynamic = nms(P([2, 6, 4]), P([2, 3, 6]), P([], Type.i32), version=version)
    assert str(dynamic.output(0).get_partial_shape()) == "[?,3]"
    if version >= 5:
        assert [dynamic.output(i).get_element_type() for i in range(3)] == [Type.i64, Type.f32, Type.i64]
    if version >= 3:
        node = nms(P([2, 6, 4], Type.f16), P([2, 3, 6], Type.f16), output_type="i32", version=version)
        assert str(node.output(0).get_partial_shape()) == "[0,3]" and node.output(0).get_element_type() == Type.i32


def test_selection_and_both_orders() -> None:
    node = nms(P([1, 4, 4]), P([1, 2, 4]), np.array(10, np.int64), f32(0.5), f32(0.0), f32(0.0))
    indices, scores, valid = run(node, BOXES, SCORES)
    # class 0: box 0, box 1 (disjoint), box 2 duplicates box 0 (IoU 1), box 3 overlaps box 0 by 1/3 <= 0.5
    np.testing.assert_array_equal(indices, [[0, 1, 1], [0, 0, 0], [0, 0, 1], [0, 0, 3], [0, 1, 2], [0, 1, 3]])
    np.testing.assert_allclose(scores[:, 2], [0.95, 0.9, 0.8, 0.6, 0.3, 0.2])
    assert valid.tolist() == [6] and scores.dtype == np.float32
    node = nms(P([1, 4, 4]), P([1, 2, 4]), np.array(10, np.int64), f32(0.2), f32(0.25),
               sort_result_descending=False)
    indices, scores, valid = run(node, BOXES, SCORES)
    # IoU 1/3 > 0.2 now drops box 3; scores below 0.25 stop each class
    np.testing.assert_array_equal(indices, [[0, 0, 0], [0, 0, 1], [0, 1, 1], [0, 1, 2]])
    assert valid.tolist() == [4]


def test_fixed_size_outputs_pad_with_minus_one_or_truncate() -> None:
    for version, rows in [(4, 6), (3, 4), (1, 4)]:
        node = nms(P([1, 4, 4]), P([1, 2, 4]), np.array(3, np.int64), f32(0.2), version=version)
        (indices,) = run(node, BOXES, SCORES)
        assert indices.shape == (rows, 3)
        np.testing.assert_array_equal(indices[:4], [[0, 1, 1], [0, 0, 0], [0, 0, 1], [0, 1, 2]])
        assert (indices[4:] == -1).all()
    node = nms(P([1, 4, 4]), P([1, 2, 4]), np.array(10, np.int64), f32(0.5), version=1)  # min(4, 20) = 4 rows
    (indices,) = run(node, BOXES, SCORES)
    np.testing.assert_array_equal(indices, [[0, 1, 1], [0, 0, 0], [0, 0, 1], [0, 0, 3]])


def test_max_output_boxes_per_class_and_center_encoding() -> None:
    node = nms(P([1, 4, 4]), P([1, 2, 4]), P([], Type.i32), f32(0.5), version=5)
    indices, _, valid = run(node, BOXES, SCORES, np.array(1, np.int32))
    np.testing.assert_array_equal(indices, [[0, 1, 1], [0, 0, 0]])
    indices, _, valid = run(node, BOXES, SCORES, np.array(0, np.int32))
    assert indices.shape == (0, 3) and valid.tolist() == [0]
    centre = np.stack([(BOXES[..., 1] + BOXES[..., 3]) / 2, (BOXES[..., 0] + BOXES[..., 2]) / 2,
                       BOXES[..., 3] - BOXES[..., 1], BOXES[..., 2] - BOXES[..., 0]], axis=-1)
    node = nms(P([1, 4, 4]), P([1, 2, 4]), np.array(10, np.int64), f32(0.2), box_encoding="center")
    corner = nms(P([1, 4, 4]), P([1, 2, 4]), np.array(10, np.int64), f32(0.2))
    np.testing.assert_array_equal(run(node, centre, SCORES)[0], run(corner, BOXES, SCORES)[0])
    swapped = BOXES[..., [2, 3, 0, 1]]  # the other diagonal: the same boxes
    np.testing.assert_array_equal(run(corner, swapped, SCORES)[0], run(corner, BOXES, SCORES)[0])


def test_soft_nms_decays_scores() -> None:
    boxes = np.array([[[0, 0, 2, 2], [0, 1, 2, 3]]], np.float32)  # IoU 1/3
    scores = np.array([[[0.9, 0.8]]], np.float32)
    decay = math.exp(-0.5 * (1 / 3) ** 2 / 0.5)
    node = nms(P([1, 2, 4]), P([1, 1, 2]), np.array(5, np.int64), f32(0.2), f32(0.0), f32(0.5))
    _, out, _ = run(node, boxes, scores)
    np.testing.assert_allclose(out[:, 2], [0.9, 0.8 * decay], rtol=1e-6)
    node = nms(P([1, 2, 4]), P([1, 1, 2]), np.array(5, np.int64), f32(0.2), f32(0.0), f32(0.5), version=5)
    _, out, _ = run(node, boxes, scores)
    np.testing.assert_allclose(out[:, 2], [0.9])  # version 5: IoU 1/3 > 0.2 drops the box
    node = nms(P([1, 2, 4]), P([1, 1, 2]), np.array(5, np.int64), f32(0.2), f32(0.75), f32(0.5))
    _, out, _ = run(node, boxes, scores)
    np.testing.assert_allclose(out[:, 2], [0.9])  # the decayed 0.78 falls below the score threshold


def naive_nms(boxes: np.ndarray, scores: np.ndarray, limit: int, iou_thr: float, score_thr: float) -> list[list[int]]:
    def iou(a: np.ndarray, b: np.ndarray) -> float:
        ya, xa = sorted(a[[0, 2]]), sorted(a[[1, 3]])
        yb, xb = sorted(b[[0, 2]]), sorted(b[[1, 3]])
        inter = max(min(ya[1], yb[1]) - max(ya[0], yb[0]), 0) * max(min(xa[1], xb[1]) - max(xa[0], xb[0]), 0)
        area_a, area_b = (ya[1] - ya[0]) * (xa[1] - xa[0]), (yb[1] - yb[0]) * (xb[1] - xb[0])
        return 0.0 if area_a <= 0 or area_b <= 0 else inter / (area_a + area_b - inter)

    rows = []
    for b in range(scores.shape[0]):
        for c in range(scores.shape[1]):
            order = sorted(range(scores.shape[2]), key=lambda k: (-scores[b, c, k], k))
            kept: list[int] = []
            for k in order:
                if len(kept) == limit or scores[b, c, k] < score_thr:
                    break
                if all(iou(boxes[b, k], boxes[b, j]) <= iou_thr for j in kept):
                    kept.append(k)
            rows += [[float(scores[b, c, k]), b, c, k] for k in kept]
    rows.sort(key=lambda r: (-r[0], r[1], r[2], r[3]))
    return [r[1:] for r in rows]


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.integers(1, 4), st.floats(0.05, 0.95), st.floats(0.0, 0.6))
def test_hard_nms_matches_a_naive_greedy_loop(seed: int, limit: int, iou_thr: float, score_thr: float) -> None:
    rng = np.random.default_rng(seed)
    boxes = rng.uniform(0, 4, (2, 6, 4)).astype(np.float32)
    scores = (rng.permutation(24).reshape(2, 2, 6) / 24 + 0.01).astype(np.float32)
    node = nms(P([2, 6, 4]), P([2, 2, 6]), np.array(limit, np.int64), f32(iou_thr), f32(score_thr))
    indices, _, valid = run(node, boxes, scores)
    want = naive_nms(boxes, scores, limit, float(np.float32(iou_thr)), float(np.float32(score_thr)))
    assert indices.tolist() == want and valid.tolist() == [len(want)]


@pytest.mark.parametrize(("make", "message"), [
    (lambda: nms(P([1, 4, 4], Type.i32), P([1, 2, 4], Type.i32)), "boxes .* i32; they must be floating-point"),
    (lambda: nms(P([1, 4, 4]), P([1, 2, 4], Type.f16)), r"scores \(input 1\) .* f16; they must match the boxes"),
    (lambda: nms(P([1, 4, 3]), P([1, 2, 4])), r"boxes \(input 0\) have shape \[1,4,3\]; they must be \[B, N, 4\]"),
    (lambda: nms(P([1, 4, 4]), P([2, 2, 4])), "disagree on the batch or the number of boxes"),
    (lambda: nms(P([1, 4, 4]), P([1, 2, 4]), P([2], Type.i64)), "max_output_boxes_per_class .* hold 1 element"),
    (lambda: nms(P([1, 4, 4]), P([1, 2, 4]), P([], Type.f32)), "max_output_boxes_per_class .* an integer type"),
    (lambda: nms(P([1, 4, 4]), P([1, 2, 4]), output_type="f32"), "output_type is f32; it must be i64 or i32"),
    (lambda: nms(P([1, 4, 4]), P([1, 2, 4]), box_encoding="corners"), "corners"),
])
def test_errors_name_the_node(make: Any, message: str) -> None:
    with pytest.raises(ValidationError, match="NonMaxSuppression-9 node.*" + message):
        make()


def test_version_keyword_errors() -> None:
    with pytest.raises(ValidationError, match="NonMaxSuppression-4 has no soft_nms_sigma"):
        nms(P([1, 4, 4]), P([1, 2, 4]), 1, 0.5, 0.0, 0.5, version=4)
    with pytest.raises(ValidationError, match="NonMaxSuppression-1 has no output_type"):
        nms(P([1, 4, 4]), P([1, 2, 4]), output_type="i32", version=1)
    with pytest.raises(ValidationError, match=r"version 2 is not one of \(1, 3, 4, 5, 9\)"):
        nms(P([1, 4, 4]), P([1, 2, 4]), version=2)


@pytest.mark.parametrize("version", VERSIONS)
def test_cases_evaluate(version: int) -> None:
    @settings(max_examples=10, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(case_strategy("NonMaxSuppression", version))
    def check(case: OpCase) -> None:
        params = case.model.get_parameters()
        out = evaluate(case.model, [case.inputs[p.friendly_name] for p in params])
        assert out[0].shape[1] == 3

    check()
