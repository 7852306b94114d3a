"""Compute REFERENCE kernels: MatMul, Convolution, GroupConvolution, MaxPool, AvgPool, Softmax and
the reductions — against literal values and naive loop implementations written here."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from ref_kernel_util import FLOAT_TYPES, bf16, const, from_bf16, run1, run_op, typed, untyped

from ovconform import opset as ops
from ovconform.errors import InferError
from ovconform.ir import make_node

RNG = np.random.default_rng(7)
F32 = np.float32


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(F32)


# -- MatMul -----------------------------------------------------------------------------------------

def _naive_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = np.zeros((a.shape[0], b.shape[1]))
    for i, j in itertools.product(range(a.shape[0]), range(b.shape[1])):
        out[i, j] = sum(float(a[i, k]) * float(b[k, j]) for k in range(a.shape[1]))
    return out


@pytest.mark.parametrize(("ta", "tb"), [(False, False), (True, False), (False, True), (True, True)])
def test_matmul_transposes(ta: bool, tb: bool) -> None:
    a, b = rand(3, 4), rand(4, 2)
    out = run1(lambda x, y: ops.matmul(x, y, ta, tb), a.T.copy() if ta else a, b.T.copy() if tb else b)
    np.testing.assert_allclose(out, _naive_matmul(a, b), rtol=1e-5, atol=1e-6)


def test_matmul_batch_broadcast_and_vectors() -> None:
    a, b = rand(2, 1, 3, 4), rand(5, 4, 2)
    out = run1(lambda x, y: ops.matmul(x, y, False, False), a, b)
    assert out.shape == (2, 5, 3, 2)
    np.testing.assert_allclose(out[1, 3], _naive_matmul(a[1, 0], b[3]), rtol=1e-5, atol=1e-6)
    v = np.array([1, 2, 3, 4], F32)
    out = run1(lambda x, y: ops.matmul(x, y, True, False), v, b[0])  # 1D A: transpose_a ignored
    np.testing.assert_allclose(out, v @ b[0], rtol=1e-6)
    out = run1(lambda x, y: ops.matmul(x, y, False, True), a[0, 0], v)  # 1D B: transpose_b ignored
    assert out.shape == (3,)
    np.testing.assert_allclose(out, a[0, 0] @ v, rtol=1e-5)
    assert run1(lambda x, y: ops.matmul(x, y, False, False), v, v).shape == ()


def test_matmul_integer_wraps_and_bf16() -> None:
    a = np.array([[100, 100]], np.int8)
    b = np.array([[1], [1]], np.int8)
    assert run1(lambda x, y: ops.matmul(x, y, False, False), a, b).tolist() == [[-56]]  # 200 wraps in i8
    out = run1(lambda x, y: ops.matmul(x, y, False, False), bf16([[1, 2]]), bf16([[3], [4]]), types=["bf16", "bf16"])
    assert out.dtype == np.uint16 and from_bf16(out).tolist() == [[11]]


def test_matmul_dynamic_mismatch() -> None:
    with pytest.raises(InferError, match=r"MatMul-1 node .*inner dims"):
        run1(lambda x, y: ops.matmul(x, y, False, False), rand(2, 3), rand(4, 2), shapes=[[-1, -1], [-1, -1]])


# -- Convolution ------------------------------------------------------------------------------------

def _naive_conv(x: np.ndarray, w: np.ndarray, strides, pb, pe, dil, groups: int = 1) -> np.ndarray:  # noqa: ANN001
    n_sp = x.ndim - 2
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0)] + list(zip(pb, pe, strict=True)))
    k = w.shape[2:]
    out_sp = [(xp.shape[2 + i] - (k[i] - 1) * dil[i] - 1) // strides[i] + 1 for i in range(n_sp)]
    cout, cin_g = w.shape[0], w.shape[1]
    og = cout // groups
    out = np.zeros((x.shape[0], cout, *out_sp))
    for b, o in itertools.product(range(x.shape[0]), range(cout)):
        g = o // og
        for pos in itertools.product(*(range(s) for s in out_sp)):
            acc = 0.0
            for c in range(cin_g):
                for kk in itertools.product(*(range(s) for s in k)):
                    idx = tuple(pos[i] * strides[i] + kk[i] * dil[i] for i in range(n_sp))
                    acc += xp[(b, g * cin_g + c, *idx)] * w[(o, c, *kk)]
            out[(b, o, *pos)] = acc
    return out


@pytest.mark.parametrize(("shape", "kernel", "strides", "pb", "pe", "dil"), [
    ((1, 2, 7), (3,), (2,), (1,), (0,), (1,)),
    ((2, 3, 5, 6), (2, 3), (1, 2), (0, 1), (1, 1), (2, 1)),
    ((1, 2, 4, 3, 5), (2, 1, 2), (1, 1, 2), (1, 0, 0), (0, 0, 1), (1, 1, 2)),
])
def test_convolution_explicit_against_naive(shape, kernel, strides, pb, pe, dil) -> None:  # noqa: ANN001
    x, w = rand(*shape), rand(4, shape[1], *kernel)
    out = run1(lambda p: ops.convolution(p, ops.constant(w), strides, pb, pe, dil), x)
    np.testing.assert_allclose(out, _naive_conv(x, w, strides, pb, pe, dil), rtol=1e-5, atol=1e-5)


def test_convolution_runtime_filters_and_dynamic_data() -> None:
    x, w = rand(2, 3, 6, 6), rand(2, 3, 3, 3)
    out = run1(lambda p, f: ops.convolution(p, f, [1, 1], [1, 1], [1, 1], [1, 1]), x, w,
               shapes=[[-1, 3, -1, -1], None])
    np.testing.assert_allclose(out, _naive_conv(x, w, [1, 1], [1, 1], [1, 1], [1, 1]), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("auto_pad", "pads"), [("same_upper", ((0, 1), (1, 1))), ("same_lower", ((1, 0), (1, 1))),
                                                ("valid", ((0, 0), (0, 0)))])
def test_convolution_auto_pad(auto_pad: str, pads) -> None:  # noqa: ANN001
    x, w = rand(1, 1, 5, 6), rand(1, 1, 2, 3)
    out = run1(lambda p: ops.convolution(p, ops.constant(w), [2, 1], [9, 9], [9, 9], [1, 1], auto_pad), x)
    (pb0, pe0), (pb1, pe1) = pads
    want = _naive_conv(x, w, [2, 1], [pb0, pb1], [pe0, pe1], [1, 1])
    if auto_pad.startswith("same"):
        assert out.shape == (1, 1, 3, 6)  # ceil(in / stride)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


def test_convolution_literal_and_integer() -> None:
    x = np.arange(1, 6, dtype=np.int32).reshape(1, 1, 5)
    w = np.array([[[1, 0, -1]]], np.int32)
    out = run1(lambda p: ops.convolution(p, ops.constant(w), [1], [0], [0], [1]), x)
    assert out.dtype == np.int32 and out.tolist() == [[[-2, -2, -2]]]


@pytest.mark.parametrize("t", FLOAT_TYPES)
def test_convolution_float_types(t: str) -> None:
    x = typed(np.arange(8).reshape(1, 2, 4) / 4, t)
    w = typed(np.ones((1, 2, 2)), t)
    wc = ops.constant(w, dtype=t) if t != "bf16" else make_node(
        "Constant", 1, [], {"element_type": "bf16", "shape": [1, 2, 2]}, data=w)
    out = run1(lambda p: ops.convolution(p, wc, [1], [0], [0], [1]), x, types=[t])
    np.testing.assert_allclose(untyped(out, t)[0, 0], [2.5, 3.5, 4.5], rtol=1e-3)  # 0+.25+1+1.25, ...


def test_group_convolution_against_naive() -> None:
    x = rand(2, 6, 5, 5)
    w = rand(3, 2, 2, 3, 3)  # 3 groups, 2 output and 2 input channels per group
    out = run1(lambda p: ops.group_convolution(p, ops.constant(w), [2, 1], [1, 0], [1, 2], [1, 2]), x)
    want = _naive_conv(x, w.reshape(6, 2, 3, 3), [2, 1], [1, 0], [1, 2], [1, 2], groups=3)
    assert out.shape == want.shape
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


def test_group_convolution_depthwise_runtime_filters() -> None:
    x = rand(1, 4, 3)
    w = rand(4, 1, 1, 2)
    out = run1(lambda p, f: ops.group_convolution(p, f, [1], [0], [0], [1]), x, w)
    for c in range(4):
        np.testing.assert_allclose(out[0, c], np.convolve(x[0, c], w[c, 0, 0][::-1], "valid"), rtol=1e-5)


def test_group_convolution_channel_mismatch() -> None:
    with pytest.raises(InferError, match=r"GroupConvolution-1 node .*channels"):
        run1(lambda p, f: ops.group_convolution(p, f, [1], [0], [0], [1]), rand(1, 5, 3), rand(2, 1, 2, 1),
             shapes=[[1, -1, 3], None])


# -- MaxPool -------------------------------------------------------------------------------------------

def _naive_max_pool(x: np.ndarray, kernel, strides, pb, dil, out_sp) -> tuple[np.ndarray, np.ndarray]:  # noqa: ANN001
    n, c, *sp = x.shape
    values = np.zeros((n, c, *out_sp), x.dtype)
    index = np.zeros((n, c, *out_sp), np.int64)
    for b, ch in itertools.product(range(n), range(c)):
        for pos in itertools.product(*(range(o) for o in out_sp)):
            best, best_i = -np.inf, 0
            for kk in itertools.product(*(range(k) for k in kernel)):
                idx = [pos[i] * strides[i] - pb[i] + kk[i] * dil[i] for i in range(len(sp))]
                if all(0 <= idx[i] < sp[i] for i in range(len(sp))) and x[(b, ch, *idx)] > best:
                    best, best_i = x[(b, ch, *idx)], int(np.ravel_multi_index(idx, sp))
            values[(b, ch, *pos)] = best
            index[(b, ch, *pos)] = best_i + (b * c + ch) * math.prod(sp)
    return values, index


@pytest.mark.parametrize("version", [8, 14])
def test_max_pool_values_and_indices(version: int) -> None:
    x = rand(2, 3, 5, 6)
    outs = run_op(lambda p: ops.max_pool(p, [2, 1], [1, 2], [1, 0], [0, 1], [2, 3], version=version), x)
    values, index = _naive_max_pool(x, [2, 3], [2, 1], [1, 0], [1, 2], outs[0].shape[2:])
    assert outs[0].shape == (2, 3, 3, 3)
    np.testing.assert_array_equal(outs[0], values)
    assert outs[1].dtype == np.int64
    np.testing.assert_array_equal(outs[1], index)


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -4])
def test_max_pool_index_axis(axis: int) -> None:
    x = rand(2, 3, 4, 5)
    values, idx = run_op(lambda p: ops.max_pool(p, [2, 2], [1, 1], [0, 0], [0, 0], [2, 2], "floor", "explicit",
                                                "i32", axis), x)
    assert idx.dtype == np.int32
    _, full = _naive_max_pool(x, [2, 2], [2, 2], [0, 0], [1, 1], (2, 2))
    norm = axis % 4
    np.testing.assert_array_equal(idx, full % math.prod(x.shape[norm:]))
    np.testing.assert_array_equal(x.reshape(-1)[full], values)


def test_max_pool_v1_and_ceil_modes() -> None:
    x = np.array([[[-5, -6, -7]]], F32)
    v1 = run1(lambda p: make_node("MaxPool", 1, [p.output(0)], {
        "strides": [2], "pads_begin": [1], "pads_end": [1], "kernel": [2], "rounding_type": "ceil"}), x)
    lowest = np.finfo(F32).min  # a window wholly in the padding gives the lowest value, index 0
    np.testing.assert_array_equal(v1, [[[-5, -6, lowest]]])
    vals, idx = run_op(lambda p: ops.max_pool(p, [2], [1], [1], [1], [2], "ceil"), x)
    np.testing.assert_array_equal(vals, [[[-5, -6, lowest]]])
    assert idx.tolist() == [[[0, 1, 0]]]
    vals, idx = run_op(lambda p: ops.max_pool(p, [2], [1], [1], [1], [2], "ceil_torch"), x)
    np.testing.assert_array_equal(vals, [[[-5, -6]]])
    assert idx.tolist() == [[[0, 1]]]


def test_max_pool_same_and_integer_and_bf16() -> None:
    x = np.arange(10, dtype=np.int8).reshape(1, 1, 10) * np.int8(-1)
    vals, idx = run_op(lambda p: ops.max_pool(p, [3], [1], [0], [0], [2], auto_pad="same_upper"), x)
    assert vals.dtype == np.int8 and vals.shape == (1, 1, 4)
    assert vals.tolist() == [[[0, -3, -6, -9]]] and idx.tolist() == [[[0, 3, 6, 9]]]
    vals, _ = run_op(lambda p: ops.max_pool(p, [1], [1], [0], [0], [2]), bf16([[[1, 3, 2]]]), types=["bf16"])
    assert from_bf16(vals).tolist() == [[[3, 3]]]


def test_max_pool_dynamic_spatial() -> None:
    x = rand(1, 2, 7, 4)
    vals, idx = run_op(lambda p: ops.max_pool(p, [2, 2], [1, 1], [0, 0], [0, 0], [2, 2]), x,
                       shapes=[[-1, 2, -1, -1]])
    want_v, want_i = _naive_max_pool(x, [2, 2], [2, 2], [0, 0], [1, 1], (3, 2))
    np.testing.assert_array_equal(vals, want_v)
    np.testing.assert_array_equal(idx, want_i)


# -- AvgPool ---------------------------------------------------------------------------------------------

def _avg(exclude: bool, rounding: str, pads: int, version: int = 14):  # noqa: ANN202
    return lambda p: ops.avg_pool(p, [2], [pads], [pads], [3], exclude, rounding, version=version)


@pytest.mark.parametrize("version", [1, 14, 16])
def test_avg_pool_divisors(version: int) -> None:
    # values checked against OpenVINO CPU: x = 1..6, kernel 3, stride 2
    x = np.arange(1, 7, dtype=F32).reshape(1, 1, 6)
    ceil = "ceil"
    assert run1(_avg(False, "floor", 1, version), x).ravel().tolist() == [1, 3, 5]
    assert run1(_avg(False, ceil, 1, version), x).ravel().tolist() == [1, 3, 5, 2]  # full kernel divides
    assert run1(_avg(True, "floor", 1, version), x).ravel().tolist() == [1.5, 3, 5]
    assert run1(_avg(True, ceil, 1, version), x).ravel().tolist() == [1.5, 3, 5, 6]
    assert run1(_avg(False, ceil, 0, version), x).ravel().tolist() == [2, 4, 5.5]  # no pads: real count
    assert run1(_avg(True, ceil, 0, version), x).ravel().tolist() == [2, 4, 5.5]


def test_avg_pool_ceil_torch_drops_window_in_padding() -> None:
    x = np.arange(1, 6, dtype=F32).reshape(1, 1, 5)
    ceil = run1(lambda p: ops.avg_pool(p, [2], [1], [1], [2], True, "ceil"), x)
    torch = run1(lambda p: ops.avg_pool(p, [2], [1], [1], [2], True, "ceil_torch"), x)
    assert ceil.ravel().tolist() == [1, 2.5, 4.5, 0]  # last window lies in the end padding: 0
    assert torch.ravel().tolist() == [1, 2.5, 4.5]


def test_avg_pool_2d_dilations_v16_and_same() -> None:
    x = np.arange(16, dtype=F32).reshape(1, 1, 4, 4)
    out = run1(lambda p: ops.avg_pool(p, [1, 1], [0, 0], [0, 0], [2, 2], True, dilations=[2, 2]), x)
    assert out.shape == (1, 1, 2, 2)
    assert out[0, 0, 0, 0] == (0 + 2 + 8 + 10) / 4
    out = run1(lambda p: ops.avg_pool(p, [2, 2], [0, 0], [0, 0], [3, 3], True, auto_pad="same_upper"), x)
    assert out.shape == (1, 1, 2, 2)
    assert out[0, 0, 0, 0] == np.mean(x[0, 0, :3, :3])
    assert out[0, 0, 1, 1] == np.mean(x[0, 0, 2:, 2:])


def test_avg_pool_integer_rounds_half_even() -> None:
    x = np.array([[[1, 2, 3, 6]]], np.int32)
    out = run1(lambda p: ops.avg_pool(p, [2], [0], [0], [2], True), x)
    assert out.dtype == np.int32 and out.tolist() == [[[2, 4]]]  # 1.5 → 2, 4.5 → 4


# -- Softmax --------------------------------------------------------------------------------------------

def _softmax_ref(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x.astype(np.float64))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize(("version", "axis"), [(1, 0), (1, 1), (8, -1), (8, -2), (8, 1)])
def test_softmax_axes(version: int, axis: int) -> None:
    x = rand(3, 4)
    out = run1(lambda p: ops.softmax(p, axis, version=version), x)
    np.testing.assert_allclose(out, _softmax_ref(x, axis), rtol=1e-6)


def test_softmax_is_stable_and_typed() -> None:
    out = run1(lambda p: ops.softmax(p, -1), np.array([[1000, 1000, -1000]], F32))
    np.testing.assert_allclose(out, [[0.5, 0.5, 0]], atol=1e-7)
    out = run1(lambda p: ops.softmax(p, 0), np.array([0, math.log(3)], np.float16))
    assert out.dtype == np.float16
    np.testing.assert_allclose(out.astype(np.float64), [0.25, 0.75], rtol=1e-3)
    out = run1(lambda p: ops.softmax(p, 0), bf16([0, 0]), types=["bf16"])
    assert from_bf16(out).tolist() == [0.5, 0.5]


# -- Reductions ------------------------------------------------------------------------------------------

X = np.array([[1, 2, 3], [4, 5, 6]], F32)


@pytest.mark.parametrize(("build", "axes", "keep", "expected"), [
    (ops.reduce_sum, [1], False, [6, 15]), (ops.reduce_sum, [0, 1], False, 21),
    (ops.reduce_sum, [-2], True, [[5, 7, 9]]), (ops.reduce_mean, [1], True, [[2], [5]]),
    (ops.reduce_mean, [0, -1], False, 3.5), (ops.reduce_max, [0], False, [4, 5, 6]),
    (ops.reduce_max, [1, 1], True, [[3], [6]]), (ops.reduce_sum, [], False, X),
])
def test_reductions(build, axes, keep, expected) -> None:  # noqa: ANN001
    out = run1(lambda p: build(p, const(axes), keep), X)
    want = np.array(expected, F32)
    assert out.dtype == F32 and out.shape == want.shape
    np.testing.assert_allclose(out, want, rtol=1e-6)


def test_reductions_runtime_axes_and_scalar_axis() -> None:
    out = run1(lambda p, a: ops.reduce_sum(p, a, False), X, np.array([-1], np.int32))
    assert out.tolist() == [6, 15]
    out = run1(lambda p: ops.reduce_max(p, const(0), True), X)
    assert out.tolist() == [[4, 5, 6]]


def test_reductions_integer_types() -> None:
    x = np.array([[100, 100], [-7, 0]], np.int8)
    assert run1(lambda p: ops.reduce_sum(p, const([1]), False), x).tolist() == [-56, -7]  # 200 wraps
    assert run1(lambda p: ops.reduce_mean(p, const([1]), False), x).tolist() == [100, -3]  # exact, truncated
    assert run1(lambda p: ops.reduce_max(p, const([0]), False), x).tolist() == [100, 100]
    u = np.array([3, 4], np.uint64)
    assert run1(lambda p: ops.reduce_mean(p, const([0]), False), u).tolist() == 3


def test_reductions_empty_and_bf16() -> None:
    empty = np.zeros((2, 0), F32)
    assert run1(lambda p: ops.reduce_sum(p, const([1]), False), empty).tolist() == [0, 0]
    assert run1(lambda p: ops.reduce_max(p, const([1]), False), empty).tolist() == [np.finfo(F32).min] * 2
    out = run1(lambda p: ops.reduce_mean(p, const([0]), False), bf16([1, 2, 4]), types=["bf16"])
    assert out.dtype == np.uint16 and from_bf16(out).tolist() == pytest.approx(7 / 3, rel=1e-2)


def test_reduction_bad_axis() -> None:
    with pytest.raises(InferError, match=r"ReduceSum-1 node .*out of range"):
        run1(lambda p, a: ops.reduce_sum(p, a, False), X, np.array([2], np.int64))
