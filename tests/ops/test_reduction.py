"""Tests of the reduction ops (OpenVINO's op-spec folder "reduction"): ReduceSum, ReduceMean,
ReduceMax, ReduceMin, ReduceProd, ReduceL1/L2-4 and ReduceLogicalAnd/Or — builder inference and
errors (as OpenVINO writes and infers them), REFERENCE kernel numerics against literal values or
independent loop formulas (transcriptions of the specs' pseudo-code), and the case strategies.
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
from ovconform.errors import ValidationError
from ovconform.ir import Type, bf16_to_f32, f32_to_bf16
from ovconform.ir.opset_table import OPSET_VERSIONS
from ovconform.opcases import case_strategy

#: The op versions of the family whose case strategies are checked here.
CASE_KEYS = [("ReduceMin", 1), ("ReduceProd", 1), ("ReduceL1", 4), ("ReduceL2", 4), ("ReduceLogicalAnd", 1),
             ("ReduceLogicalOr", 1)]
#: Attribute names, in IR order, as OpenVINO writes them.
IR_ATTRS = {key: ["keep_dims"] for key in [*CASE_KEYS, ("ReduceSum", 1), ("ReduceMean", 1), ("ReduceMax", 1)]}
#: IR type names that differ from the op type.
IR_NAMES: dict[str, str] = {}

@pytest.mark.parametrize(("op", "version"), list(IR_ATTRS))
def test_ir_names_and_attributes_follow_openvino(op: str, version: int) -> None:
    check_ir_spelling(op, version, IR_ATTRS[(op, version)], IR_NAMES.get(op))
    assert version in OPSET_VERSIONS[op]


def test_builders_use_the_opset_versions() -> None:
    x, b, f = P([2, 3], Type.i32), P([2, 3], Type.boolean), P([2, 3])
    built = [opset.reduce_min(x, [1]), opset.reduce_prod(x, [1]), opset.reduce_l1(x, [1]), opset.reduce_l2(f, [1]),
             opset.reduce_logical_and(b, [1]), opset.reduce_logical_or(b, [1])]
    assert versions_of(built) == CASE_KEYS

@pytest.mark.parametrize(("op", "version"), CASE_KEYS)
@CASE_SETTINGS
@given(data=st.data())
def test_cases_are_valid_and_run(op: str, version: int, data: st.DataObject) -> None:
    case = data.draw(case_strategy(op, version))
    node, outs = check_case_runs(case, op, version)


ARITH_REDUCERS = [opset.reduce_min, opset.reduce_prod, opset.reduce_l1, opset.reduce_l2]
LOGIC_REDUCERS = [opset.reduce_logical_and, opset.reduce_logical_or]


@pytest.mark.parametrize("builder", ARITH_REDUCERS + LOGIC_REDUCERS)
@pytest.mark.parametrize(("data", "axes", "keep", "expected"), [
    ([2, 3, 4], [1], False, "[2,4]"),
    ([2, 3, 4], [1, -1], True, "[2,1,1]"),
    ([2, 3, 4], [2, 2], False, "[2,3]"),
    ([2, 3, 4], [], False, "[2,3,4]"),
    ([2, -1, "1..8"], [0], False, "[?,1..8]"),
    ([], 0, False, "[]"),
    ("...", [0], True, "..."),
])
def test_reduce_shapes_with_constant_axes(builder: Any, data: Any, axes: Any, keep: bool, expected: str) -> None:
    et = Type.boolean if builder in LOGIC_REDUCERS else Type.f32
    node = builder(P(data, et), axes, keep)
    assert out(node) == expected and node.output(0).get_element_type() == et


@pytest.mark.parametrize(("axes_shape", "keep", "expected"), [
    ([1], False, "[?,?]"), ([], False, "[?,?]"), ([1], True, "[1..2,1..3,1..4]"), ([3], False, "..."),
    ([0], False, "[2,3,4]"),
])
def test_logical_reduce_with_axes_unknown_at_build_time(axes_shape: list[int], keep: bool, expected: str) -> None:
    node = opset.reduce_logical_or(P([2, 3, 4], Type.boolean), P(axes_shape, Type.i64), keep)
    assert out(node) == expected


@pytest.mark.parametrize(("builder", "label"), [(opset.reduce_min, "ReduceMin-1"), (opset.reduce_prod, "ReduceProd-1"),
                                                (opset.reduce_l1, "ReduceL1-4"), (opset.reduce_l2, "ReduceL2-4")])
def test_arithmetic_reductions_refuse_boolean_and_bad_axes(builder: Any, label: str) -> None:
    with pytest.raises(ValidationError, match=f"{label} node.*boolean is not allowed"):
        builder(P([2, 3], Type.boolean), [1])
    with pytest.raises(ValidationError, match=rf"{label} node.*reduction axis 2 is out of range for rank 2"):
        builder(P([2, 3]), [2])
    with pytest.raises(ValidationError, match=f"{label} node.*axes element type f32 is not allowed"):
        builder(P([2, 3]), opset.constant(np.array([1.0], np.float32)))


@pytest.mark.parametrize(("builder", "label"), [(opset.reduce_logical_and, "ReduceLogicalAnd-1"),
                                                (opset.reduce_logical_or, "ReduceLogicalOr-1")])
def test_logical_reductions_need_boolean_and_valid_axes(builder: Any, label: str) -> None:
    with pytest.raises(ValidationError, match=f"{label} node.*data element type f32 is not allowed; .*boolean"):
        builder(P([2, 3]), [1])
    with pytest.raises(ValidationError, match=rf"{label} node.*reduction axis -3 is out of range"):
        builder(P([2, 3], Type.boolean), [-3])
    with pytest.raises(ValidationError, match=rf"{label} node.*axes shape \[1,1\] is not allowed"):
        builder(P([2, 3], Type.boolean), opset.constant(np.array([[1]], np.int64)))
    with pytest.raises(ValidationError, match=f"{label.split('-')[0]}: reduction axes .* must be integers"):
        builder(P([2, 3], Type.boolean), [0.5])


# -- reductions: kernels ---------------------------------------------------------------------------

X = np.array([[3.0, -1.5, 2.0], [0.5, 4.0, -2.5]], np.float32)


@pytest.mark.parametrize(("builder", "formula"), [
    (opset.reduce_min, lambda x, a, k: np.min(x, axis=a, keepdims=k)),
    (opset.reduce_prod, lambda x, a, k: np.prod(x.astype(np.float64), axis=a, keepdims=k)),
    (opset.reduce_l1, lambda x, a, k: np.sum(np.abs(x.astype(np.float64)), axis=a, keepdims=k)),
    (opset.reduce_l2, lambda x, a, k: np.sqrt(np.sum(x.astype(np.float64) ** 2, axis=a, keepdims=k))),
])
@pytest.mark.parametrize(("axes", "keep"), [([1], False), ([0], True), ([-1, 0], False), ([0, 1, 1], True)])
def test_float_reductions_match_numpy(builder: Any, formula: Any, axes: list[int], keep: bool) -> None:
    got = run(lambda p: builder(p, axes, keep), X)
    want = formula(X, tuple(sorted({a % 2 for a in axes})), keep).astype(np.float32)
    assert got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_reduction_literals() -> None:
    assert run(lambda p: opset.reduce_min(p, [1]), X).tolist() == [-1.5, -2.5]
    assert run(lambda p: opset.reduce_prod(p, [0]), X).tolist() == [1.5, -6.0, -5.0]
    assert run(lambda p: opset.reduce_l1(p, [0, 1]), X).tolist() == 13.5
    assert run(lambda p: opset.reduce_l2(p, 0), np.array([3.0, 4.0], np.float32)).tolist() == 5.0
    b = np.array([[True, True], [True, False]])
    assert run(lambda p: opset.reduce_logical_and(p, [1]), b).tolist() == [True, False]
    assert run(lambda p: opset.reduce_logical_or(p, [0], True), b).tolist() == [[True, True]]
    assert run(lambda p: opset.reduce_logical_or(p, [1]), np.zeros((2, 3), bool)).tolist() == [False, False]


def test_integer_reductions_wrap_and_truncate() -> None:
    assert run(lambda p: opset.reduce_l1(p, [0]), np.array([-128, 0], np.int8)).tolist() == -128  # 128 wraps
    assert run(lambda p: opset.reduce_l1(p, [0]), np.array([-3, 4, -5], np.int32)).tolist() == 12
    assert run(lambda p: opset.reduce_prod(p, [0]), np.array([16, 16], np.int8)).tolist() == 0  # 256 wraps
    assert run(lambda p: opset.reduce_prod(p, [0]), np.array([-3, 5, 2], np.int64)).tolist() == -30
    assert run(lambda p: opset.reduce_prod(p, [0]), np.array([200, 2], np.uint8)).tolist() == 144
    assert run(lambda p: opset.reduce_l2(p, [0]), np.array([3, 4], np.int32)).tolist() == 5
    assert run(lambda p: opset.reduce_l2(p, [0]), np.array([1, 1], np.int32)).tolist() == 1  # sqrt 2 truncates
    assert run(lambda p: opset.reduce_min(p, [0]), np.array([7, 200, 3], np.uint8)).tolist() == 3


@pytest.mark.parametrize(("builder", "et", "want"), [
    (opset.reduce_min, Type.f32, np.inf),  # min's identity, as OpenVINO's reference code (issue #22)
    (opset.reduce_min, Type.f16, np.inf),
    (opset.reduce_min, Type.i8, 127),
    (opset.reduce_max, Type.f32, float(np.finfo(np.float32).min)),  # numeric_limits::lowest, as OpenVINO
    (opset.reduce_max, Type.i32, -2**31),
    (opset.reduce_min, Type.u8, 255),
    (opset.reduce_prod, Type.f32, 1.0),
    (opset.reduce_prod, Type.i32, 1),
    (opset.reduce_l1, Type.f32, 0.0),
    (opset.reduce_l2, Type.f32, 0.0),
    (opset.reduce_logical_and, Type.boolean, True),
    (opset.reduce_logical_or, Type.boolean, False),
])
def test_reductions_over_no_elements(builder: Any, et: Type, want: Any) -> None:
    got = run(lambda p: builder(p, [1]), np.zeros((2, 0), et.to_dtype()))
    assert got.shape == (2,) and got.tolist() == [want, want]


def test_reductions_on_low_precision_and_special_values() -> None:
    half = np.array([1.0, 2.0, 2.0], np.float16)
    assert run(lambda p: opset.reduce_l2(p, [0]), half).tolist() == 3.0
    bits = f32_to_bf16(np.array([2.0, -0.5, 3.0], np.float32))
    got = run(lambda p: opset.reduce_min(p, [0]), bits, types=[Type.bf16])
    assert bf16_to_f32(np.atleast_1d(got)).tolist() == [-0.5]
    assert np.isnan(run(lambda p: opset.reduce_min(p, [0]), np.array([1.0, np.nan], np.float32)))
    assert run(lambda p: opset.reduce_prod(p, [0]), np.array([1e30, 1e30], np.float32)).tolist() == np.inf
    scalar = np.array(5.0, np.float32)
    assert run(lambda p: opset.reduce_l1(p, 0), -scalar).tolist() == -5.0  # rank 0: the value itself


@pytest.mark.parametrize("builder", [opset.reduce_sum, opset.reduce_mean, opset.reduce_max])
@pytest.mark.parametrize(("data", "axes", "keep", "expected"), [
    ([2, 3, 4], [0, -1], False, "[3]"),
    ([2, 3, 4], [0, -1], True, "[1,3,1]"),
    ([2, 3, 4], [1, 1], False, "[2,4]"),
    ([2, 3, 4], [1, -2], True, "[2,1,4]"),
    ([2, 3, 4], np.array([], np.int64), False, "[2,3,4]"),
    ([2, 3, 4], np.int64(1), False, "[2,4]"),
    ([2, 3, 4], np.array([2, 0], np.int32), False, "[3]"),
    ([], np.array([], np.int64), False, "[]"),
    ([], [0], True, "[]"),
    ([-1, "2..5", 4], [1], False, "[?,4]"),
    ("...", [1], True, "..."),
])
def test_reduce_constant_axes(builder: Any, data: Any, axes: Any, keep: bool, expected: str) -> None:
    assert out(builder(P(data), axes, keep)) == expected


@pytest.mark.parametrize(("data", "axes", "keep", "expected"), [
    ([2, 3, 4], [2], False, "..."),
    ([2, 3, 4], [2], True, "[1..2,1..3,1..4]"),
    ([2, 1, -1], [-1], True, "[1..2,1,?]"),
    ([2, 3, 4], [], False, "[?,?]"),
    ([2, 3, 4], [1], False, "[?,?]"),
    ([2, 3, 4], [0], False, "[2,3,4]"),
    ("...", [2], True, "..."),
])
def test_reduce_axes_unknown_at_build_time(data: Any, axes: Any, keep: bool, expected: str) -> None:
    assert out(opset.reduce_sum(P(data), P(axes, Type.i64), keep)) == expected


@pytest.mark.parametrize(("data", "axes", "match"), [
    ([2, 3, 4], [3], r"reduction axis 3 is out of range for rank 3; allowed \[-3, 2\]"),
    ([2, 3, 4], [-4], "reduction axis -4 is out of range"),
    ([2, 3, 4], np.array([1.0], np.float32), "axes element type f32 is not allowed"),
    ([2, 3, 4], np.array([[1]], np.int64), r"axes shape \[1,1\] is not allowed"),
    ([], [1], "reduction axis 1 is out of range for a rank-0 input; allowed: 0 or -1"),
])
def test_reduce_errors(data: Any, axes: Any, match: str) -> None:
    axes_node = opset.constant(axes)
    with pytest.raises(ValidationError, match=f"ReduceMean-1 node.*{match}"):
        opset.reduce_mean(P(data), axes_node)


def test_reduce_type_errors() -> None:
    with pytest.raises(ValidationError, match="ReduceMax-1 node.*boolean is not allowed"):
        opset.reduce_max(P([2, 3], Type.boolean), [1])
    with pytest.raises(ValidationError, match=r"ReduceSum: reduction axes \[1.5\] must be integers"):
        opset.reduce_sum(P([2, 3]), [1.5])
    assert opset.reduce_sum(P([2, 3]), [1]).input_value(1).get_element_type() == Type.i64
    node = opset.reduce_sum(P([2, 3], Type.i32), np.array([1], np.int32))
    assert node.input_value(1).get_element_type() == Type.i32 and node.output(0).get_element_type() == Type.i32
