"""Elementwise REFERENCE kernels: hand-checked values for every op, element type class and mode."""

from __future__ import annotations

import math

import numpy as np
import pytest
from ref_kernel_util import FLOAT_TYPES, INT_TYPES, NUMERIC_TYPES, bf16, from_bf16, run1, typed, untyped

from ovconform import opset as ops
from ovconform.errors import InferError

F32 = np.float32


def f32(*v: float) -> np.ndarray:
    return np.array(v, dtype=F32)


# -- binary arithmetic ------------------------------------------------------------------------

@pytest.mark.parametrize("t", NUMERIC_TYPES)
def test_add_every_numeric_type(t: str) -> None:
    out = run1(ops.add, typed([1, 2, 3], t), typed([4, 5, 6], t), types=[t, t])
    assert out.dtype == typed([0], t).dtype
    np.testing.assert_array_equal(untyped(out, t), [5, 7, 9])


@pytest.mark.parametrize(("build", "expected"), [
    (ops.add, [[11, 22, 33], [14, 25, 36]]),
    (ops.subtract, [[-9, -18, -27], [-6, -15, -24]]),
    (ops.multiply, [[10, 40, 90], [40, 100, 180]]),
    (ops.maximum, [[10, 20, 30], [10, 20, 30]]),
    (ops.minimum, [[1, 2, 3], [4, 5, 6]]),
    (ops.squared_difference, [[81, 324, 729], [36, 225, 576]]),
])
def test_binary_numpy_broadcast_f32(build, expected) -> None:  # noqa: ANN001
    a = np.array([[1, 2, 3], [4, 5, 6]], F32)
    b = np.array([10, 20, 30], F32)
    out = run1(build, a, b)
    assert out.dtype == F32 and out.shape == (2, 3)
    np.testing.assert_array_equal(out, expected)


def test_broadcast_size1_dims_both_sides() -> None:
    a = np.array([[1], [2]], F32)          # (2, 1)
    b = np.array([[[10, 20, 30]]], F32)   # (1, 1, 3)
    out = run1(ops.add, a, b)
    assert out.shape == (1, 2, 3)
    np.testing.assert_array_equal(out, [[[11, 21, 31], [12, 22, 32]]])


def test_integer_overflow_wraps() -> None:
    assert run1(ops.add, np.array([127], np.int8), np.array([1], np.int8)).tolist() == [-128]
    assert run1(ops.add, np.array([250], np.uint8), np.array([10], np.uint8)).tolist() == [4]
    assert run1(ops.subtract, np.array([0], np.uint16), np.array([1], np.uint16)).tolist() == [65535]
    assert run1(ops.multiply, np.array([2**31 - 1], np.int32), np.array([2], np.int32)).tolist() == [-2]


def test_bf16_add_rounds_to_nearest_even() -> None:
    # bf16 keeps 8 significant bits: 1 + 2**-8 is a tie (→ 1.0); 1 + 3 * 2**-8 is a tie (→ 1 + 2**-6).
    out = run1(ops.add, bf16([1.0, 1.0, 2.0]), bf16([2**-8, 3 * 2**-8, 0.5]), types=["bf16", "bf16"])
    assert out.dtype == np.uint16
    np.testing.assert_array_equal(from_bf16(out), [1.0, 1.015625, 2.5])


def test_f16_overflow_gives_inf() -> None:
    out = run1(ops.add, np.array([65504, 1], np.float16), np.array([32, 2], np.float16))
    assert out.dtype == np.float16
    assert np.isinf(out[0]) and out[1] == 3


def test_auto_broadcast_none_rejects_runtime_mismatch() -> None:
    with pytest.raises(InferError, match=r"Add-1 node .*must be equal when auto_broadcast='none'"):
        run1(lambda a, b: ops.add(a, b, auto_broadcast="none"), f32(1, 2), f32(1, 2, 3), shapes=[[-1], [-1]])


def test_auto_broadcast_none_equal_shapes() -> None:
    out = run1(lambda a, b: ops.add(a, b, auto_broadcast="none"), f32(1, 2), f32(3, 4))
    np.testing.assert_array_equal(out, [4, 6])


def test_auto_broadcast_pdpd() -> None:
    a = np.ones((2, 3), F32)
    out = run1(lambda x, y: ops.multiply(x, y, auto_broadcast="pdpd"), a, f32(1, 2, 3))
    np.testing.assert_array_equal(out, [[1, 2, 3], [1, 2, 3]])
    with pytest.raises(InferError, match="pdpd"):  # the second input may not grow the first
        run1(lambda x, y: ops.multiply(x, y, auto_broadcast="pdpd"), np.ones((1, 3), F32), a,
             shapes=[[-1, -1], [-1, -1]])


def test_dynamic_shape_binary() -> None:
    a = np.arange(12, dtype=F32).reshape(3, 4)
    out = run1(ops.add, a, f32(1, 1, 1, 1), shapes=[[-1, -1], ["1..8"]])
    np.testing.assert_array_equal(out, a + 1)


# -- division and remainders --------------------------------------------------------------------

@pytest.mark.parametrize("t", ["i8", "i32", "i64"])
def test_divide_integer_floor_and_trunc(t: str) -> None:
    a, b = typed([7, -7, 7, -7, 6], t), typed([2, 2, -2, -2, 3], t)
    assert run1(lambda x, y: ops.divide(x, y, python_division=True), a, b).tolist() == [3, -4, -4, 3, 2]
    assert run1(lambda x, y: ops.divide(x, y, python_division=False), a, b).tolist() == [3, -3, -3, 3, 2]


def test_divide_unsigned_and_float() -> None:
    assert run1(ops.divide, typed([7, 255], "u8"), typed([2, 16], "u8")).tolist() == [3, 15]
    out = run1(ops.divide, f32(1, -1, 0, 7), f32(0, 0, 0, 2))
    assert out[0] == np.inf and out[1] == -np.inf and np.isnan(out[2]) and out[3] == 3.5


def test_divide_integer_by_zero_is_an_infer_error() -> None:
    with pytest.raises(InferError, match=r"Divide-1 node .*division by zero"):
        run1(ops.divide, typed([1, 2], "i32"), typed([1, 0], "i32"))


@pytest.mark.parametrize("t", ["i32", "f32", "f64", "i64"])
def test_floor_mod_and_mod_signs(t: str) -> None:
    a, b = typed([5, -5, 5, -5, 6], t), typed([3, 3, -3, -3, 3], t)
    assert untyped(run1(ops.floor_mod, a, b), t).tolist() == [2, 1, -1, -2, 0]
    assert untyped(run1(ops.mod, a, b), t).tolist() == [2, -2, 2, -2, 0]


def test_mod_fractional_floats() -> None:
    np.testing.assert_allclose(run1(ops.mod, f32(5.5, -5.5), f32(2, 2)), [1.5, -1.5])
    np.testing.assert_allclose(run1(ops.floor_mod, f32(5.5, -5.5), f32(2, 2)), [1.5, 0.5])


def test_mod_integer_by_zero_is_an_infer_error() -> None:
    with pytest.raises(InferError, match=r"FloorMod-1 node .*division by zero"):
        run1(ops.floor_mod, typed([1], "i32"), typed([0], "i32"))


def test_power_floats_and_integers() -> None:
    np.testing.assert_allclose(run1(ops.power, f32(2, 4, 9, -8), f32(3, 0.5, -0.5, 1 / 3)),
                               [8, 2, 1 / 3, np.nan], equal_nan=True)
    assert run1(ops.power, typed([2, 3, -2, 5], "i32"), typed([3, 0, 3, 2], "i32")).tolist() == [8, 1, -8, 25]
    # negative exponents: the truncated quotient 1 / a**-b
    got = run1(ops.power, typed([1, -1, -1, 2, -3], "i32"), typed([-1, -1, -2, -1, -2], "i32"))
    assert got.tolist() == [1, -1, 1, 0, 0]
    assert run1(ops.power, typed([2], "i8"), typed([7], "i8")).tolist() == [-128]  # wraps
    assert run1(ops.power, typed([3], "u8"), typed([5], "u8")).tolist() == [243]


# -- comparison and logical ------------------------------------------------------------------------

@pytest.mark.parametrize("t", NUMERIC_TYPES)
def test_comparisons_every_type(t: str) -> None:
    a, b = typed([1, 2, 3], t), typed([2, 2, 2], t)
    expected = {
        ops.equal: [False, True, False], ops.not_equal: [True, False, True],
        ops.less: [True, False, False], ops.less_equal: [True, True, False],
        ops.greater: [False, False, True], ops.greater_equal: [False, True, True],
    }
    for build, want in expected.items():
        out = run1(build, a, b, types=[t, t])
        assert out.dtype == np.bool_
        assert out.tolist() == want, build.__name__


def test_comparison_with_nan_and_broadcast() -> None:
    out = run1(ops.equal, f32(np.nan, 1), np.array([[np.nan], [1]], F32))
    assert out.tolist() == [[False, False], [False, True]]
    assert run1(ops.not_equal, f32(np.nan), f32(np.nan)).tolist() == [True]


def test_logical_ops() -> None:
    a = np.array([True, True, False, False])
    b = np.array([True, False, True, False])
    assert run1(ops.logical_and, a, b).tolist() == [True, False, False, False]
    assert run1(ops.logical_or, a, b).tolist() == [True, True, True, False]
    assert run1(ops.logical_xor, a, b).tolist() == [False, True, True, False]
    assert run1(ops.logical_not, a).tolist() == [False, False, True, True]
    assert run1(ops.logical_and, np.array([[True], [False]]), np.array([True, False])).tolist() == \
        [[True, False], [False, False]]


def test_select_broadcast_and_types() -> None:
    cond = np.array([[True], [False]])
    out = run1(ops.select, cond, f32(1, 2, 3), np.array(-1, F32))
    assert out.shape == (2, 3)
    np.testing.assert_array_equal(out, [[1, 2, 3], [-1, -1, -1]])
    got = run1(ops.select, np.array([True, False]), bf16([1.5, 2.5]), bf16([7, 8]), types=[None, "bf16", "bf16"])
    np.testing.assert_array_equal(from_bf16(got), [1.5, 8])
    got = run1(ops.select, np.array([False, True]), typed([1, 2], "i64"), typed([3, 4], "i64"))
    assert got.dtype == np.int64 and got.tolist() == [3, 2]


def test_select_pdpd_and_none() -> None:
    then = np.arange(6, dtype=F32).reshape(2, 3)
    out = run1(lambda c, a, b: ops.select(c, a, b, auto_broadcast="pdpd"),
               np.array([True, False, True]), then, f32(-1, -2, -3))
    np.testing.assert_array_equal(out, [[0, -2, 2], [3, -2, 5]])
    with pytest.raises(InferError, match="Select-1 node"):
        run1(lambda c, a, b: ops.select(c, a, b, auto_broadcast="none"),
             np.array([True, False]), f32(1, 2), f32(1, 2, 3), shapes=[[-1], [-1], [-1]])


# -- unary ---------------------------------------------------------------------------------------------

X = [-2.0, -0.5, 0.0, 0.5, 3.0]


@pytest.mark.parametrize(("build", "fn"), [
    (ops.exp, math.exp), (ops.tanh, math.tanh), (ops.abs, abs), (ops.negative, lambda v: -v),
    (ops.relu, lambda v: max(v, 0.0)), (ops.sigmoid, lambda v: 1 / (1 + math.exp(-v))),
    (ops.erf, math.erf),
])
@pytest.mark.parametrize("t", FLOAT_TYPES)
def test_unary_float_values(build, fn, t: str) -> None:  # noqa: ANN001
    out = run1(build, typed(X, t), types=[t])
    assert out.dtype == typed([0], t).dtype
    tol = {"f32": 1e-6, "f64": 1e-14, "f16": 1e-3, "bf16": 8e-3}[t]
    np.testing.assert_allclose(untyped(out, t), [fn(float(typed([v], t).astype(np.float64)[0])
                                                    if t != "bf16" else v) for v in X], rtol=tol, atol=tol)


def test_log_and_sqrt() -> None:
    np.testing.assert_allclose(run1(ops.log, f32(1, math.e, 0.5)), [0, 1, math.log(0.5)], rtol=1e-6)
    out = run1(ops.log, f32(0, -1))
    assert out[0] == -np.inf and np.isnan(out[1])
    np.testing.assert_array_equal(run1(ops.sqrt, f32(4, 9, 0.25)), [2, 3, 0.5])


def test_unary_integer_rounding() -> None:
    assert run1(ops.sqrt, typed([4, 8, 2, 0], "i32")).tolist() == [2, 3, 1, 0]  # sqrt 8 = 2.83 → 3
    assert run1(ops.tanh, typed([0, 1, -1, 5], "i32")).tolist() == [0, 1, -1, 1]
    assert run1(ops.exp, typed([0, 1, 2], "i64")).tolist() == [1, 3, 7]  # e**2 = 7.39 → 7
    assert run1(ops.erf, typed([0, 1, -3], "i8")).tolist() == [0, 1, -1]
    assert run1(ops.sigmoid, typed([-5, 0, 1, 5], "i32")).tolist() == [0, 0, 1, 1]  # as OpenVINO computes it


def test_abs_negative_relu_integers_wrap() -> None:
    assert run1(ops.abs, typed([-128, -3, 5], "i8")).tolist() == [-128, 3, 5]
    assert run1(ops.negative, typed([1, 0], "u8")).tolist() == [255, 0]
    assert run1(ops.negative, typed([-128, 7], "i8")).tolist() == [-128, -7]
    assert run1(ops.relu, typed([-3, 0, 4], "i32")).tolist() == [0, 0, 4]
    assert run1(ops.abs, typed([200], "u8")).tolist() == [200]


def test_sigmoid_is_stable_at_extremes() -> None:
    out = run1(ops.sigmoid, f32(-1000, -88, 0, 88, 1000))
    assert np.all(np.isfinite(out))
    np.testing.assert_allclose(out, [0, 1 / (1 + math.exp(88)), 0.5, 1, 1], rtol=1e-6, atol=0)
    assert out[0] == 0 and out[-1] == 1
    scalar = run1(ops.sigmoid, np.array(0.0, F32))
    assert scalar.shape == () and scalar == 0.5


def test_erf_accuracy_dense_grid() -> None:
    xs = np.linspace(-7, 7, 40001)
    out = run1(ops.erf, xs)
    ref = np.array([math.erf(v) for v in xs])
    assert np.abs(out - ref).max() <= 1e-14
    special = run1(ops.erf, np.array([np.nan, np.inf, -np.inf, -0.0, 1e-300]))
    assert np.isnan(special[0]) and special[1] == 1 and special[2] == -1
    assert special[3] == 0 and math.copysign(1, special[3]) == -1
    assert special[4] == pytest.approx(2 / math.sqrt(math.pi) * 1e-300)


def _gelu_erf(v: float) -> float:
    return 0.5 * v * (1 + math.erf(v / math.sqrt(2)))


def _gelu_tanh(v: float) -> float:
    return 0.5 * v * (1 + math.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v**3)))


def test_gelu_versions_and_modes() -> None:
    from ovconform.ir import make_node

    xs = np.array([-3, -1, -0.25, 0, 0.5, 2], np.float64)
    gelu2 = run1(lambda p: make_node("Gelu", 2, [p.output(0)], {}), xs)
    np.testing.assert_allclose(gelu2, [_gelu_erf(v) for v in xs], rtol=1e-14, atol=1e-15)
    erf7 = run1(lambda p: ops.gelu(p, "erf"), xs)
    np.testing.assert_allclose(erf7, gelu2, rtol=0, atol=0)
    tanh7 = run1(lambda p: ops.gelu(p, "tanh"), xs)
    np.testing.assert_allclose(tanh7, [_gelu_tanh(v) for v in xs], rtol=1e-14, atol=1e-15)
    assert np.abs(tanh7 - gelu2).max() > 1e-5  # the two modes differ


def test_clamp_floats() -> None:
    out = run1(lambda p: ops.clamp(p, -0.5, 1.5), f32(-3, -0.5, 0.2, 1.5, 9, np.nan))
    np.testing.assert_array_equal(out[:5], f32(-0.5, -0.5, 0.2, 1.5, 1.5))
    assert np.isnan(out[5])


@pytest.mark.parametrize("t", INT_TYPES)
def test_clamp_integers_round_bounds_inward(t: str) -> None:
    # min -1.5 rounds up to -1 (0 for unsigned types), max 2.5 rounds down to 2
    out = run1(lambda p: ops.clamp(p, -1.5, 2.5), typed([0, 1, 2, 3, 100], t))
    assert out.tolist() == [0, 1, 2, 2, 2]
    if t[0] == "i":
        assert run1(lambda p: ops.clamp(p, -1.5, 2.5), typed([-5, -1], t)).tolist() == [-1, -1]


def test_clamp_integer_bounds_beyond_type_range() -> None:
    assert run1(lambda p: ops.clamp(p, -1000.0, 1000.0), typed([-128, 127], "i8")).tolist() == [-128, 127]
    assert run1(lambda p: ops.clamp(p, 0.2, 0.8), typed([0, 1], "i32")).tolist() == [1, 0]  # lo 1 > hi 0


def test_clamp_bf16() -> None:
    out = run1(lambda p: ops.clamp(p, 0.0, 2.0), bf16([-1, 1.5, 3]), types=["bf16"])
    np.testing.assert_array_equal(from_bf16(out), [0, 1.5, 2])
