"""Tier-3 "detect" family, part 2: CTCLoss-4 — IR attributes, builder inference and errors, and
the REFERENCE kernel against a brute-force sum over every frame path."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ovconform import opset
from ovconform.errors import InferError, ValidationError
from ovconform.ir import Model, Node, Type, get_opdef
from ovconform.opcases import OpCase, all_case_keys, case_strategy
from reference_plugin._evaluate import evaluate

P = opset.parameter
SETTINGS = settings(max_examples=20, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


def evaluate_node(node: Node, *inputs: np.ndarray) -> list[np.ndarray]:
    params = [n for n in (node.input_value(i).node for i in range(node.get_input_size())) if n.type_name == "Parameter"]
    return evaluate(Model(node.outputs(), params), list(inputs))


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


@SETTINGS
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
    @SETTINGS
    @given(case_strategy("CTCLoss", 4))
    def check(case: OpCase) -> None:
        params = case.model.get_parameters()
        (out,) = evaluate(case.model, [case.inputs[p.friendly_name] for p in params])
        assert (out.astype(np.float32) >= 0).all()

    check()
