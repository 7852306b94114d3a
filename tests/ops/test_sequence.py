"""Tests of the sequence ops (OpenVINO's op-spec folder "sequence"): RNNCell, GRUCell, LSTMCell,
RNNSequence, GRUSequence, LSTMSequence, CTCGreedyDecoder-1, CTCGreedyDecoderSeqLen-6, CTCLoss-4,
OneHot-1/16 and ScaledDotProductAttention-13 — builder inference and errors (as OpenVINO writes and
infers them), REFERENCE kernel numerics against literal values or independent loop formulas
(transcriptions of the specs' pseudo-code), and the case strategies.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _op_helpers import P, evaluate_node, out, run, run_all, seeded
from _op_helpers import out as shape
from _opcase_checks import CASE_SETTINGS, check_case_runs, check_ir_spelling, versions_of
from hypothesis import given
from hypothesis import strategies as st

from ovconform import opset
from ovconform.errors import InferError, ValidationError
from ovconform.ir import Node, Type, get_opdef
from ovconform.ir.opset_table import OPSET_VERSIONS
from ovconform.opcases import OpCase, all_case_keys, case_strategy
from reference_plugin.evaluate import evaluate

#: The op versions of the family whose case strategies are checked here.
CASE_KEYS = [("RNNCell", 1), ("GRUCell", 3), ("LSTMCell", 1), ("LSTMCell", 4), ("RNNSequence", 5), ("GRUSequence", 5),
             ("LSTMSequence", 5), ("CTCGreedyDecoder", 1), ("CTCGreedyDecoderSeqLen", 6), ("OneHot", 1), ("OneHot", 16),
             ("ScaledDotProductAttention", 13)]
#: Attribute names, in IR order, as OpenVINO writes them.
IR_ATTRS = {("CTCGreedyDecoder", 1): ["ctc_merge_repeated"],
            ("CTCGreedyDecoderSeqLen", 6): ["merge_repeated", "classes_index_type", "sequence_length_type"],
            ("OneHot", 1): ["axis"], ("OneHot", 16): ["axis", "negative_indices_mode"],
            ("ScaledDotProductAttention", 13): ["causal"]}
#: IR type names that differ from the op type.
IR_NAMES: dict[str, str] = {}

@pytest.mark.parametrize(("op", "version"), list(IR_ATTRS))
def test_ir_names_and_attributes_follow_openvino(op: str, version: int) -> None:
    check_ir_spelling(op, version, IR_ATTRS[(op, version)], IR_NAMES.get(op))
    assert version in OPSET_VERSIONS[op]


def test_builders_use_the_opset_versions() -> None:
    x3 = P([1, 4, 9])
    built = [opset.ctc_greedy_decoder(P([3, 2, 4]), P([3, 2])), opset.ctc_greedy_decoder_seq_len(P([2, 3, 4]), [3, 3]),
             opset.one_hot(np.array([1]), 3, 1.0, 0.0, -1, version=1), opset.one_hot(np.array([1]), 3, 1.0, 0.0, -1),
             opset.scaled_dot_product_attention(x3, x3, x3)]
    assert versions_of(built) == CASE_KEYS[7:]

@pytest.mark.parametrize(("op", "version"), CASE_KEYS)
@CASE_SETTINGS
@given(data=st.data())
def test_cases_are_valid_and_run(op: str, version: int, data: st.DataObject) -> None:
    case = data.draw(case_strategy(op, version))
    node, outs = check_case_runs(case, op, version)
    if op.startswith(("RNN", "GRU", "LSTM")):
        assert [o.shape for o in outs] == [o.get_partial_shape().to_shape() for o in node.outputs()]
        assert all(np.all(np.isfinite(o)) for o in outs)
    if op == "LSTMCell" and version == 1:  # OpenVINO's extensions beyond the spec stay at their defaults
        assert node.get_input_size() == 6 and not node.attrs["input_forget"] and node.attrs["weights_format"] == "fico"
    if op.startswith("CTC"):
        for i, got in enumerate(outs):  # static output shapes, and the node's element types
            assert got.shape == node.output(i).get_partial_shape().to_shape()
            assert got.dtype == node.output(i).get_element_type().to_dtype()


def _sdpa(q: np.ndarray, k: np.ndarray, v: np.ndarray, bias: Any = 0.0, scale: float | None = None) -> np.ndarray:
    s = (1 / math.sqrt(q.shape[-1])) if scale is None else scale
    w = q.astype(np.float64) @ np.swapaxes(k, -1, -2).astype(np.float64) * s + bias
    w = np.exp(w - w.max(axis=-1, keepdims=True))
    return (w / w.sum(axis=-1, keepdims=True)) @ v.astype(np.float64)


@pytest.fixture
def qkv() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(5)
    return (rng.uniform(-1, 1, (2, 3, 4, 5)).astype(np.float32), rng.uniform(-1, 1, (2, 3, 6, 5)).astype(np.float32),
            rng.uniform(-1, 1, (2, 3, 6, 2)).astype(np.float32))


def test_sdpa_plain_and_scaled(qkv: tuple[np.ndarray, ...]) -> None:
    q, k, v = qkv
    got = run(opset.scaled_dot_product_attention, q, k, v)
    np.testing.assert_allclose(got, _sdpa(q, k, v), rtol=1e-5, atol=1e-6)
    scale = np.float32(0.3)
    got = run(lambda a, b, c, s: opset.scaled_dot_product_attention(a, b, c, None, s), q, k, v, scale)
    np.testing.assert_allclose(got, _sdpa(q, k, v, scale=0.3), rtol=1e-5, atol=1e-6)


def test_sdpa_masks(qkv: tuple[np.ndarray, ...]) -> None:
    q, k, v = qkv
    mask = np.random.default_rng(1).random((4, 6)) < 0.5
    mask[:, 0] = True
    got = run(lambda a, b, c, m: opset.scaled_dot_product_attention(a, b, c, m), q, k, v, mask)
    np.testing.assert_allclose(got, _sdpa(q, k, v, np.where(mask, 0.0, -np.inf)), rtol=1e-5, atol=1e-6)
    fmask = np.random.default_rng(2).uniform(-2, 2, (1, 3, 1, 6)).astype(np.float32)
    got = run(lambda a, b, c, m: opset.scaled_dot_product_attention(a, b, c, m), q, k, v, fmask)
    np.testing.assert_allclose(got, _sdpa(q, k, v, fmask), rtol=1e-5, atol=1e-6)


def test_sdpa_causal_ignores_the_mask_and_aligns_top_left(qkv: tuple[np.ndarray, ...]) -> None:
    q, k, v = qkv
    causal = np.triu(np.full((4, 6), -np.inf), k=1)
    junk = np.full((4, 6), 100.0, np.float32)
    got = run(lambda a, b, c, m: opset.scaled_dot_product_attention(a, b, c, m, causal=True), q, k, v, junk)
    np.testing.assert_allclose(got, _sdpa(q, k, v, causal), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[..., 0, :], v[..., 0, :], rtol=1e-6)  # row 0 sees only key 0


def test_sdpa_row_masked_everywhere_is_nan(qkv: tuple[np.ndarray, ...]) -> None:
    q, k, v = qkv
    mask = np.ones((4, 6), bool)
    mask[2] = False
    got = run(lambda a, b, c, m: opset.scaled_dot_product_attention(a, b, c, m), q, k, v, mask)
    assert np.isnan(got[:, :, 2]).all() and not np.isnan(got[:, :, :2]).any()


def test_sdpa_inference_and_errors() -> None:
    q, k, v = P([2, 1, 4, 8]), P([1, 3, 5, 8]), P([2, 3, 5, 6])
    assert out(opset.scaled_dot_product_attention(q, k, v)) == "[2,3,4,6]"
    node = opset.scaled_dot_product_attention(P([2, 4, 8]), P([2, 5, 8]), P([2, 5, 3]), scale=0.5)
    assert node.get_input_size() == 5 and node.input_value(3).get_element_type() == Type.f32
    with pytest.raises(ValidationError, match=r"ScaledDotProductAttention-13 node.*differ in the feature dim"):
        opset.scaled_dot_product_attention(P([2, 4, 8]), P([2, 5, 7]), P([2, 5, 3]))
    with pytest.raises(ValidationError, match=r"ScaledDotProductAttention-13 node.*differ in the sequence dim"):
        opset.scaled_dot_product_attention(P([2, 4, 8]), P([2, 5, 8]), P([2, 6, 3]))
    with pytest.raises(ValidationError, match=r"ScaledDotProductAttention-13 node.*attention_mask element type i32"):
        opset.scaled_dot_product_attention(P([2, 4, 8]), P([2, 5, 8]), P([2, 5, 3]), P([4, 5], Type.i32))
    with pytest.raises(ValidationError, match=r"ScaledDotProductAttention-13 node.*cannot be broadcast"):
        opset.scaled_dot_product_attention(P([2, 4, 8]), P([2, 5, 8]), P([2, 5, 3]), P([4, 3]))
    with pytest.raises(ValidationError, match=r"ScaledDotProductAttention-13 node.*scale shape \[2\]"):
        opset.scaled_dot_product_attention(P([2, 4, 8]), P([2, 5, 8]), P([2, 5, 3]), P([4, 5]), P([2]))
    with pytest.raises(ValidationError, match=r"ScaledDotProductAttention-13 node.*rank >= 3"):
        opset.scaled_dot_product_attention(P([4, 8]), P([5, 8]), P([5, 3]))


def test_one_hot_inference() -> None:
    assert out(opset.one_hot(P([2, 3], Type.i32), 5, 1.0, 0.0, 1)) == "[2,5,3]"
    assert out(opset.one_hot(P([2, 3], Type.i64), 5, 1.0, 0.0, -1, version=1)) == "[2,3,5]"
    assert out(opset.one_hot(P([], Type.i64), 4, 1.0, 0.0, 0)) == "[4]"
    node = opset.one_hot(P([2], Type.i32), P([], Type.i64), np.int8(3), np.int8(0), 0)
    assert out(node) == "[?,2]" and node.output(0).get_element_type() == Type.i8
    with pytest.raises(ValidationError, match=r"OneHot-16 node.*'axis' 3 is out of range for rank 3"):
        opset.one_hot(P([2, 3], Type.i32), 5, 1.0, 0.0, 3)
    with pytest.raises(ValidationError, match="OneHot-16 node.*on_value and off_value must share"):
        opset.one_hot(P([2], Type.i32), 5, opset.constant(np.float32(1)), opset.constant(np.int32(0)), 0)
    with pytest.raises(ValidationError, match="OneHot-16 node.*indices .input 0. has element type f32"):
        opset.one_hot(P([2]), 5, 1.0, 0.0, 0)
    with pytest.raises(ValidationError, match="OneHot-1 node.*depth is -2"):
        opset.one_hot(P([2], Type.i32), -2, 1.0, 0.0, 0, version=1)
    with pytest.raises(ValidationError, match="'negative_indices_mode'='wrap' is not allowed"):
        opset.one_hot(P([2], Type.i32), 2, 1.0, 0.0, 0, "wrap")
    with pytest.raises(ValidationError, match="OneHot-1 has no negative_indices_mode"):
        opset.one_hot(P([2], Type.i32), 2, 1.0, 0.0, 0, "normalize", version=1)


def test_one_hot_literals() -> None:
    idx = np.array([0, 2, -1, 1], np.int64)
    want = [[5, 0, 0], [0, 0, 5], [0, 0, 0], [0, 5, 0]]
    for v in (1, 16):
        got = run(lambda p, v=v: opset.one_hot(p, 3, np.float32(5), np.float32(0), -1, version=v), idx)
        assert got.dtype == np.float32 and got.tolist() == want
    norm = run(lambda p: opset.one_hot(p, 3, np.int8(1), np.int8(-1), 0, "normalize"), np.array([-1, -4, 3], np.int32))
    assert norm.dtype == np.int8 and norm.tolist() == [[-1, -1, -1], [-1, -1, -1], [1, -1, -1]]
    mid = run(lambda p: opset.one_hot(p, 2, np.int32(7), np.int32(0), 1), np.array([[1, 0, 1]], np.int32))
    assert mid.shape == (1, 2, 3) and mid.tolist() == [[[0, 7, 0], [7, 0, 7]]]
    assert run(lambda p: opset.one_hot(p, 3, 1.0, 0.0, 0), np.array(1, np.int32)).tolist() == [0, 1, 0]


def test_one_hot_depth_at_run_time() -> None:
    def make(i: Node, d: Node) -> Node:
        return opset.one_hot(i, d, np.float32(1), np.float32(0), -1)

    assert run(make, np.array([1, 0], np.int32), np.array(2, np.int64)).tolist() == [[0, 1], [1, 0]]
    assert run(make, np.array([1, 0], np.int32), np.array(0, np.int64)).shape == (2, 0)
    with pytest.raises(InferError, match="OneHot-16 node.*depth is -1; it must be >= 0"):
        run(make, np.array([1], np.int32), np.array(-1, np.int64))


def test_one_hot_builder_stores_attributes_as_openvino_writes_them() -> None:
    assert opset.one_hot(P([2, 3], Type.i32), 4, 1.0, 0.0, -1).attrs == {"axis": 2,
                                                                      "negative_indices_mode": "ignore_negative"}
    assert opset.one_hot(P("...", Type.i32), 4, 1.0, 0.0, -1, "NORMALIZE").attrs["axis"] == -1


def test_ctc_loss_attributes_and_case() -> None:
    assert [a.name for a in get_opdef("CTCLoss", 4).attrs] == ["preprocess_collapse_repeated", "ctc_merge_repeated",
                                                                "unique"]
    assert ("CTCLoss", 4) in all_case_keys()


def brute_force_loss(logits: np.ndarray, target: list[int], blank: int, merge: bool) -> float:
    """-log of the summed probability of every frame path that decodes to ``target``."""
    probs = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    total = 0.0
    for path in itertools.product(range(logits.shape[1]), repeat=logits.shape[0]):
        merged = [k for i, k in enumerate(path) if not merge or i == 0 or k != path[i - 1]]
        if [k for k in merged if k != blank] == target:
            total += float(np.prod(probs[np.arange(len(path)), list(path)]))
    return -np.log(total) if total > 0 else np.inf


def decoded(labels: list[int], unique: bool, collapse: bool) -> list[int]:
    if unique:
        return list(dict.fromkeys(labels))
    if collapse:
        return [k for i, k in enumerate(labels) if i == 0 or k != labels[i - 1]]
    return labels


@seeded(20)
@given(st.integers(0, 2**32 - 1), st.booleans(), st.booleans(), st.booleans(), st.booleans())
def test_ctc_loss_matches_a_brute_force_path_sum(seed: int, collapse: bool, merge: bool, unique: bool,
                                                 explicit_blank: bool) -> None:
    rng = np.random.default_rng(seed)
    n, t, c = 2, 4, 3
    logits = rng.uniform(-2, 2, (n, t, c)).astype(np.float32)
    blank = int(rng.integers(0, c)) if explicit_blank else c - 1
    others = [k for k in range(c) if k != blank]
    labels = np.array(rng.choice(others, (n, t)), np.int64)
    logit_length = rng.integers(1, t + 1, n)
    label_length = np.array([rng.integers(1, length + 1) for length in logit_length])
    params = [P([n, t, c]), P([n], Type.i64), P([n, t], Type.i64), P([n], Type.i64)]
    node = opset.ctc_loss(*params, np.array(blank, np.int64) if explicit_blank else None, collapse, merge, unique)
    (got,) = evaluate_node(node, logits, logit_length, labels, label_length)
    for b in range(n):
        target = decoded(labels[b, :label_length[b]].tolist(), unique, collapse)
        want = brute_force_loss(logits[b, :logit_length[b]].astype(np.float64), target, blank, merge)
        np.testing.assert_allclose(got[b], want, rtol=1e-5)


def test_ctc_loss_literal_values() -> None:
    # uniform logits over 2 classes, T = 2, label [0], blank 1: paths "0b", "b0", "00" (merge) -> 3/4
    logits = np.zeros((1, 2, 2), np.float32)
    args = (np.array([2], np.int32), np.array([[0, 0]], np.int32), np.array([1], np.int32))
    for merge, want in [(True, -np.log(0.75)), (False, -np.log(0.5))]:
        (got,) = evaluate_node(opset.ctc_loss(P([1, 2, 2]), *map(opset.constant, args), ctc_merge_repeated=merge),
                               logits)
        np.testing.assert_allclose(got, [want], rtol=1e-6)
    # "00" needs a blank between equal labels when merging: no fit in 2 frames -> +inf
    (got,) = evaluate_node(opset.ctc_loss(P([1, 2, 2]), np.array([2], np.int32), np.array([[0, 0]], np.int32),
                                          np.array([2], np.int32)), logits)
    assert got.dtype == np.float32 and got[0] == np.inf


def test_ctc_loss_shapes_and_errors() -> None:
    node = opset.ctc_loss(P([-1, 5, 4], Type.f16), P([3], Type.i64), P([-1, 5], Type.i64), P([-1], Type.i64))
    assert str(node.output(0).get_partial_shape()) == "[3]" and node.output(0).get_element_type() == Type.f16
    cases: list[tuple[Any, str]] = [
        (lambda: opset.ctc_loss(P([2, 5, 4], Type.i32), P([2], Type.i32), P([2, 5], Type.i32), P([2], Type.i32)),
         r"logits \(input 0\) have element type i32; they must be floating-point"),
        (lambda: opset.ctc_loss(P([2, 5, 4]), P([2], Type.i32), P([2, 5], Type.i32), P([2], Type.u8)),
         r"label_length \(input 3\) has element type u8; it must be i32 or i64"),
        (lambda: opset.ctc_loss(P([2, 5]), P([2], Type.i32), P([2, 5], Type.i32), P([2], Type.i32)),
         r"logits \(input 0\) has shape \[2,5\]; it must have rank 3"),
        (lambda: opset.ctc_loss(P([2, 5, 4]), P([3], Type.i32), P([2, 5], Type.i32), P([2], Type.i32)),
         "logit_length dim 0 is 3; it must equal the other inputs' 2"),
        (lambda: opset.ctc_loss(P([2, 5, 4]), P([2], Type.i32), P([2, 6], Type.i32), P([2], Type.i32)),
         "labels dim 1 is 6; it must equal the other inputs' 5"),
        (lambda: opset.ctc_loss(P([2, 5, 4]), P([2], Type.i32), P([2, 5], Type.i32), P([2], Type.i32),
                                P([1], Type.i32)), r"blank_index \(input 4\) has shape \[1\]; it must have rank 0"),
    ]
    for make, message in cases:
        with pytest.raises(ValidationError, match="CTCLoss-4 node.*" + message):
            make()


def test_ctc_loss_run_time_errors() -> None:
    node = opset.ctc_loss(P([1, 3, 3]), P([1], Type.i32), P([1, 3], Type.i32), P([1], Type.i32), P([], Type.i32))
    logits = np.zeros((1, 3, 3), np.float32)
    ok = [np.array([3], np.int32), np.array([[0, 1, 0]], np.int32), np.array([2], np.int32), np.array(2, np.int32)]
    assert np.isfinite(evaluate_node(node, logits, *ok)[0]).all()
    for index, bad, message in [(0, np.array([4], np.int32), "logit length 4 and label length 2 must satisfy"),
                                (2, np.array([4], np.int32), "logit length 3 and label length 4"),
                                (1, np.array([[0, 5, 0]], np.int32), r"labels \[0, 5\] must lie in \[0, 2\]"),
                                (3, np.array(3, np.int32), r"blank_index 3 is out of range; allowed \[0, 2\]")]:
        args = list(ok)
        args[index] = bad
        with pytest.raises(InferError, match="CTCLoss-4 node .*" + message):
            evaluate_node(node, logits, *args)


def test_ctc_loss_cases_evaluate() -> None:
    @seeded(20)
    @given(case_strategy("CTCLoss", 4))
    def check(case: OpCase) -> None:
        params = case.model.get_parameters()
        (out,) = evaluate(case.model, [case.inputs[p.friendly_name] for p in params])
        assert (out.astype(np.float32) >= 0).all()

    check()


def test_ctc_greedy_decoder_literal() -> None:
    # argmax per step for batch 0: 1, 1, 3(blank), 1, 2 ; batch 1 has 2 steps: 0, 0
    best = [[1, 0], [1, 0], [3, 2], [1, 1], [2, 1]]
    data = np.zeros((5, 2, 4), np.float32)
    for t, row in enumerate(best):
        for b, k in enumerate(row):
            data[t, b, k] = 1
    mask = np.array([[1, 1], [1, 1], [1, 0], [1, 0], [1, 0]], np.float32)
    (merged,) = run_all(opset.ctc_greedy_decoder, data, mask)
    assert merged.shape == (2, 5, 1, 1)
    assert merged[..., 0, 0].tolist() == [[1, 1, 2, -1, -1], [0, -1, -1, -1, -1]]
    (raw,) = run_all(lambda d, m: opset.ctc_greedy_decoder(d, m, False), data, mask)
    assert raw[..., 0, 0].tolist() == [[1, 1, 1, 2, -1], [0, 0, -1, -1, -1]]


def test_ctc_greedy_decoder_seq_len_literal() -> None:
    data = np.zeros((2, 4, 3), np.float32)
    for (b, t), k in np.ndenumerate(np.array([[0, 0, 2, 1], [1, 2, 2, 1]])):
        data[b, t, k] = 1
    lengths = np.array([4, 3], np.int32)
    classes, counts = run_all(opset.ctc_greedy_decoder_seq_len, data, lengths)
    assert classes.dtype == np.int32 and classes.tolist() == [[0, 1, -1, -1], [1, -1, -1, -1]]
    assert counts.tolist() == [2, 1]
    classes, counts = run_all(lambda d, s: opset.ctc_greedy_decoder_seq_len(
        d, s, np.array([0], np.int32), False, "i64", "i64"), data, lengths)
    assert classes.dtype == counts.dtype == np.int64
    assert classes.tolist() == [[2, 1, -1, -1], [1, 2, 2, -1]] and counts.tolist() == [2, 3]


def test_ctc_shapes_and_errors() -> None:
    n = opset.ctc_greedy_decoder_seq_len(P([-1, 7, 4]), P([3], Type.i64), classes_index_type="i64")
    assert (shape(n, 0), shape(n, 1), n.output(0).get_element_type()) == ("[3,7]", "[3]", Type.i64)
    assert shape(opset.ctc_greedy_decoder(P([5, -1, 4]), P([-1, 2]))) == "[2,5,1,1]"
    with pytest.raises(ValidationError, match="CTCGreedyDecoder-1 node .*seq_indicators \\[4,2\\] must be \\[T, N\\]"):
        opset.ctc_greedy_decoder(P([5, 2, 4]), P([4, 2]))
    with pytest.raises(ValidationError, match="needs a floating-point type"):
        opset.ctc_greedy_decoder_seq_len(P([2, 3, 4], Type.i32), P([2], Type.i32))
    with pytest.raises(ValidationError, match="classes_index_type"):
        opset.ctc_greedy_decoder_seq_len(P([2, 3, 4]), P([2], Type.i32), classes_index_type="f32")
    with pytest.raises(InferError, match="sequence_length value 5 is out of range; allowed \\[0, 3\\]"):
        run_all(opset.ctc_greedy_decoder_seq_len, np.zeros((1, 3, 2), np.float32), np.array([5], np.int32))


def test_ctc_greedy_decoder_seq_len_attributes_as_openvino_writes_them() -> None:
    ov = pytest.importorskip("openvino")
    import openvino.opset16 as ovo

    node = ovo.ctc_greedy_decoder_seq_len(ovo.parameter([2, 3, 4]), ovo.parameter([2], ov.Type.i32))
    expected = ["merge_repeated", "classes_index_type", "sequence_length_type"]
    assert sorted(node.get_attributes()) == sorted(expected)
    assert [a.name for a in get_opdef("CTCGreedyDecoderSeqLen", 6).attrs] == expected


KEYS = [("RNNCell", 1), ("GRUCell", 3), ("LSTMCell", 1), ("LSTMCell", 4), ("RNNSequence", 5), ("GRUSequence", 5),
        ("LSTMSequence", 5)]
COMMON = ["hidden_size", "activations", "activations_alpha", "activations_beta", "clip"]
RNG = np.random.default_rng(23)


def shapes(node: Node) -> list[str]:
    return [str(o.get_partial_shape()) for o in node.outputs()]




# -- an independent formula: one batch row at a time, scalar activations ------------------------------------------

def sig(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


ACT = {"sigmoid": sig, "tanh": math.tanh, "relu": lambda x: max(x, 0.0)}


def clipped(v: float, clip: float) -> float:
    return min(max(v, -clip), clip) if clip > 0 else v


def dot(row: np.ndarray, vec: np.ndarray) -> float:
    return float(sum(float(a) * float(b) for a, b in zip(row, vec, strict=True)))


def ref_rnn(x: np.ndarray, h: np.ndarray, w: np.ndarray, r: np.ndarray, b: np.ndarray, acts: list[str],
            clip: float) -> np.ndarray:
    return np.array([ACT[acts[0]](clipped(dot(w[j], x) + dot(r[j], h) + b[j], clip)) for j in range(len(h))])


def ref_gru(x: np.ndarray, h: np.ndarray, w: np.ndarray, r: np.ndarray, b: np.ndarray, acts: list[str],
            clip: float, lbr: bool) -> np.ndarray:
    n = len(h)
    f, g = ACT[acts[0]], ACT[acts[1]]
    z = [f(clipped(dot(w[j], x) + dot(r[j], h) + b[j], clip)) for j in range(n)]
    rs = [f(clipped(dot(w[n + j], x) + dot(r[n + j], h) + b[n + j], clip)) for j in range(n)]
    if lbr:
        cand = [g(clipped(dot(w[2 * n + j], x) + rs[j] * (dot(r[2 * n + j], h) + b[3 * n + j]) + b[2 * n + j], clip))
                for j in range(n)]
    else:
        rh = np.array(rs) * h
        cand = [g(clipped(dot(w[2 * n + j], x) + dot(r[2 * n + j], rh) + b[2 * n + j], clip)) for j in range(n)]
    return np.array([(1 - z[j]) * cand[j] + z[j] * h[j] for j in range(n)])


def ref_lstm(x: np.ndarray, h: np.ndarray, c: np.ndarray, w: np.ndarray, r: np.ndarray, b: np.ndarray,
             acts: list[str], clip: float, p: np.ndarray | None = None,
             input_forget: bool = False) -> tuple[np.ndarray, np.ndarray]:
    n = len(h)
    f, g, hh = ACT[acts[0]], ACT[acts[1]], ACT[acts[2]]
    pre = [[dot(w[k * n + j], x) + dot(r[k * n + j], h) + b[k * n + j] for j in range(n)] for k in range(4)]
    peep = np.zeros(3 * n) if p is None else p
    ho, co = np.zeros(n), np.zeros(n)
    for j in range(n):
        i = f(clipped(pre[1][j] + peep[j] * c[j], clip))
        ft = 1 - i if input_forget else f(clipped(pre[0][j] + peep[2 * n + j] * c[j], clip))
        co[j] = ft * c[j] + i * g(clipped(pre[2][j], clip))
        o = f(clipped(pre[3][j] + peep[n + j] * co[j], clip))
        ho[j] = o * hh(co[j])
    return ho, co


def ref_sequence(kind: str, x: np.ndarray, h0: np.ndarray, c0: np.ndarray | None, lengths: np.ndarray,
                 w: np.ndarray, r: np.ndarray, b: np.ndarray, direction: str, acts: list[str], clip: float,
                 lbr: bool = False) -> list[np.ndarray]:
    batch, steps, hidden = x.shape[0], x.shape[1], h0.shape[-1]
    dirs = {"forward": [False], "reverse": [True], "bidirectional": [False, True]}[direction]
    y = np.zeros((batch, len(dirs), steps, hidden))
    ho, co = np.zeros((batch, len(dirs), hidden)), np.zeros((batch, len(dirs), hidden))
    for n in range(batch):
        for d, reverse in enumerate(dirs):
            h = h0[n, d].astype(np.float64)
            c = None if c0 is None else c0[n, d].astype(np.float64)
            order = range(int(lengths[n]) - 1, -1, -1) if reverse else range(int(lengths[n]))
            for t in order:
                if kind == "RNN":
                    h = ref_rnn(x[n, t], h, w[d], r[d], b[d], acts, clip)
                elif kind == "GRU":
                    h = ref_gru(x[n, t], h, w[d], r[d], b[d], acts, clip, lbr)
                else:
                    h, c = ref_lstm(x[n, t], h, c, w[d], r[d], b[d], acts, clip)
                y[n, d, t] = h
            ho[n, d] = h
            if c is not None:
                co[n, d] = c
    return [y, ho] + ([co] if kind == "LSTM" else [])


def arr(*shape: int, scale: float = 1.0) -> np.ndarray:
    return (RNG.uniform(-1, 1, shape) * scale).astype(np.float32)


# -- op definitions: IR spelling (as openvino.save_model writes them) ---------------------------------------------

@pytest.mark.parametrize(("op", "version", "attrs", "inputs"), [
    ("RNNCell", 1, COMMON, (5, 5)),
    ("GRUCell", 3, ["linear_before_reset", *COMMON], (4, 5)),
    ("LSTMCell", 1, [*COMMON, "input_forget", "weights_format"], (5, 7)),
    ("LSTMCell", 4, COMMON, (6, 6)),
    ("RNNSequence", 5, ["direction", *COMMON], (6, 6)),
    ("GRUSequence", 5, ["direction", "linear_before_reset", *COMMON], (6, 6)),
    ("LSTMSequence", 5, ["direction", *COMMON], (7, 7)),
])
def test_ir_names_attributes_and_arity(op: str, version: int, attrs: list[str], inputs: tuple[int, int]) -> None:
    d = get_opdef(op, version)
    assert d.opset == f"opset{version}" and [a.name for a in d.attrs] == attrs
    assert (d.min_inputs, d.max_inputs) == inputs


def test_defaults_follow_the_spec() -> None:
    x, h, c = P([2, 3]), P([2, 4]), P([2, 4])
    rnn = opset.rnn_cell(x, h, arr(4, 3), arr(4, 4), arr(4), 4)
    gru = opset.gru_cell(x, h, arr(12, 3), arr(12, 4), arr(12), 4)
    lstm = opset.lstm_cell(x, h, c, arr(16, 3), arr(16, 4), arr(16), 4)
    lstm1 = opset.lstm_cell(x, h, c, arr(16, 3), arr(16, 4), arr(16), 4, version=1)
    assert rnn.attrs["activations"] == ["tanh"] and gru.attrs["activations"] == ["sigmoid", "tanh"]
    assert lstm.attrs["activations"] == ["sigmoid", "tanh", "tanh"] and lstm.attrs["clip"] == 0.0
    assert gru.attrs["linear_before_reset"] is False
    assert (lstm1.attrs["input_forget"], lstm1.attrs["weights_format"]) == (False, "fico")
    assert [(n.type_name, n.version) for n in (rnn, gru, lstm1, lstm)] == KEYS[:4]


# -- shape inference ----------------------------------------------------------------------------------------------

def test_cell_shapes() -> None:
    x, h, c = P([-1, 3]), P([2, 4]), P([2, 4])
    assert shapes(opset.rnn_cell(x, h, P([4, 3]), P([4, 4]), P([4]), 4)) == ["[2,4]"]
    assert shapes(opset.gru_cell(P([5, 3], Type.f16), P([5, 2], Type.f16), P([6, 3], Type.f16),
                                 P([6, 2], Type.f16), P([8], Type.f16), 2, linear_before_reset=True)) == ["[5,2]"]
    assert shapes(opset.lstm_cell(x, P([-1, 4]), c, P([16, -1]), P([16, 4]), P([16]), 4)) == ["[2,4]", "[2,4]"]
    assert shapes(opset.lstm_cell(P("..."), P("..."), P("..."), P([16, 3]), P([16, 4]), None, 4,
                                  version=1)) == ["[?,4]", "[?,4]"]
    assert shapes(opset.lstm_cell(x, h, c, P([16, 3]), P([16, 4]), P([16]), 4, P=P([12]), version=1)) == [
        "[2,4]", "[2,4]"]


@pytest.mark.parametrize(("direction", "num_dir"), [("forward", 1), ("REVERSE", 1), ("bidirectional", 2)])
def test_sequence_shapes(direction: str, num_dir: int) -> None:
    x, h, c, lens = P([3, 5, 2]), P([3, num_dir, 4]), P([-1, num_dir, 4]), P([3], Type.i32)
    w = lambda g: P([num_dir, g * 4, 2])  # noqa: E731
    r = lambda g: P([num_dir, g * 4, 4])  # noqa: E731
    b = lambda g: P([num_dir, g * 4])  # noqa: E731
    rnn = opset.rnn_sequence(x, h, lens, w(1), r(1), b(1), 4, direction)
    gru = opset.gru_sequence(x, h, lens, w(3), r(3), b(3), 4, direction)
    lstm = opset.lstm_sequence(x, h, c, lens, w(4), r(4), b(4), 4, direction)
    y, state = f"[3,{num_dir},5,4]", f"[3,{num_dir},4]"
    assert shapes(rnn) == shapes(gru) == [y, state] and shapes(lstm) == [y, state, state]
    assert rnn.attrs["direction"] == direction.lower()
    dyn = opset.rnn_sequence(P([-1, -1, 2]), P("..."), P([-1], Type.i64), w(1), r(1), b(1), 4, direction)
    assert shapes(dyn) == [f"[?,{num_dir},?,4]", f"[?,{num_dir},4]"]


X2, H2 = P([2, 3]), P([2, 4])


@pytest.mark.parametrize(("make", "message"), [
    (lambda: opset.rnn_cell(X2, H2, P([4, 3]), P([4, 4]), P([4]), 5), r"RNNCell-1 node.*initial_hidden_state shape "
                                                                       r"\[2,4\]: dimension hidden_size is 4"),
    (lambda: opset.rnn_cell(X2, H2, P([4, 3]), P([4, 4]), P([4]), 0), r"'hidden_size'=0 must be positive"),
    (lambda: opset.rnn_cell(X2, H2, P([4, 2]), P([4, 4]), P([4]), 4), r"W shape \[4,2\]: dimension input_size is 2"),
    (lambda: opset.rnn_cell(X2, H2, P([4, 3]), P([4, 4]), P([4]), 4, ["tanh", "tanh"]),
     r"'activations'=\['tanh', 'tanh'\] must list 1 activation\(s\) for a RNN cell"),
    (lambda: opset.gru_cell(X2, H2, P([12, 3]), P([12, 4]), P([12]), 4, ["sigmoid", "elu"]),
     r"GRUCell-3 node.*holds \['elu'\]; allowed: sigmoid, tanh, relu"),
    (lambda: opset.gru_cell(X2, H2, P([12, 3]), P([12, 4]), P([12]), 4, linear_before_reset=True),
     r"B shape \[12\]: dimension bias_size is 12, but other inputs give 16"),
    (lambda: opset.lstm_cell(X2, H2, H2, P([16, 3]), P([16, 4]), P([16]), 4, clip=-1.0), r"'clip'=-1.0 must be >= 0"),
    (lambda: opset.lstm_cell(X2, H2, H2, P([12, 3]), P([12, 4]), P([12]), 4), r"LSTMCell-4 node.*W shape \[12,3\]"),
    (lambda: opset.lstm_cell(X2, H2, H2, P([16, 3]), P([16, 4]), P([16]), 4, P=P([12])),
     r"LSTMCell-4 has no peepholes, input_forget or weights_format"),
    (lambda: opset.lstm_cell(X2, H2, H2, P([16, 3]), P([16, 4]), None, 4), r"LSTMCell-4 needs B"),
    (lambda: opset.lstm_cell(X2, H2, H2, P([16, 3]), P([16, 4]), P([16]), 4, P=P([16]), version=1),
     r"LSTMCell-1 node.*P shape \[16\]: dimension 3\*hidden_size is 16, but other inputs give 12"),
    (lambda: opset.lstm_cell(X2, H2, H2, P([16, 3]), P([16, 4]), P([16]), 4, weights_format="xyzw", version=1),
     r"'weights_format'='xyzw' is not allowed; allowed: 'fico', 'icof'"),
    (lambda: opset.rnn_cell(P([2, 3], Type.i32), P([2, 4], Type.i32), P([4, 3], Type.i32), P([4, 4], Type.i32),
                            P([4], Type.i32), 4), r"X element type i32 is not allowed"),
    (lambda: opset.rnn_cell(X2, P([2, 4], Type.f16), P([4, 3]), P([4, 4]), P([4]), 4),
     r"must share one element type; got \['f32', 'f16', 'f32', 'f32', 'f32'\]"),
    (lambda: opset.rnn_cell(P([2, 3, 1]), H2, P([4, 3]), P([4, 4]), P([4]), 4),
     r"X shape \[2,3,1\] must have rank 2 \(\[batch_size, input_size\]\)"),
    (lambda: opset.rnn_sequence(P([2, 5, 3]), P([2, 1, 4]), P([2], Type.i32), P([1, 4, 3]), P([1, 4, 4]), P([1, 4]),
                                4, "sideways"), r"'direction'='sideways' is not allowed; allowed: 'forward'"),
    (lambda: opset.rnn_sequence(P([2, 5, 3]), P([2, 1, 4]), P([2], Type.i32), P([1, 4, 3]), P([1, 4, 4]), P([1, 4]),
                                4, "bidirectional"), r"initial_hidden_state shape \[2,1,4\]: dimension "
                                                     r"num_directions is 1, but other inputs give 2"),
    (lambda: opset.gru_sequence(P([2, 5, 3]), P([2, 1, 4]), P([2]), P([1, 12, 3]), P([1, 12, 4]), P([1, 12]), 4,
                                "forward"), r"sequence_lengths element type f32 is not allowed; it must be an integer"),
    (lambda: opset.lstm_sequence(P([2, 5, 3]), P([2, 1, 4]), P([2, 1, 4]), P([3], Type.i64), P([1, 16, 3]),
                                 P([1, 16, 4]), P([1, 16]), 4, "forward"),
     r"LSTMSequence-5 node.*sequence_lengths shape \[3\]: dimension batch_size is 3, but other inputs give 2"),
])
def test_errors_name_the_node_and_the_bad_value(make: Callable[[], Node], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        make()


# -- kernels: literal values --------------------------------------------------------------------------------------

def test_cell_literals() -> None:
    one = np.ones((1, 1), np.float32)
    (ho,) = run_all(lambda *a: opset.rnn_cell(*a, 1), one, np.zeros((1, 1), np.float32), one, one,
                    np.zeros(1, np.float32))
    assert ho.tolist() == [[np.float32(math.tanh(1.0))]]
    (relu,) = run_all(lambda *a: opset.rnn_cell(*a, 1, ["relu"], clip=0.5), one, one, one, one, np.ones(1, np.float32))
    assert relu.tolist() == [[0.5]]  # relu(clip(3)) = 0.5
    # GRU with zero weights: z = r = 0.5, candidate tanh(0) = 0, so Ho = 0.5 * H
    zeros = np.zeros((3, 1), np.float32)
    (gru,) = run_all(lambda *a: opset.gru_cell(*a, 1), one, 4 * one, zeros, zeros, np.zeros(3, np.float32))
    assert gru.tolist() == [[2.0]]
    # LSTM with zero weights: every gate 0.5 and c = tanh(0) = 0, so Co = 0.5 * C, Ho = 0.5 * tanh(Co)
    w = np.zeros((4, 1), np.float32)
    ho, co = run_all(lambda *a: opset.lstm_cell(*a, 1), one, one, 2 * one, w, w, np.zeros(4, np.float32))
    assert co.tolist() == [[1.0]] and ho.tolist() == [[np.float32(0.5 * math.tanh(1.0))]]


# -- kernels: against the per-element formula ---------------------------------------------------------------------

ACT_CHOICES = [None, ["relu"], ["sigmoid"]]


@pytest.mark.parametrize("acts", ACT_CHOICES)
@pytest.mark.parametrize("clip", [0.0, 0.7])
def test_rnn_cell_matches_formula(acts: list[str] | None, clip: float) -> None:
    x, h, w, r, b = arr(3, 2, scale=2), arr(3, 4, scale=2), arr(4, 2), arr(4, 4), arr(4)
    (got,) = run_all(lambda *a: opset.rnn_cell(*a, 4, acts, clip=clip), x, h, w, r, b)
    want = [ref_rnn(x[n], h[n], w, r, b, acts or ["tanh"], clip) for n in range(3)]
    np.testing.assert_allclose(got, np.array(want), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("lbr", [False, True])
@pytest.mark.parametrize(("acts", "clip"), [(None, 0.0), (["relu", "sigmoid"], 0.0), (["tanh", "relu"], 1.2)])
def test_gru_cell_matches_formula(lbr: bool, acts: list[str] | None, clip: float) -> None:
    x, h, w, r, b = arr(2, 3, scale=2), arr(2, 3, scale=2), arr(9, 3), arr(9, 3), arr(12 if lbr else 9)
    (got,) = run_all(lambda *a: opset.gru_cell(*a, 3, acts, clip=clip, linear_before_reset=lbr), x, h, w, r, b)
    want = [ref_gru(x[n], h[n], w, r, b, acts or ["sigmoid", "tanh"], clip, lbr) for n in range(2)]
    np.testing.assert_allclose(got, np.array(want), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("version", [1, 4])
@pytest.mark.parametrize(("acts", "clip"), [(None, 0.0), (["relu", "sigmoid", "relu"], 0.0),
                                            (["tanh", "tanh", "sigmoid"], 0.8)])
def test_lstm_cell_matches_formula(version: int, acts: list[str] | None, clip: float) -> None:
    x, h, c = arr(2, 3, scale=2), arr(2, 2, scale=2), arr(2, 2, scale=2)
    w, r, b = arr(8, 3), arr(8, 2), arr(8)
    ho, co = run_all(lambda *a: opset.lstm_cell(*a, 2, acts, clip=clip, version=version), x, h, c, w, r, b)
    for n in range(2):
        want_h, want_c = ref_lstm(x[n], h[n], c[n], w, r, b, acts or ["sigmoid", "tanh", "tanh"], clip)
        np.testing.assert_allclose(ho[n], want_h, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(co[n], want_c, rtol=1e-5, atol=1e-6)


def test_lstm_cell_1_extensions_beyond_the_spec() -> None:
    """Optional B (zeros), peepholes ``iof``, input_forget and weights_format, as ov::op::v0::LSTMCell documents."""
    x, h, c = arr(2, 3, scale=2), arr(2, 2, scale=2), arr(2, 2, scale=2)
    w, r, b, p = arr(8, 3), arr(8, 2), arr(8), arr(6)
    acts = ["sigmoid", "tanh", "tanh"]
    no_bias = run_all(lambda *a: opset.lstm_cell(*a, None, 2, version=1), x, h, c, w, r)
    with_zero = run_all(lambda *a: opset.lstm_cell(*a, 2, version=1), x, h, c, w, r, np.zeros(8, np.float32))
    assert all(np.array_equal(u, v) for u, v in zip(no_bias, with_zero, strict=True))
    ho, co = run_all(lambda *a: opset.lstm_cell(*a[:6], 2, P=a[6], input_forget=True, version=1), x, h, c, w, r, b, p)
    for n in range(2):
        want_h, want_c = ref_lstm(x[n], h[n], c[n], w, r, b, acts, 0.0, p, input_forget=True)
        np.testing.assert_allclose(ho[n], want_h, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(co[n], want_c, rtol=1e-5, atol=1e-6)
    blocks = dict(zip("fico", np.split(w, 4), strict=True)), dict(zip("fico", np.split(r, 4), strict=True)), \
        dict(zip("fico", np.split(b, 4), strict=True))
    fmt = "iofc"
    reordered = [np.concatenate([d[g] for g in fmt]) for d in blocks]
    plain = run_all(lambda *a: opset.lstm_cell(*a, 2, version=1), x, h, c, w, r, b)
    other = run_all(lambda *a: opset.lstm_cell(*a, 2, weights_format=fmt, version=1), x, h, c, *reordered)
    assert all(np.allclose(u, v, rtol=1e-6) for u, v in zip(plain, other, strict=True))


SEQ_BUILDERS = {"RNN": (opset.rnn_sequence, 1), "GRU": (opset.gru_sequence, 3), "LSTM": (opset.lstm_sequence, 4)}


@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
def test_sequences_match_formula(kind: str, direction: str) -> None:
    builder, gates = SEQ_BUILDERS[kind]
    nd, hidden = (2 if direction == "bidirectional" else 1), 3
    x, h0, c0 = arr(3, 4, 2, scale=2), arr(3, nd, hidden), arr(3, nd, hidden)
    lengths = np.array([4, 1, 3], np.int32)
    w, r, b = arr(nd, gates * hidden, 2), arr(nd, gates * hidden, hidden), arr(nd, gates * hidden)
    acts = {"RNN": ["relu"], "GRU": ["sigmoid", "tanh"], "LSTM": ["sigmoid", "relu", "tanh"]}[kind]
    states = [x, h0, c0] if kind == "LSTM" else [x, h0]
    got = run_all(lambda *a: builder(*a, hidden, direction, acts, clip=1.5), *states, lengths, w, r, b)
    want = ref_sequence(kind, x, h0, c0 if kind == "LSTM" else None, lengths, w, r, b, direction, acts, 1.5)
    assert len(got) == len(want)
    for g, v in zip(got, want, strict=True):
        assert g.dtype == np.float32 and g.shape == v.shape
        np.testing.assert_allclose(g, v, rtol=1e-5, atol=1e-6)
    assert np.all(got[0][1, :, 1:] == 0)  # past the length of 1: Y is 0


def test_gru_sequence_linear_before_reset_and_f16() -> None:
    x, h0, lengths = arr(2, 3, 2, scale=2), arr(2, 1, 2), np.array([3, 2], np.int64)
    w, r, b = arr(1, 6, 2), arr(1, 6, 2), arr(1, 8)
    y, ho = run_all(lambda *a: opset.gru_sequence(*a, 2, "forward", linear_before_reset=True), x, h0, lengths, w, r, b)
    want = ref_sequence("GRU", x, h0, None, lengths, w, r, b, "forward", ["sigmoid", "tanh"], 0.0, lbr=True)
    np.testing.assert_allclose(y, want[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ho, want[1], rtol=1e-5, atol=1e-6)
    half = [a.astype(np.float16) for a in (x, h0)]
    y16, _ = run_all(lambda *a: opset.gru_sequence(*a, 2, "forward", linear_before_reset=True), *half, lengths,
                 *(a.astype(np.float16) for a in (w, r, b)))
    assert y16.dtype == np.float16
    np.testing.assert_allclose(y16, want[0], atol=5e-3)


def test_sequence_lengths_are_checked_at_run_time() -> None:
    x, h0, w, r, b = arr(2, 3, 2), arr(2, 1, 2), arr(1, 2, 2), arr(1, 2, 2), arr(1, 2)
    with pytest.raises(InferError, match=r"RNNSequence-5 node.*sequence_lengths holds \[4\]; each length must be "
                                         r"in \[0, 3\]"):
        run_all(lambda *a: opset.rnn_sequence(*a, 2, "forward"), x, h0, np.array([1, 4], np.int32), w, r, b)
    y, ho = run_all(lambda *a: opset.rnn_sequence(*a, 2, "reverse"), x, h0, np.array([0, 3], np.int32), w, r, b)
    assert np.all(y[0] == 0) and np.array_equal(ho[0], h0[0])  # length 0: no step, the initial state


@pytest.mark.parametrize("lbr", [False, True])
def test_gru_cell_bias_is_optional(lbr: bool) -> None:
    x, h, w, r = arr(2, 3), arr(2, 2), arr(6, 3), arr(6, 2)
    (no_bias,) = run_all(lambda *a: opset.gru_cell(*a, None, 2, linear_before_reset=lbr), x, h, w, r)
    (zero,) = run_all(lambda *a: opset.gru_cell(*a, 2, linear_before_reset=lbr), x, h, w, r,
                  np.zeros(8 if lbr else 6, np.float32))
    assert np.array_equal(no_bias, zero)
    assert shapes(opset.gru_cell(P([2, 3]), P([2, 2]), P([6, 3]), P([6, 2]), None, 2)) == ["[2,2]"]
