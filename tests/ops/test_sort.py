"""Tests of the sort ops (OpenVINO's op-spec folder "sort"): NonMaxSuppression-1/3/4/5/9, TopK-1/3/11
and SearchSorted-15 — builder inference and errors (as OpenVINO writes and infers them), REFERENCE
kernel numerics against literal values or independent loop formulas (transcriptions of the specs'
pseudo-code), and the case strategies.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from _op_helpers import P, evaluate_node, run_all, seeded
from _op_helpers import out as shape
from _opcase_checks import CASE_SETTINGS, check_case_runs, check_ir_spelling, versions_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ovconform import opset
from ovconform.errors import ValidationError
from ovconform.ir import Model, Type, bf16_to_f32, f32_to_bf16, get_opdef
from ovconform.ir.opset_table import OPSET_VERSIONS
from ovconform.opcases import OpCase, all_case_keys, case_strategy
from reference_plugin.evaluate import evaluate

#: The op versions of the family whose case strategies are checked here.
CASE_KEYS = [("TopK", 1), ("TopK", 3), ("TopK", 11), ("SearchSorted", 15)]
#: Attribute names, in IR order, as OpenVINO writes them.
IR_ATTRS = {("TopK", 1): ["axis", "mode", "sort", "index_element_type"],
            ("TopK", 3): ["axis", "mode", "sort", "index_element_type"],
            ("TopK", 11): ["axis", "mode", "sort", "index_element_type", "stable"],
            ("SearchSorted", 15): ["right_mode", "output_type"]}
#: IR type names that differ from the op type.
IR_NAMES: dict[str, str] = {}

@pytest.mark.parametrize(("op", "version"), list(IR_ATTRS))
def test_ir_names_and_attributes_follow_openvino(op: str, version: int) -> None:
    check_ir_spelling(op, version, IR_ATTRS[(op, version)], IR_NAMES.get(op))
    assert version in OPSET_VERSIONS[op]


def test_builders_use_the_opset_versions() -> None:
    f = P([2, 3])
    built = [opset.topk(f, 1, 1, "max", "value", version=1), opset.topk(f, 1, 1, "max", "value", version=3),
             opset.topk(f, 1, 1, "max", "value"), opset.search_sorted(P([5]), f)]
    assert versions_of(built) == CASE_KEYS
    assert opset.topk(f, 1, 1, "MAX", "Value").attrs["mode"] == "max"

@pytest.mark.parametrize(("op", "version"), CASE_KEYS)
@CASE_SETTINGS
@given(data=st.data())
def test_cases_are_valid_and_run(op: str, version: int, data: st.DataObject) -> None:
    case = data.draw(case_strategy(op, version))
    node, outs = check_case_runs(case, op, version)
    for i, got in enumerate(outs):
        assert got.dtype == node.output(i).get_element_type().to_dtype()


I32 = np.int32


@pytest.mark.parametrize(("data", "k", "axis", "expected"), [
    ([2, 5], 3, 1, "[2,3]"), ([2, 5], 7, 1, "[2,5]"), ([2, -1], 3, -1, "[2,0..3]"), ([2, "2..6"], 3, 1, "[2,2..3]"),
    ([4, 5], None, 0, "[0..4,5]"), ("...", 3, 0, "..."),
])
def test_topk_shapes(data: Any, k: int | None, axis: int, expected: str) -> None:
    k_in = P([], Type.i64) if k is None else k
    node = opset.topk(P(data), k_in, axis, "max", "value", "i64")
    assert shape(node, 0) == shape(node, 1) == expected
    assert node.output(0).get_element_type() == Type.f32 and node.output(1).get_element_type() == Type.i64


def test_topk_errors() -> None:
    with pytest.raises(ValidationError, match=r"TopK-11 node.*attribute 'axis' 2 is out of range for rank 2"):
        opset.topk(P([2, 5]), 1, 2, "max", "value")
    with pytest.raises(ValidationError, match=r"attribute 'mode'='top' is not allowed; allowed: 'max', 'min'"):
        opset.topk(P([2, 5]), 1, 1, "top", "value")
    with pytest.raises(ValidationError, match=r"TopK-3 node.*k \(input 1\) has shape \[2\]; it must be a scalar"):
        opset.topk(P([2, 5]), np.array([1, 2]), 1, "max", "value", version=3)
    with pytest.raises(ValidationError, match=r"TopK-11 node.*k=-1 must be non-negative"):
        opset.topk(P([2, 5]), -1, 1, "max", "value")
    with pytest.raises(ValidationError, match=r"TopK-11 node.*data \(input 0\) has element type boolean"):
        opset.topk(P([2, 5], Type.boolean), 1, 1, "max", "value")
    with pytest.raises(ValidationError, match=r"attribute 'index_element_type'"):
        opset.topk(P([2, 5]), 1, 1, "max", "value", "u8")


X5 = np.array([[3, 1, 4, 1, 5], [9, 2, 6, 5, 3]], np.float32)


@pytest.mark.parametrize(("mode", "sort", "values", "indices"), [
    ("max", "value", [[5, 4, 3], [9, 6, 5]], [[4, 2, 0], [0, 2, 3]]),
    ("max", "index", [[3, 4, 5], [9, 6, 5]], [[0, 2, 4], [0, 2, 3]]),
    ("min", "value", [[1, 1, 3], [2, 3, 5]], [[1, 3, 0], [1, 4, 3]]),
    ("min", "index", [[3, 1, 1], [2, 5, 3]], [[0, 1, 3], [1, 3, 4]]),
])
def test_topk_kernel(mode: str, sort: str, values: list[list[float]], indices: list[list[int]]) -> None:
    for version in (1, 3, 11):
        got_v, got_i = run_all(lambda d, v=version: opset.topk(d, 3, -1, mode, sort, stable=True, version=v), X5)
        assert got_v.tolist() == values and got_i.tolist() == indices and got_i.dtype == np.int32


def test_topk_ties_keep_the_input_order_and_k_is_clamped() -> None:
    x = np.array([2, 7, 2, 7, 2], np.int8)
    v, i = run_all(lambda d: opset.topk(d, 4, 0, "max", "value", "i64", stable=True), x)
    assert v.tolist() == [7, 7, 2, 2] and i.tolist() == [1, 3, 0, 2] and i.dtype == np.int64
    v, i = run_all(lambda d: opset.topk(d, 2, 0, "min", "value", stable=True), x)
    assert i.tolist() == [0, 2]
    v, i = run_all(lambda d, k: opset.topk(d, k, 0, "max", "value", version=3), x, np.array(9, np.int32))
    assert v.shape == (5,) and i.tolist() == [1, 3, 0, 2, 4]
    v, _ = run_all(lambda d: opset.topk(d, 2, 0, "max", "value"), np.array([1.5, 0.5, 2.5], np.float16))
    assert v.dtype == np.float16 and v.tolist() == [2.5, 1.5]


def test_topk_nan_counts_as_the_largest_value() -> None:
    x = np.array([1.0, np.nan, 3.0, -2.0], np.float32)
    v, i = run_all(lambda d: opset.topk(d, 2, 0, "max", "value"), x)
    assert np.isnan(v[0]) and v[1] == 3 and i.tolist() == [1, 2]
    v, i = run_all(lambda d: opset.topk(d, 4, 0, "min", "value"), x)
    assert i.tolist() == [3, 0, 2, 1]


def test_bf16_orders_by_value_not_by_bit_pattern() -> None:
    x = f32_to_bf16(np.array([-3.0, 2.0, -0.5, 1.0], np.float32))  # as uint16, negatives sort above positives
    params = [P([4], Type.bf16, name="x")]
    topk = opset.topk(params[0], 2, 0, "max", "value")
    seg = opset.segment_max(params[0], np.array([0, 0, 2, 2], I32), fill_mode="lowest")
    bucket = opset.bucketize(params[0], np.array([0.0], np.float32))
    values, indices, seg_out, buckets = evaluate(Model([*topk.outputs(), seg, bucket], params), [x])
    assert bf16_to_f32(values).tolist() == [2.0, 1.0] and indices.tolist() == [1, 3]
    assert bf16_to_f32(seg_out)[[0, 2]].tolist() == [2.0, 1.0] and seg_out[1] == 0xFF7F  # bf16 lowest
    assert buckets.tolist() == [0, 1, 0, 1]


def test_topk_random_matches_numpy_sort() -> None:
    rng = np.random.default_rng(3)
    x = rng.permutation(60).reshape(3, 4, 5).astype(np.float32)
    v, i = run_all(lambda d: opset.topk(d, 3, 1, "max", "value"), x)
    want_i = np.argsort(-x, axis=1)[:, :3]
    assert np.array_equal(i, want_i) and np.array_equal(v, np.take_along_axis(x, want_i, axis=1))


def test_search_sorted() -> None:
    assert shape(opset.search_sorted(P([2, 5]), P([2, 3]))) == "[2,3]"
    assert shape(opset.search_sorted(P([5]), P([4, 2, 3]), output_type="i32")) == "[4,2,3]"
    seq = np.array([[1, 3, 5, 7, 9], [2, 4, 6, 8, 10]], np.float32)
    vals = np.array([[3, 6, 9], [3, 6, 9]], np.float32)
    assert run_all(opset.search_sorted, seq, vals)[0].tolist() == [[1, 3, 4], [1, 2, 4]]
    assert run_all(lambda s, v: opset.search_sorted(s, v, True), seq, vals)[0].tolist() == [[2, 3, 5], [1, 3, 4]]
    flat = run_all(lambda s, v: opset.search_sorted(s, v, False, "i32"), seq[0],
                   np.array([[0, 5], [10, 7]], np.float32))
    assert flat[0].tolist() == [[0, 2], [5, 3]] and flat[0].dtype == np.int32
    with pytest.raises(ValidationError, match=r"SearchSorted-15 node.*values \[3\] must have the rank"):
        opset.search_sorted(P([2, 5]), P([3]))
    with pytest.raises(ValidationError, match=r"SearchSorted-15 node.*differ in dim 0"):
        opset.search_sorted(P([2, 5]), P([3, 1]))
    with pytest.raises(ValidationError, match=r"sorted_sequence \(f32\) and values \(i32\)"):
        opset.search_sorted(P([5]), P([3], Type.i32))


nms = opset.non_max_suppression
VERSIONS = (1, 3, 4, 5, 9)
BOXES = np.array([[[0, 0, 1, 1], [2, 2, 3, 3], [0, 0, 1, 1], [0.5, 0, 1.5, 1]]], np.float32)
SCORES = np.array([[[0.9, 0.8, 0.7, 0.6], [0.1, 0.95, 0.3, 0.2]]], np.float32)




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
    indices, scores, valid = evaluate_node(node, BOXES, SCORES)
    # class 0: box 0, box 1 (disjoint), box 2 duplicates box 0 (IoU 1), box 3 overlaps box 0 by 1/3 <= 0.5
    np.testing.assert_array_equal(indices, [[0, 1, 1], [0, 0, 0], [0, 0, 1], [0, 0, 3], [0, 1, 2], [0, 1, 3]])
    np.testing.assert_allclose(scores[:, 2], [0.95, 0.9, 0.8, 0.6, 0.3, 0.2])
    assert valid.tolist() == [6] and scores.dtype == np.float32
    node = nms(P([1, 4, 4]), P([1, 2, 4]), np.array(10, np.int64), f32(0.2), f32(0.25),
               sort_result_descending=False)
    indices, scores, valid = evaluate_node(node, BOXES, SCORES)
    # IoU 1/3 > 0.2 now drops box 3; scores below 0.25 stop each class
    np.testing.assert_array_equal(indices, [[0, 0, 0], [0, 0, 1], [0, 1, 1], [0, 1, 2]])
    assert valid.tolist() == [4]


def test_fixed_size_outputs_pad_with_minus_one_or_truncate() -> None:
    for version, rows in [(4, 6), (3, 4), (1, 4)]:
        node = nms(P([1, 4, 4]), P([1, 2, 4]), np.array(3, np.int64), f32(0.2), version=version)
        (indices,) = evaluate_node(node, BOXES, SCORES)
        assert indices.shape == (rows, 3)
        np.testing.assert_array_equal(indices[:4], [[0, 1, 1], [0, 0, 0], [0, 0, 1], [0, 1, 2]])
        assert (indices[4:] == -1).all()
    node = nms(P([1, 4, 4]), P([1, 2, 4]), np.array(10, np.int64), f32(0.5), version=1)  # min(4, 20) = 4 rows
    (indices,) = evaluate_node(node, BOXES, SCORES)
    np.testing.assert_array_equal(indices, [[0, 1, 1], [0, 0, 0], [0, 0, 1], [0, 0, 3]])


def test_max_output_boxes_per_class_and_center_encoding() -> None:
    node = nms(P([1, 4, 4]), P([1, 2, 4]), P([], Type.i32), f32(0.5), version=5)
    indices, _, valid = evaluate_node(node, BOXES, SCORES, np.array(1, np.int32))
    np.testing.assert_array_equal(indices, [[0, 1, 1], [0, 0, 0]])
    indices, _, valid = evaluate_node(node, BOXES, SCORES, np.array(0, np.int32))
    assert indices.shape == (0, 3) and valid.tolist() == [0]
    centre = np.stack([(BOXES[..., 1] + BOXES[..., 3]) / 2, (BOXES[..., 0] + BOXES[..., 2]) / 2,
                       BOXES[..., 3] - BOXES[..., 1], BOXES[..., 2] - BOXES[..., 0]], axis=-1)
    node = nms(P([1, 4, 4]), P([1, 2, 4]), np.array(10, np.int64), f32(0.2), box_encoding="center")
    corner = nms(P([1, 4, 4]), P([1, 2, 4]), np.array(10, np.int64), f32(0.2))
    np.testing.assert_array_equal(evaluate_node(node, centre, SCORES)[0], evaluate_node(corner, BOXES, SCORES)[0])
    swapped = BOXES[..., [2, 3, 0, 1]]  # the other diagonal: the same boxes
    np.testing.assert_array_equal(evaluate_node(corner, swapped, SCORES)[0], evaluate_node(corner, BOXES, SCORES)[0])


def test_soft_nms_decays_scores() -> None:
    boxes = np.array([[[0, 0, 2, 2], [0, 1, 2, 3]]], np.float32)  # IoU 1/3
    scores = np.array([[[0.9, 0.8]]], np.float32)
    decay = math.exp(-0.5 * (1 / 3) ** 2 / 0.5)
    node = nms(P([1, 2, 4]), P([1, 1, 2]), np.array(5, np.int64), f32(0.2), f32(0.0), f32(0.5))
    _, out, _ = evaluate_node(node, boxes, scores)
    np.testing.assert_allclose(out[:, 2], [0.9, 0.8 * decay], rtol=1e-6)
    node = nms(P([1, 2, 4]), P([1, 1, 2]), np.array(5, np.int64), f32(0.2), f32(0.0), f32(0.5), version=5)
    _, out, _ = evaluate_node(node, boxes, scores)
    np.testing.assert_allclose(out[:, 2], [0.9])  # version 5: IoU 1/3 > 0.2 drops the box
    node = nms(P([1, 2, 4]), P([1, 1, 2]), np.array(5, np.int64), f32(0.2), f32(0.75), f32(0.5))
    _, out, _ = evaluate_node(node, boxes, scores)
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


@seeded(25)
@given(st.integers(0, 2**32 - 1), st.integers(1, 4), st.floats(0.05, 0.95), st.floats(0.0, 0.6))
def test_hard_nms_matches_a_naive_greedy_loop(seed: int, limit: int, iou_thr: float, score_thr: float) -> None:
    rng = np.random.default_rng(seed)
    boxes = rng.uniform(0, 4, (2, 6, 4)).astype(np.float32)
    scores = (rng.permutation(24).reshape(2, 2, 6) / 24 + 0.01).astype(np.float32)
    node = nms(P([2, 6, 4]), P([2, 2, 6]), np.array(limit, np.int64), f32(iou_thr), f32(score_thr))
    indices, _, valid = evaluate_node(node, boxes, scores)
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
