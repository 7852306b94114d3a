"""Tier-2 "bitwise" family: ReduceMin/Prod/L1/L2/LogicalAnd/LogicalOr, LogSoftmax-5 and the
bitwise ops (And/Or/Xor/Not-13, LeftShift/RightShift-15) — builder inference and errors, REFERENCE
kernel numerics against literal values or plain numpy formulas, and the case strategies."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _opcase_checks import check_case_runs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ovconform import opset
from ovconform.errors import InferError, ValidationError
from ovconform.ir import Model, Node, Type, as_type, bf16_to_f32, f32_to_bf16, get_opdef
from ovconform.opcases import all_case_keys, case_strategy
from reference_plugin._evaluate import evaluate

P = opset.parameter

REDUCE_KEYS = [("ReduceMin", 1), ("ReduceProd", 1), ("ReduceL1", 4), ("ReduceL2", 4), ("ReduceLogicalAnd", 1),
               ("ReduceLogicalOr", 1)]
BINARY_KEYS = [("BitwiseAnd", 13), ("BitwiseOr", 13), ("BitwiseXor", 13), ("BitwiseLeftShift", 15),
               ("BitwiseRightShift", 15)]
KEYS = [*REDUCE_KEYS, ("LogSoftmax", 5), *BINARY_KEYS, ("BitwiseNot", 13)]


def out(node: Node, i: int = 0) -> str:
    return str(node.output(i).get_partial_shape())


def run(make: Callable[..., Node], *arrays: Any, types: list[Any] | None = None) -> np.ndarray:
    """One op over Parameters holding ``arrays``; its single output evaluated on REFERENCE."""
    values = [np.asarray(a) for a in arrays]
    params = [P(list(v.shape), as_type(types[i]) if types else as_type(v.dtype), name=f"in{i}")
              for i, v in enumerate(values)]
    node = make(*params)
    (result,) = evaluate(Model([node.output(0)], params), values)
    return result


# -- op definitions: IR spelling ----------------------------------------------------------------

@pytest.mark.parametrize(("op", "version"), KEYS)
def test_ir_names_and_attributes_follow_openvino(op: str, version: int) -> None:
    d = get_opdef(op, version)
    assert (d.ir_type_name or d.type_name) == op
    expected = {"LogSoftmax": ["axis"], "BitwiseNot": []}.get(op, ["keep_dims"] if op.startswith("Reduce")
                                                                   else ["auto_broadcast"])
    assert [a.name for a in d.attrs] == expected


def test_builders_use_the_opset_versions() -> None:
    x, b = P([2, 3], Type.i32), P([2, 3], Type.boolean)
    f = P([2, 3])
    built = [opset.reduce_min(x, [1]), opset.reduce_prod(x, [1]), opset.reduce_l1(x, [1]), opset.reduce_l2(f, [1]),
             opset.reduce_logical_and(b, [1]), opset.reduce_logical_or(b, [1]), opset.log_softmax(f, 1),
             opset.bitwise_and(x, x), opset.bitwise_or(x, x), opset.bitwise_xor(x, x),
             opset.bitwise_left_shift(x, x), opset.bitwise_right_shift(x, x), opset.bitwise_not(x)]
    assert [(n.type_name, n.version) for n in built] == [
        ("ReduceMin", 1), ("ReduceProd", 1), ("ReduceL1", 4), ("ReduceL2", 4), ("ReduceLogicalAnd", 1),
        ("ReduceLogicalOr", 1), ("LogSoftmax", 5), ("BitwiseAnd", 13), ("BitwiseOr", 13), ("BitwiseXor", 13),
        ("BitwiseLeftShift", 15), ("BitwiseRightShift", 15), ("BitwiseNot", 13)]
    assert opset.bitwise_and(x, x, auto_broadcast="NUMPY").attrs["auto_broadcast"] == "numpy"


# -- reductions: inference ------------------------------------------------------------------------

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
    (opset.reduce_min, Type.f32, float(np.finfo(np.float32).max)),
    (opset.reduce_min, Type.f16, 65504.0),
    (opset.reduce_min, Type.i8, 127),
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


# -- LogSoftmax --------------------------------------------------------------------------------------

@pytest.mark.parametrize(("shape", "axis", "expected"), [([2, 3], 1, "[2,3]"), ([2, -1], -2, "[2,?]"),
                                                          ([], 0, "[]"), ("...", 5, "...")])
def test_log_softmax_inference(shape: Any, axis: int, expected: str) -> None:
    node = opset.log_softmax(P(shape, Type.f16), axis)
    assert out(node) == expected and node.output(0).get_element_type() == Type.f16


def test_log_softmax_errors() -> None:
    with pytest.raises(ValidationError,
                       match=r"LogSoftmax-5 node.*axis' 2 is out of range for rank 2; allowed \[-2, 1\]"):
        opset.log_softmax(P([2, 3]), 2)
    with pytest.raises(ValidationError, match="LogSoftmax-5 node.*axis' -3 is out of range"):
        opset.log_softmax(P([2, 3]), -3)
    with pytest.raises(ValidationError, match="LogSoftmax-5 node.*element type i32 is not allowed"):
        opset.log_softmax(P([2, 3], Type.i32), 1)


@pytest.mark.parametrize("axis", [0, 1, -1, -2])
def test_log_softmax_matches_the_formula(axis: int) -> None:
    x = np.array([[0.5, -1.0, 2.0], [3.0, 0.0, -4.0]], np.float32)
    e = np.exp(x.astype(np.float64))
    want = np.log(e / e.sum(axis=axis, keepdims=True))
    np.testing.assert_allclose(run(lambda p: opset.log_softmax(p, axis), x), want, rtol=1e-6, atol=1e-7)


def test_log_softmax_is_stable_and_handles_rank_0() -> None:
    got = run(lambda p: opset.log_softmax(p, 0), np.array([1000.0, 1000.0], np.float32))
    np.testing.assert_allclose(got, [-np.log(2.0)] * 2, rtol=1e-6)
    assert run(lambda p: opset.log_softmax(p, -1), np.array(7.0, np.float32)).tolist() == 0.0
    half = run(lambda p: opset.log_softmax(p, 0), np.array([0.0, 0.0, 0.0, 0.0], np.float16))
    assert half.dtype == np.float16 and half.tolist() == [float(np.float16(-np.log(4.0)))] * 4


# -- bitwise: inference -------------------------------------------------------------------------------

@pytest.mark.parametrize("builder", [opset.bitwise_and, opset.bitwise_or, opset.bitwise_xor,
                                     opset.bitwise_left_shift, opset.bitwise_right_shift])
def test_bitwise_binary_broadcasts(builder: Any) -> None:
    node = builder(P([2, 1, 3], Type.u8), P([4, 1], Type.u8))
    assert out(node) == "[2,4,3]" and node.output(0).get_element_type() == Type.u8
    with pytest.raises(ValidationError, match="same element type"):
        builder(P([2], Type.i32), P([2], Type.i64))
    with pytest.raises(ValidationError, match="element type f32 is not allowed; this bitwise op needs an integer"):
        builder(P([2]), P([2]))
    with pytest.raises(ValidationError):
        builder(P([2], Type.i32), P([3], Type.i32), auto_broadcast="none")


def test_bitwise_boolean_rules() -> None:
    b = P([2], Type.boolean)
    assert opset.bitwise_and(b, b).output(0).get_element_type() == Type.boolean
    assert opset.bitwise_not(b).output(0).get_element_type() == Type.boolean
    with pytest.raises(ValidationError, match="BitwiseLeftShift-15 node.*boolean is not allowed; .*integer type"):
        opset.bitwise_left_shift(b, b)
    with pytest.raises(ValidationError, match="BitwiseNot-13 node.*element type f16 is not allowed"):
        opset.bitwise_not(P([2], Type.f16))
    assert out(opset.bitwise_not(P([-1, "2..5"], Type.i8))) == "[?,2..5]"


# -- bitwise: kernels ------------------------------------------------------------------------------------

A8 = np.array([0b0110, -1, 85, -128], np.int8)
B8 = np.array([0b0011, 7, -86, 1], np.int8)


@pytest.mark.parametrize(("builder", "want"), [
    (opset.bitwise_and, [0b0010, 7, 0, 0]),
    (opset.bitwise_or, [0b0111, -1, -1, -127]),
    (opset.bitwise_xor, [0b0101, -8, -1, -127]),
])
def test_bitwise_logic_literals(builder: Any, want: list[int]) -> None:
    got = run(builder, A8, B8)
    assert got.dtype == np.int8 and got.tolist() == want


@pytest.mark.parametrize("et", [np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64])
def test_bitwise_logic_match_numpy_with_broadcasting(et: Any) -> None:
    rng = np.random.default_rng(7)
    info = np.iinfo(et)
    a = rng.integers(info.min, info.max, (2, 3), dtype=et, endpoint=True)
    b = rng.integers(info.min, info.max, (3,), dtype=et, endpoint=True)
    assert run(opset.bitwise_and, a, b).tolist() == (a & b).tolist()
    assert run(opset.bitwise_or, a, b).tolist() == (a | b).tolist()
    assert run(opset.bitwise_xor, a, b).tolist() == (a ^ b).tolist()
    assert run(opset.bitwise_not, a).tolist() == (~a).tolist()


def test_bitwise_on_booleans_is_logic() -> None:
    a, b = np.array([True, True, False, False]), np.array([True, False, True, False])
    assert run(opset.bitwise_and, a, b).tolist() == [True, False, False, False]
    assert run(opset.bitwise_or, a, b).tolist() == [True, True, True, False]
    assert run(opset.bitwise_xor, a, b).tolist() == [False, True, True, False]
    assert run(opset.bitwise_not, a).tolist() == [False, False, True, True]


def test_bitwise_not_literals() -> None:
    assert run(opset.bitwise_not, np.array([0, -1, 5, 127], np.int8)).tolist() == [-1, 0, -6, -128]
    assert run(opset.bitwise_not, np.array([0, 255, 15], np.uint8)).tolist() == [255, 0, 240]


def test_shift_literals() -> None:
    left, right = opset.bitwise_left_shift, opset.bitwise_right_shift
    assert run(left, np.array([1, 3, -5], np.int32), np.array([4, 1, 2], np.int32)).tolist() == [16, 6, -20]
    assert run(left, np.array([200, 1], np.uint8), np.array([1, 7], np.uint8)).tolist() == [144, 128]  # wraps
    assert run(left, np.array([64], np.int8), np.array([1], np.int8)).tolist() == [-128]  # two's complement
    assert run(right, np.array([-8, 8, -1], np.int32), np.array([1, 2, 5], np.int32)).tolist() == [-4, 2, -1]
    assert run(right, np.array([255, 128], np.uint8), np.array([4, 7], np.uint8)).tolist() == [15, 1]  # logical
    assert run(left, np.array([[1], [2]], np.int64), np.array([0, 40], np.int64)).tolist() == [[1, 2**40],
                                                                                              [2, 2**41]]


def test_shift_counts_the_spec_leaves_undefined() -> None:
    left, right = opset.bitwise_left_shift, opset.bitwise_right_shift
    assert run(left, np.array([1, -1], np.int8), np.array([8, 100], np.int8)).tolist() == [0, 0]
    assert run(right, np.array([100, -100], np.int8), np.array([8, 9], np.int8)).tolist() == [0, -1]
    assert run(right, np.array([255], np.uint8), np.array([200], np.uint8)).tolist() == [0]
    with pytest.raises(InferError, match="BitwiseRightShift.*shift count -1 is negative"):
        run(right, np.array([4], np.int32), np.array([-1], np.int32))


# -- case strategies --------------------------------------------------------------------------------------

CASE_SETTINGS = settings(max_examples=15, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])


def test_every_op_of_the_family_has_a_case() -> None:
    assert set(KEYS) <= set(all_case_keys())


@pytest.mark.parametrize(("op", "version"), KEYS)
@CASE_SETTINGS
@given(data=st.data())
def test_cases_are_valid_and_run(op: str, version: int, data: st.DataObject) -> None:
    case = data.draw(case_strategy(op, version))
    node, outs = check_case_runs(case, op, version)
    if op in ("BitwiseLeftShift", "BitwiseRightShift"):
        counts = case.inputs["b"].astype(np.int64)
        bits = 32 if node.get_input_element_type(0) == Type.i64 else node.get_input_element_type(0).bitwidth
        assert counts.min(initial=0) >= 0 and counts.max(initial=0) < bits
    if op == "LogSoftmax":
        assert np.all(np.asarray(outs[0], np.float64) <= 1e-3)
