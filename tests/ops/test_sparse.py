"""Tests of the sparse ops (OpenVINO's op-spec folder "sparse"): EmbeddingSegmentsSum-3,
EmbeddingBagOffsetsSum-3, EmbeddingBagPackedSum-3, EmbeddingBagOffsets-15, EmbeddingBagPacked-15 and
SparseFillEmptyRows-16 — builder inference and errors (as OpenVINO writes and infers them),
REFERENCE kernel numerics against literal values or independent loop formulas (transcriptions of the
specs' pseudo-code), and the case strategies.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _op_helpers import P, evaluate_node, run_all, seeded
from _op_helpers import out as shape
from _opcase_checks import CASE_SETTINGS, check_case_runs, check_ir_spelling, versions_of
from hypothesis import given
from hypothesis import strategies as st

from ovconform import opset
from ovconform.errors import InferError, ValidationError
from ovconform.ir import Node, Type
from ovconform.ir.opset_table import OPSET_VERSIONS
from ovconform.opcases import OpCase, all_case_keys, case_strategy
from reference_plugin.evaluate import evaluate

#: The op versions of the family whose case strategies are checked here.
CASE_KEYS = [("EmbeddingSegmentsSum", 3), ("EmbeddingBagOffsetsSum", 3), ("EmbeddingBagPackedSum", 3),
             ("EmbeddingBagOffsets", 15), ("EmbeddingBagPacked", 15)]
#: Attribute names, in IR order, as OpenVINO writes them.
IR_ATTRS = {("EmbeddingSegmentsSum", 3): [], ("EmbeddingBagOffsetsSum", 3): [], ("EmbeddingBagPackedSum", 3): [],
            ("EmbeddingBagOffsets", 15): ["reduction"], ("EmbeddingBagPacked", 15): ["reduction"]}
#: IR type names that differ from the op type.
IR_NAMES: dict[str, str] = {}

@pytest.mark.parametrize(("op", "version"), list(IR_ATTRS))
def test_ir_names_and_attributes_follow_openvino(op: str, version: int) -> None:
    check_ir_spelling(op, version, IR_ATTRS[(op, version)], IR_NAMES.get(op))
    assert version in OPSET_VERSIONS[op]


def test_builders_use_the_opset_versions() -> None:
    f, i = P([5, 2]), P([4], Type.i32)
    built = [opset.embedding_segments_sum(f, i, P([4], Type.i32), 3),
             opset.embedding_bag_offsets_sum(f, i, P([2], Type.i32)), opset.embedding_bag_packed_sum(f, P([2, 2],
                                                                                                        Type.i32)),
             opset.embedding_bag_offsets(f, i, P([2], Type.i32)), opset.embedding_bag_packed(f, P([2, 2], Type.i32))]
    assert versions_of(built) == CASE_KEYS
    assert built[0].input_value(3).get_element_type() == Type.i32  # literal num_segments takes the index type


def test_ir_attributes_as_openvino_writes_them() -> None:
    ov = pytest.importorskip("openvino")
    import openvino.opset16 as ovo

    node = ovo.embedding_bag_packed(ovo.parameter([5, 2]), ovo.parameter([2, 2], ov.Type.i32))
    assert sorted(node.get_attributes()) == sorted(IR_ATTRS[("EmbeddingBagPacked", 15)])

@pytest.mark.parametrize(("op", "version"), CASE_KEYS)
@CASE_SETTINGS
@given(data=st.data())
def test_cases_are_valid_and_run(op: str, version: int, data: st.DataObject) -> None:
    case = data.draw(case_strategy(op, version))
    node, outs = check_case_runs(case, op, version)
    for i, got in enumerate(outs):  # static output shapes, and the node's element types
        assert got.shape == node.output(i).get_partial_shape().to_shape()
        assert got.dtype == node.output(i).get_element_type().to_dtype()


def test_sparse_fill_empty_rows_fills_and_sorts() -> None:
    # TensorFlow's documented example: rows 1 and 4 of a [5, 6] tensor are empty
    values = np.array([4.0, 1.0, 2.0, 3.0], np.float32)
    indices = np.array([[3, 1], [0, 1], [0, 3], [2, 0]], np.int64)
    node = opset.sparse_fill_empty_rows(P([4]), P([2], Type.i64), P([4, 2], Type.i64), P([]))
    assert [str(node.output(i).get_partial_shape()) for i in range(3)] == ["[?,2]", "[?]", "[?]"]
    out_idx, out_val, empty = evaluate_node(node, values, np.array([5, 6], np.int64), indices,
                                            np.array(-1, np.float32))
    np.testing.assert_array_equal(out_idx, [[0, 1], [0, 3], [1, 0], [2, 0], [3, 1], [4, 0]])
    np.testing.assert_array_equal(out_val, [1, 2, -1, 3, 4, -1])
    np.testing.assert_array_equal(empty, [False, True, False, False, True])
    assert (out_idx.dtype, out_val.dtype, empty.dtype) == (np.int64, np.float32, np.bool_)


def test_sparse_fill_empty_rows_shapes_from_constants_and_empty_input() -> None:
    node = opset.sparse_fill_empty_rows(P([2], Type.i32), np.array([4, 3], np.int32),
                                        np.array([[1, 2], [1, 0]], np.int32), P([], Type.i32))
    assert [str(node.output(i).get_partial_shape()) for i in range(3)] == ["[5,2]", "[5]", "[4]"]
    assert node.output(0).get_element_type() == Type.i32
    out_idx, out_val, empty = evaluate_node(node, np.array([5, 6], np.int32), np.array(0, np.int32))
    np.testing.assert_array_equal(out_idx, [[0, 0], [1, 0], [1, 2], [2, 0], [3, 0]])
    np.testing.assert_array_equal(out_val, [0, 6, 5, 0, 0])
    node = opset.sparse_fill_empty_rows(P([0]), P([2], Type.i32), P([0, 2], Type.i32), P([]))
    out_idx, out_val, empty = evaluate_node(node, np.zeros(0, np.float32), np.array([2, 2], np.int32),
                                            np.zeros((0, 2), np.int32), np.array(7, np.float32))
    np.testing.assert_array_equal(out_idx, [[0, 0], [1, 0]])
    np.testing.assert_array_equal(out_val, [7, 7])
    assert empty.all()


def test_sparse_fill_empty_rows_errors() -> None:
    from ovconform.errors import InferError
    cases: list[tuple[Any, str]] = [
        (lambda: opset.sparse_fill_empty_rows(P([2]), P([2], Type.f32), P([2, 2], Type.i32), P([])),
         r"dense_shape \(input 1\) has element type f32; it must be i32 or i64"),
        (lambda: opset.sparse_fill_empty_rows(P([2]), P([2], Type.i32), P([2, 2], Type.i64), P([])),
         r"indices \(input 2\) have element type i64; they must match dense_shape \(i32\)"),
        (lambda: opset.sparse_fill_empty_rows(P([2]), P([2], Type.i32), P([2, 2], Type.i32), P([], Type.f16)),
         r"default_value \(input 3\) has element type f16; it must match the values"),
        (lambda: opset.sparse_fill_empty_rows(P([3]), P([2], Type.i32), P([2, 2], Type.i32), P([])),
         r"values \[3\] and indices \[2,2\] must have the same number of entries"),
        (lambda: opset.sparse_fill_empty_rows(P([2]), P([3], Type.i32), P([2, 2], Type.i32), P([])),
         r"dense_shape \(input 1\) has shape \[3\]; it must be \[2\]"),
        (lambda: opset.sparse_fill_empty_rows(P([2]), P([2], Type.i32), P([2, 3], Type.i32), P([])),
         r"indices \(input 2\) have shape \[2,3\]; they must be \[M, 2\]"),
        (lambda: opset.sparse_fill_empty_rows(P([2]), P([2], Type.i32), P([2, 2], Type.i32), P([1])),
         r"default_value \(input 3\) has shape \[1\]; it must have rank 0"),
    ]
    for make, message in cases:
        with pytest.raises(ValidationError, match="SparseFillEmptyRows-16 node.*" + message):
            make()
    node = opset.sparse_fill_empty_rows(P([1]), P([2], Type.i32), P([1, 2], Type.i32), P([]))
    with pytest.raises(InferError, match=r"SparseFillEmptyRows-16 node .*index \[2, 0\] of entry 0 is outside the "
                                         r"dense shape \[2, 3\]"):
        evaluate_node(node, np.ones(1, np.float32), np.array([2, 3], np.int32), np.array([[2, 0]], np.int32),
                      np.array(0, np.float32))


def test_sparse_fill_empty_rows_cases_evaluate() -> None:
    assert ("SparseFillEmptyRows", 16) in all_case_keys()

    @seeded(20)
    @given(case_strategy("SparseFillEmptyRows", 16))
    def check(case: OpCase) -> None:
        params = case.model.get_parameters()
        out_idx, _, empty = evaluate(case.model, [case.inputs[p.friendly_name] for p in params])
        assert len(np.unique(out_idx[:, 0])) == empty.size  # every row has an entry afterwards

    check()


TABLE = np.array([[-0.2, -0.6], [-0.1, -0.4], [-1.9, -1.8], [-1., 1.5], [0.8, -0.7]], np.float32)
IDX = np.array([0, 2, 3, 4], np.int32)


def test_embedding_bag_offsets_spec_examples() -> None:
    offsets = np.array([0, 2, 2], np.int32)
    weights = np.array([0.5, 0.5, 0.5, 0.5], np.float32)
    (ex1,) = run_all(lambda t, i, o, w: opset.embedding_bag_offsets(t, i, o, 0, w), TABLE, IDX, offsets, weights)
    np.testing.assert_allclose(ex1, [[-1.05, -1.2], [-0.2, -0.6], [-0.1, 0.4]], rtol=1e-6)
    (ex2,) = run_all(lambda t, i, o, w: opset.embedding_bag_offsets(t, i, o, -1, w), TABLE, IDX, offsets,
                        np.array([0.5, 0.2, -2, 1], np.float32))
    np.testing.assert_allclose(ex2, [[-0.48, -0.66], [0., 0.], [2.8, -3.7]], rtol=1e-6)
    (ex3,) = run_all(lambda t, i, o: opset.embedding_bag_offsets(t, i, o, reduction="mean"), TABLE, IDX, offsets)
    np.testing.assert_allclose(ex3, [[-1.05, -1.2], [0., 0.], [-0.1, 0.4]], rtol=1e-6)
    (v3,) = run_all(lambda t, i, o, w: opset.embedding_bag_offsets_sum(t, i, o, 0, w), TABLE, IDX, offsets,
                       weights)
    np.testing.assert_array_equal(v3, ex1)


def test_embedding_bag_packed_and_segments() -> None:
    packed = np.array([[0, 2], [1, 2], [3, 4]], np.int64)
    (s,) = run_all(opset.embedding_bag_packed_sum, TABLE, packed)
    np.testing.assert_allclose(s, TABLE[packed].sum(axis=1), rtol=1e-6)
    (m,) = run_all(lambda t, i: opset.embedding_bag_packed(t, i, reduction="mean"), TABLE, packed)
    np.testing.assert_allclose(m, TABLE[packed].mean(axis=1), rtol=1e-6)
    w = np.array([[0.5, 2], [1, -1], [0, 3]], np.float32)
    (ws,) = run_all(opset.embedding_bag_packed, TABLE, packed, w)
    np.testing.assert_allclose(ws, (TABLE[packed] * w[..., None]).sum(axis=1), rtol=1e-6)
    seg = np.array([0, 0, 2, 2], np.int32)
    (out,) = run_all(lambda t, i, s: opset.embedding_segments_sum(t, i, s, 4, 1), TABLE, IDX, seg)
    np.testing.assert_allclose(out, [TABLE[0] + TABLE[2], TABLE[1], TABLE[3] + TABLE[4], TABLE[1]], rtol=1e-6)
    (zeros,) = run_all(lambda t, i, s: opset.embedding_segments_sum(t, i, s, 4), TABLE, IDX, seg)
    assert zeros[1].tolist() == [0, 0] and zeros[3].tolist() == [0, 0]


def test_embedding_integer_table_and_mean_truncates() -> None:
    table = np.array([[1, 2], [4, -7]], np.int32)
    (out,) = run_all(lambda t, i: opset.embedding_bag_packed(t, i, reduction="mean"), table,
                        np.array([[0, 1]], np.int32))
    assert out.dtype == np.int32 and out.tolist() == [[2, -2]]  # (5 / 2, -5 / 2) toward zero


def test_embedding_f16_accumulates_once() -> None:
    table = np.array([[2048], [1]], np.float16)
    (out,) = run_all(opset.embedding_bag_packed_sum, table, np.array([[0, 1, 1]], np.int32))
    assert out.dtype == np.float16 and out[0, 0] == np.float16(2050)  # 2048 + 1 + 1 (stepwise f16: 2048)


@pytest.mark.parametrize(("make", "message"), [
    (lambda: opset.embedding_bag_offsets(P([5, 2]), P([4], Type.i32), P([2], Type.i32), -1, P([4]), "mean"),
     "supported only with 'sum'"),
    (lambda: opset.embedding_bag_offsets_sum(P([5, 2]), P([4], Type.i32), P([2], Type.i64)),
     "index inputs must share one element type"),
    (lambda: opset.embedding_bag_packed_sum(P([5, 2]), P([4], Type.i32)), "indices .input 1. has shape \\[4\\]"),
    (lambda: opset.embedding_bag_packed_sum(P([5, 2]), P([2, 2], Type.f32)), "it must be i32 or i64"),
    (lambda: opset.embedding_bag_packed_sum(P([5, 2], Type.f16), P([2, 2], Type.i32), P([2, 2])),
     "per_sample_weights .input 2. has element type f32"),
    (lambda: opset.embedding_segments_sum(P([5, 2]), P([4], Type.i32), P([3], Type.i32), 2),
     "segment_ids \\[3\\] must have the shape of indices"),
    (lambda: opset.embedding_segments_sum(P([5, 2]), P([4], Type.i32), P([4], Type.i32), -2),
     "num_segments is -2"),
    (lambda: opset.embedding_bag_offsets_sum(P([5, 2]), P([4], Type.i32), P([2], Type.i32), None, P([4])),
     "per_sample_weights needs default_index"),
])
def test_embedding_builder_errors(make: Callable[[], Node], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        make()


@pytest.mark.parametrize(("make", "arrays", "message"), [
    (opset.embedding_bag_packed_sum, (TABLE, np.array([[0, 5]], np.int32)), "indices value 5 is out of range"),
    (opset.embedding_bag_offsets_sum, (TABLE, IDX, np.array([0, 3, 1], np.int32)), "must be non-decreasing"),
    (lambda t, i, o: opset.embedding_bag_offsets(t, i, o, 7), (TABLE, IDX, np.array([0, 0], np.int32)),
     "default_index 7 is out of range"),
    (lambda t, i, s: opset.embedding_segments_sum(t, i, s, 2), (TABLE, IDX, np.array([0, 1, 2, 2], np.int32)),
     "segment_ids value 2 is out of range"),
])
def test_embedding_run_time_errors(make: Callable[..., Node], arrays: tuple[np.ndarray, ...], message: str) -> None:
    with pytest.raises(InferError, match=message):
        run_all(make, *arrays)


def test_embedding_shapes() -> None:
    assert shape(opset.embedding_bag_offsets_sum(P([5, 2, 3]), P([-1], Type.i64), P([4], Type.i64))) == "[4,2,3]"
    assert shape(opset.embedding_bag_packed(P([-1, 2]), P([3, 2], Type.i32))) == "[3,2]"
    assert shape(opset.embedding_segments_sum(P([5, 2]), P([4], Type.i32), P([4], Type.i32),
                                              P([], Type.i32))) == "[?,2]"
