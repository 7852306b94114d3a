"""Tests of the matrix ops (OpenVINO's op-spec folder "matrix"): MatMul-1, Einsum-7 and Inverse-14 —
builder inference and errors (as OpenVINO writes and infers them), REFERENCE kernel numerics against
literal values or independent loop formulas (transcriptions of the specs' pseudo-code), and the case
strategies.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _op_helpers import P, out, run
from _opcase_checks import CASE_SETTINGS, check_case_runs, check_ir_spelling, versions_of
from hypothesis import given
from hypothesis import strategies as st

from ovconform import opset
from ovconform.errors import InferError, ValidationError
from ovconform.ir import Type
from ovconform.ir.opset_table import OPSET_VERSIONS
from ovconform.opcases import case_strategy

#: The op versions of the family whose case strategies are checked here.
CASE_KEYS = [("Inverse", 14), ("Einsum", 7)]
#: Attribute names, in IR order, as OpenVINO writes them.
IR_ATTRS = {("MatMul", 1): ["transpose_a", "transpose_b"], ("Inverse", 14): ["adjoint"], ("Einsum", 7): ["equation"]}
#: IR type names that differ from the op type.
IR_NAMES: dict[str, str] = {}

@pytest.mark.parametrize(("op", "version"), list(IR_ATTRS))
def test_ir_names_and_attributes_follow_openvino(op: str, version: int) -> None:
    check_ir_spelling(op, version, IR_ATTRS[(op, version)], IR_NAMES.get(op))
    assert version in OPSET_VERSIONS[op]


def test_builders_use_the_opset_versions() -> None:
    x4 = P([1, 2, 4, 4])
    assert versions_of([opset.inverse(x4), opset.einsum([x4], "abcd->abdc")]) == CASE_KEYS

@pytest.mark.parametrize(("op", "version"), CASE_KEYS)
@CASE_SETTINGS
@given(data=st.data())
def test_cases_are_valid_and_run(op: str, version: int, data: st.DataObject) -> None:
    case = data.draw(case_strategy(op, version))
    node, outs = check_case_runs(case, op, version)
    if node.get_output_element_type(0).is_real():
        assert np.all(np.isfinite(outs[0].astype(np.float64)))


def test_inverse_inference_and_errors() -> None:
    assert out(opset.inverse(P([2, -1, 3]))) == "[2,3,3]"
    assert out(opset.inverse(P([4, 4], Type.f16), True)) == "[4,4]"
    with pytest.raises(ValidationError, match=r"Inverse-14 node.*\[2,3\]: the last two dims must be equal"):
        opset.inverse(P([2, 3]))
    with pytest.raises(ValidationError, match=r"Inverse-14 node.*rank >= 2"):
        opset.inverse(P([3]))
    with pytest.raises(ValidationError, match="Inverse-14 node.*i32 is not allowed"):
        opset.inverse(P([3, 3], Type.i32))


@pytest.mark.parametrize("adjoint", [False, True])
def test_inverse_numerics(adjoint: bool) -> None:
    a = np.array([[[4.0, 1.0, 0.0], [2.0, 5.0, 1.0], [0.0, 1.0, 3.0]], [[2.0, 0.0, 0.0], [0.0, 0.5, 0.0],
                                                                      [1.0, 0.0, 1.0]]], np.float32)
    got = run(lambda p: opset.inverse(p, adjoint), a).astype(np.float64)
    base = np.swapaxes(a, -1, -2) if adjoint else a
    np.testing.assert_allclose(base.astype(np.float64) @ got, np.broadcast_to(np.eye(3), (2, 3, 3)), atol=1e-6)
    assert run(lambda p: opset.inverse(p), np.array([[2.0, 0.0], [0.0, 4.0]], np.float32)).tolist() == \
        [[0.5, 0.0], [0.0, 0.25]]


def test_inverse_of_a_singular_matrix_is_an_error() -> None:
    with pytest.raises(InferError, match="Inverse-14 node.*singular"):
        run(lambda p: opset.inverse(p), np.array([[1.0, 2.0], [2.0, 4.0]], np.float32))


# -- Einsum ---------------------------------------------------------------------------------------------------

EINSUM_CHECKS = [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]), ("ij->ji", [(2, 3)]),
    ("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("ij->", [(2, 3)]), ("i,j->ij", [(2,), (3,)]), ("ba", [(2, 3)]),
    ("ij,jk", [(2, 3), (3, 4)]), ("...ij,...jk->...ik", [(2, 1, 2, 3), (4, 3, 2)]), ("...ii->...i", [(2, 3, 3)]),
    ("a...->...a", [(2, 3, 4)]), ("ab,bc,cd->ad", [(2, 3), (3, 2), (2, 2)]), ("iij->ij", [(2, 2, 3)]),
]


@pytest.mark.parametrize(("equation", "shapes"), EINSUM_CHECKS)
def test_einsum_matches_numpy(equation: str, shapes: list[tuple[int, ...]]) -> None:
    rng = np.random.default_rng(len(equation))
    arrays = [rng.uniform(-2, 2, s).astype(np.float32) for s in shapes]
    node_shape = opset.einsum([P(list(s)) for s in shapes], equation).output(0).get_partial_shape()
    got = run(lambda *ps: opset.einsum(list(ps), equation), *arrays)
    want = np.einsum(equation, *(a.astype(np.float64) for a in arrays))
    assert got.shape == want.shape == node_shape.to_shape()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_einsum_on_integers_and_spaces() -> None:
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    assert run(lambda p: opset.einsum([p, p], "ij, ij -> i"), a).tolist() == [5, 50]
    assert opset.einsum([P([2, 3]), P([2, 3])], "ij, ij -> i").attrs["equation"] == "ij,ij->i"


@pytest.mark.parametrize(("shapes", "equation", "match"), [
    ([[2, 3], [4, 5]], "ij,jk->ik", r"label 'j' has dims of different sizes"),
    ([[2, 3]], "ij,jk->ik", r"2 input subscript\(s\) but the node has 1"),
    ([[2, 3]], "i->i", r"input 0 shape \[2,3\] does not have one dim per label"),
    ([[2, 3]], "ij->ii", r"output subscript 'ii' repeats a label"),
    ([[2, 3]], "ij->k", r"output label 'k' appears in no input"),
    ([[2, 3]], "i1->i", r"subscript 'i1' is not allowed"),
    ([[2, 3, 4]], "...j->j", r"an input has '...' but the output subscript does not"),
    ([[2, 3]], "ij->i->j", r"more than one '->'"),
])
def test_einsum_errors(shapes: list[list[int]], equation: str, match: str) -> None:
    with pytest.raises(ValidationError, match=f"Einsum-7 node.*{match}"):
        opset.einsum([P(s) for s in shapes], equation)


@pytest.mark.parametrize(("a", "b", "ta", "tb", "expected"), [
    ([2, 3], [3, 4], False, False, "[2,4]"),
    ([3, 2], [3, 4], True, False, "[2,4]"),
    ([2, 3], [4, 3], False, True, "[2,4]"),
    ([3], [3], False, False, "[]"),
    ([3], [3], True, True, "[]"),  # transposes do not apply to vectors
    ([3], [3, 4], True, False, "[4]"),
    ([4, 3], [3], False, True, "[4]"),
    ([3], [2, 3, 4], False, False, "[2,4]"),
    ([2, 4, 3], [3], False, False, "[2,4]"),
    ([2, 1, 4, 3], [5, 3, 6], False, False, "[2,5,4,6]"),
    ([1, 4, 3], [7, 3, 6], False, False, "[7,4,6]"),
    ([0, 3], [3, 0], False, False, "[0,0]"),
    ([-1, 4, -1], ["2..5", -1, 6], False, False, "[2..5,4,6]"),
    (["1..3", 4, 3], ["2..5", 3, 6], False, False, "[2..5,4,6]"),
    ([-1, 4, 3], [1, 3, 6], False, False, "[?,4,6]"),
    (["1..3", "2..7", 3], [3, "..6"], False, False, "[1..3,2..7,0..6]"),
    (["2..4", 3], [3, 5], True, False, "[3,5]"),
    ([4, "2..3"], ["3..5", 6], False, False, "[4,6]"),
    ([2, 4, 3], "...", False, False, "..."),
    ("...", [3], False, False, "..."),
])
def test_matmul_shapes(a: Any, b: Any, ta: bool, tb: bool, expected: str) -> None:
    assert out(opset.matmul(P(a), P(b), ta, tb)) == expected


@pytest.mark.parametrize("et", [Type.f16, Type.i32, Type.i64, Type.u8])
def test_matmul_keeps_numeric_type(et: Type) -> None:
    assert opset.matmul(P([2, 3], et), P([3, 2], et), False, False).output(0).get_element_type() == et


@pytest.mark.parametrize(("a", "b", "ta", "tb", "match"), [
    ([4, 3], [4, 6], False, False, "K=3.*K=4"),
    ([3, 4], [4, 6], True, False, "K=3.*K=4"),
    ([4, "2..3"], ["4..5", 6], False, False, "K=2..3.*K=4..5"),
    ([2, 4, 3], [5, 3, 6], False, False, r"batch dimensions .*\[2\].*\[5\]"),
    ([], [3], False, False, "input A is a scalar"),
    ([3], [], False, False, "input B is a scalar"),
])
def test_matmul_errors(a: Any, b: Any, ta: bool, tb: bool, match: str) -> None:
    with pytest.raises(ValidationError, match=f"MatMul-1 node .*{match}"):
        opset.matmul(P(a), P(b), ta, tb)


def test_matmul_type_errors() -> None:
    with pytest.raises(ValidationError, match="same element type"):
        opset.matmul(P([2, 3], Type.f16), P([3, 2]), False, False)
    with pytest.raises(ValidationError, match="boolean is not allowed"):
        opset.matmul(P([2, 3], Type.boolean), P([3, 2], Type.boolean), False, False)


def test_matmul_literal_takes_the_node_type() -> None:
    node = opset.matmul(P([2, 3], Type.f16), [[1.0], [2.0], [3.0]], False, False)
    assert node.input_value(1).get_element_type() == Type.f16 and out(node) == "[2,1]"
