"""Tier-2 "norm" family: MVN-1/6, NormalizeL2-1, BatchNormInference-1/5, GroupNormalization-12, LRN-1,
GRN-1, CumSum-3, Range-1/4, Eye-9, OneHot-1/16 — builder inference and errors, REFERENCE kernel numerics
against literal values or plain numpy formulas, and the case strategies."""

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
from ovconform.ir import Model, Node, Type, as_type, get_opdef, make_node
from ovconform.opcases import all_case_keys, case_strategy
from reference_plugin._evaluate import evaluate

P = opset.parameter

KEYS = [("MVN", 2), ("MVN", 6), ("NormalizeL2", 1), ("BatchNormInference", 1), ("BatchNormInference", 5),
        ("GroupNormalization", 12), ("LRN", 1), ("GRN", 1), ("CumSum", 3), ("Range", 1), ("Range", 4), ("Eye", 9),
        ("OneHot", 1), ("OneHot", 16)]

ATTRS = {
    ("MVN", 2): ["eps", "across_channels", "normalize_variance", "reduction_axes"],
    ("MVN", 6): ["eps", "normalize_variance", "eps_mode"],
    ("NormalizeL2", 1): ["eps", "eps_mode"],
    ("BatchNormInference", 1): ["epsilon"],
    ("BatchNormInference", 5): ["epsilon"],
    ("GroupNormalization", 12): ["num_groups", "epsilon"],
    ("LRN", 1): ["alpha", "beta", "bias", "size"],
    ("GRN", 1): ["bias"],
    ("CumSum", 3): ["exclusive", "reverse"],
    ("Range", 1): [],
    ("Range", 4): ["output_type"],
    ("Eye", 9): ["output_type"],
    ("OneHot", 1): ["axis"],
    ("OneHot", 16): ["axis", "negative_indices_mode"],
}


def out(node: Node) -> str:
    return str(node.output(0).get_partial_shape())


def run(make: Callable[..., Node], *arrays: Any) -> np.ndarray:
    """One op over Parameters holding ``arrays``; its single output evaluated on REFERENCE."""
    values = [np.asarray(a) for a in arrays]
    params = [P(list(v.shape), as_type(v.dtype), name=f"in{i}") for i, v in enumerate(values)]
    node = make(*params)
    (result,) = evaluate(Model([node.output(0)], params), values)
    return result


def run_const(node: Node) -> np.ndarray:
    (result,) = evaluate(Model([node.output(0)], []), [])
    return result


# -- op definitions --------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("op", "version"), KEYS)
def test_ir_names_and_attributes_follow_openvino(op: str, version: int) -> None:
    d = get_opdef(op, version)
    assert (d.ir_type_name or d.type_name) == op
    assert [a.name for a in d.attrs] == ATTRS[(op, version)]


def test_builders_use_the_opset_versions() -> None:
    x, c = P([2, 4, 3]), P([4])
    built = [opset.mvn_v1(x), opset.mvn(x, [1], True, 1e-5, "inside_sqrt"), opset.normalize_l2(x, [1], 1e-5, "add"),
             opset.batch_norm_inference(x, c, c, c, c, 1e-5, version=1),
             opset.batch_norm_inference(x, c, c, c, c, 1e-5),
             opset.group_normalization(x, c, c, 2, 1e-5), opset.lrn(x, [1]), opset.grn(x, 1e-6), opset.cumsum(x, 1),
             opset.range_v1(0, 5, 1), opset.range(0, 5, 1, "i32"), opset.eye(2, 2, 0, "f32"),
             opset.one_hot(np.array([1]), 3, 1.0, 0.0, -1, version=1), opset.one_hot(np.array([1]), 3, 1.0, 0.0, -1)]
    assert [(n.type_name, n.version) for n in built] == KEYS


def test_builders_store_attributes_as_openvino_writes_them() -> None:
    x = P([2, 3, 4])
    assert opset.mvn_v1(x, True, True, 1e-5).attrs == {"eps": 1e-5, "across_channels": True,
                                                       "normalize_variance": True, "reduction_axes": [1, 2]}
    assert opset.mvn_v1(x).attrs["reduction_axes"] == [2]
    assert opset.mvn_v1(x, reduction_axes=[-3]).attrs["across_channels"] is False
    assert opset.mvn_v1(x, reduction_axes=[-1, 1]).attrs["reduction_axes"] == [1, 2]
    assert opset.mvn_v1(x, reduction_axes=[-1, 1]).attrs["across_channels"] is True
    assert opset.mvn_v1(P("..."), reduction_axes=[-1]).attrs["reduction_axes"] == [-1]  # rank unknown: kept
    assert opset.mvn_v1(P([2, 3]), False).attrs["reduction_axes"] == []
    assert opset.mvn_v1(P("..."), True).attrs["reduction_axes"] is None
    six = opset.mvn(x, [1], True, 1e-5, "outside_sqrt")
    assert six.attrs == {"eps": float(np.float32(1e-5)), "normalize_variance": True, "eps_mode": "OUTSIDE_SQRT"}
    spec_spelling = {"eps": 0.1, "normalize_variance": True, "eps_mode": "inside_sqrt"}
    read = make_node("MVN", 6, [x.output(0), opset.constant(np.array([1])).output(0)], spec_spelling)
    assert read.attrs["eps_mode"] == "inside_sqrt"
    assert opset.normalize_l2(x, [1], 1e-12, "MAX").attrs == {"eps": float(np.float32(1e-12)), "eps_mode": "max"}
    assert opset.grn(x, 1e-6).attrs["bias"] == float(np.float32(1e-6))
    assert opset.one_hot(P([2, 3], Type.i32), 4, 1.0, 0.0, -1).attrs == {"axis": 2,
                                                                      "negative_indices_mode": "ignore_negative"}
    assert opset.one_hot(P("...", Type.i32), 4, 1.0, 0.0, -1, "NORMALIZE").attrs["axis"] == -1


# -- inference and errors ----------------------------------------------------------------------------------------

def test_normalisations_keep_the_data_shape_and_type() -> None:
    for et in (Type.f32, Type.f16, Type.bf16, Type.f64):
        x = P([2, -1, "1..4"], et)
        for node in (opset.mvn_v1(x, True), opset.mvn(x, [0, -1], False, 1e-9, "inside_sqrt"),
                     opset.normalize_l2(x, [], 1e-6, "add"), opset.lrn(x, [1]), opset.grn(x, 0.1),
                     opset.cumsum(x, -1)):
            assert out(node) == "[2,?,1..4]" and node.output(0).get_element_type() == et


@pytest.mark.parametrize(("make", "match"), [
    (lambda: opset.mvn_v1(P([2, 3], Type.i32)), "MVN-2 node.*element type i32; it must be a floating-point"),
    (lambda: opset.mvn_v1(P([2, 3]), reduction_axes=[2]), r"MVN-2 node.*reduction_axes' 2 is out of range for rank 2"),
    (lambda: opset.mvn_v1(P([2, 3]), reduction_axes=[1, -1]), "MVN-2 node.*repeat an axis"),
    (lambda: opset.mvn_v1(P([2, 3]), eps=-1.0), "MVN-2 node.*'eps'=-1.0 is not allowed"),
    (lambda: opset.mvn(P([2, 3]), [2], True, 1e-5, "inside_sqrt"), r"MVN-6 node.*axes 2 is out of range"),
    (lambda: opset.mvn(P([2, 3]), [1], True, 1e-5, "middle"), "MVN-6 node.*'eps_mode'='MIDDLE' is not allowed"),
    (lambda: opset.mvn(P([2, 3]), P([1], Type.f32), True, 1e-5, "inside_sqrt"),
     "MVN-6 node.*axes .input 1. has element type f32"),
    (lambda: opset.normalize_l2(P([2, 3]), [0, 0], 1e-5, "add"), "NormalizeL2-1 node.*repeat an axis"),
    (lambda: opset.normalize_l2(P([2, 3]), [0], 1e-5, "mul"), "NormalizeL2-1 node.*'eps_mode'='mul' is not allowed"),
    (lambda: opset.normalize_l2(P([2, 3]), P([1, 1], Type.i64), 1e-5, "add"), r"axes .input 1. has shape \[1,1\]"),
    (lambda: opset.lrn(P([2, 3]), [1], size=0), "LRN-1 node.*'size'=0 is not allowed"),
    (lambda: opset.lrn(P([2, 3]), [-3]), "LRN-1 node.*axes -3 is out of range"),
    (lambda: opset.grn(P([2, 3, 4, 5, 6]), 1.0), r"GRN-1 node.*rank must be 2, 3 or 4"),
    (lambda: opset.grn(P([2]), 1.0), r"GRN-1 node.*rank must be 2, 3 or 4"),
    (lambda: opset.cumsum(P([2, 3], Type.boolean), 0), "CumSum-3 node.*boolean is not allowed"),
    (lambda: opset.cumsum(P([2, 3]), 2), "CumSum-3 node.*axis 2 is out of range for rank 2"),
    (lambda: opset.cumsum(P([2, 3]), np.array([0])), r"CumSum-3 node.*axis .input 1. has shape \[1\]"),
])
def test_normalisation_errors(make: Callable[[], Node], match: str) -> None:
    with pytest.raises(ValidationError, match=match):
        make()


def test_batch_norm_inference_checks_the_channel_vectors() -> None:
    x = P([2, -1, 5])
    assert out(opset.batch_norm_inference(x, P([3]), P([3]), P([-1]), P([3]), 1e-5)) == "[2,3,5]"
    v1 = opset.batch_norm_inference(x, P([3]), P([3]), P([3]), P([3]), 1e-5, version=1)
    assert v1.input_value(2).node.get_output_partial_shape(0) == x.get_output_partial_shape(0)  # data is input 2
    with pytest.raises(ValidationError, match=r"BatchNormInference-5 node.*shape \[4\]; its length must equal"):
        opset.batch_norm_inference(P([2, 3]), P([3]), P([3]), P([4]), P([3]), 1e-5)
    with pytest.raises(ValidationError, match=r"BatchNormInference-1 node.*data .input 2. has shape \[3\]"):
        opset.batch_norm_inference(P([3]), P([3]), P([3]), P([3]), P([3]), 1e-5, version=1)
    with pytest.raises(ValidationError, match="BatchNormInference-5 node.*gamma .input 1. has element type f16"):
        opset.batch_norm_inference(P([2, 3]), P([3], Type.f16), P([3]), P([3]), P([3]), 1e-5)
    with pytest.raises(ValidationError, match="'epsilon'=-0.5 is not allowed"):
        opset.batch_norm_inference(P([2, 3]), P([3]), P([3]), P([3]), P([3]), -0.5)
    with pytest.raises(ValidationError, match="version 3 is not defined"):
        opset.batch_norm_inference(P([2, 3]), P([3]), P([3]), P([3]), P([3]), 0.1, version=3)


def test_group_normalization_checks_groups_and_vectors() -> None:
    assert out(opset.group_normalization(P([2, -1, 3]), P([6]), P([6]), 3, 1e-5)) == "[2,6,3]"
    with pytest.raises(ValidationError, match=r"GroupNormalization-12 node.*channel dim 6 .* num_groups=4"):
        opset.group_normalization(P([2, 6]), P([6]), P([6]), 4, 1e-5)
    with pytest.raises(ValidationError, match="'num_groups'=0 is not allowed"):
        opset.group_normalization(P([2, 6]), P([6]), P([6]), 0, 1e-5)
    with pytest.raises(ValidationError, match=r"scale/bias has shape \[5\]"):
        opset.group_normalization(P([2, 6]), P([5]), P([6]), 2, 1e-5)


def test_range_inference() -> None:
    assert out(opset.range_v1(np.int32(2), np.int32(23), np.int32(3))) == "[7]"
    assert out(opset.range_v1(np.int64(23), np.int64(2), np.int64(-3))) == "[7]"
    assert out(opset.range_v1(np.float32(0), np.float32(-1), np.float32(0.5))) == "[0]"
    assert out(opset.range(np.float32(1), np.float32(2.5), np.float32(0.5), "f16")) == "[3]"
    assert out(opset.range(np.float32(0.5), np.float32(5.5), np.float32(1.7), "i32")) == "[5]"  # cast: 0, 5, 1
    node = opset.range(P([], Type.i32), np.int64(10), np.float32(2), "i64")
    assert out(node) == "[?]" and node.output(0).get_element_type() == Type.i64
    with pytest.raises(ValidationError, match="Range-1 node.*share one element type"):
        opset.range_v1(np.int32(0), np.int64(5), np.int32(1))
    with pytest.raises(ValidationError, match="Range-4 node.*step is 0"):
        opset.range(np.float32(0), np.float32(5), np.float32(0.5), "i32")  # 0.5 casts to 0
    with pytest.raises(ValidationError, match=r"Range-1 node.*start .input 0. has shape \[2\]"):
        opset.range_v1(np.array([0, 1], np.int32), np.int32(5), np.int32(1))
    with pytest.raises(ValidationError, match="Range-4 node.*'output_type'=boolean is not allowed"):
        opset.range(0, 5, 1, "boolean")


def test_eye_inference() -> None:
    assert out(opset.eye(3, 4, 0, "f32")) == "[3,4]"
    assert out(opset.eye(np.int32(2), np.int32(5), np.int32(-7), "i8", np.array([2, 3], np.int32))) == "[2,3,2,5]"
    node = opset.eye(P([], Type.i64), 4, P([1], Type.i64), "f16", P([2], Type.i32))
    assert out(node) == "[?,?,?,4]" and node.output(0).get_element_type() == Type.f16
    with pytest.raises(ValidationError, match="Eye-9 node.*num_rows is -1; it must be >= 0"):
        opset.eye(-1, 4, 0, "f32")
    with pytest.raises(ValidationError, match="Eye-9 node.*num_columns .input 1. has element type i8"):
        opset.eye(2, np.int8(2), 0, "f32")
    with pytest.raises(ValidationError, match=r"Eye-9 node.*batch_shape \[2, -1\] has a negative dim"):
        opset.eye(2, 2, 0, "f32", [2, -1])
    with pytest.raises(ValidationError, match=r"Eye-9 node.*diagonal_index .input 2. has shape \[2\]"):
        opset.eye(2, 2, np.array([0, 1]), "f32")


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


# -- kernels: normalisations ---------------------------------------------------------------------------------------

X = np.random.default_rng(11).uniform(-3, 3, (2, 3, 4)).astype(np.float32)


def _mvn_formula(x: np.ndarray, axes: tuple[int, ...], normalize: bool, eps: float, inside: bool) -> np.ndarray:
    x64 = x.astype(np.float64)
    centred = x64 - x64.mean(axis=axes, keepdims=True)
    if not normalize:
        return centred
    std = np.sqrt((centred ** 2).mean(axis=axes, keepdims=True))
    return centred / (np.sqrt(std ** 2 + eps) if inside else std + eps)


@pytest.mark.parametrize(("across", "axes", "want_axes"), [
    (True, None, (1, 2)), (False, None, (2,)), (False, [0], (0,)), (True, [-1, 0], (0, 2)),
])
@pytest.mark.parametrize("normalize", [False, True])
def test_mvn1_matches_the_formula(across: bool, axes: list[int] | None, want_axes: tuple[int, ...],
                                  normalize: bool) -> None:
    got = run(lambda p: opset.mvn_v1(p, across, normalize, 0.25, axes), X)
    np.testing.assert_allclose(got, _mvn_formula(X, want_axes, normalize, 0.25, True), rtol=1e-6, atol=1e-6)


def test_mvn_literals() -> None:
    x = np.array([[1.0, 3.0]], np.float32)
    assert run(lambda p: opset.mvn(p, [1], False, 0.0, "inside_sqrt"), x).tolist() == [[-1.0, 1.0]]
    assert run(lambda p: opset.mvn(p, [1], True, 3.0, "inside_sqrt"), x).tolist() == [[-0.5, 0.5]]  # 1/sqrt(1+3)
    assert run(lambda p: opset.mvn(p, [1], True, 3.0, "outside_sqrt"), x).tolist() == [[-0.25, 0.25]]  # 1/(1+3)
    assert run(lambda p: opset.mvn(p, [0], True, 1e-9, "inside_sqrt"), x).tolist() == [[0.0, 0.0]]
    assert run(lambda p: opset.mvn_v1(p, False, True, 1e-9), x).tolist() == [[0.0, 0.0]]  # rank 2: no axes
    assert run(lambda p: opset.mvn_v1(p, True, True, 3.0), x).tolist() == [[-0.5, 0.5]]


@pytest.mark.parametrize("mode", ["inside_sqrt", "outside_sqrt"])
@pytest.mark.parametrize("axes", [[0], [1, 2], [-1, 0], [0, 1, 2]])
def test_mvn6_matches_the_formula(mode: str, axes: list[int]) -> None:
    want = _mvn_formula(X, tuple(a % 3 for a in axes), True, 1e-3, mode == "inside_sqrt")
    np.testing.assert_allclose(run(lambda p: opset.mvn(p, axes, True, 1e-3, mode), X), want, rtol=1e-6, atol=1e-6)
    got = run(lambda p, a: opset.mvn(p, a, True, 1e-3, mode), X, np.array(axes, np.int32))  # axes at run time
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_mvn_low_precision_and_run_time_errors() -> None:
    half = run(lambda p: opset.mvn(p, [0], True, 0.0, "inside_sqrt"), np.array([1.0, 2.0, 3.0, 4.0], np.float16))
    assert half.dtype == np.float16
    np.testing.assert_allclose(half, [-1.3416, -0.4472, 0.4472, 1.3416], rtol=1e-3)
    with pytest.raises(InferError, match=r"MVN-6 node.*axes 3 is out of range for rank 3"):
        run(lambda p, a: opset.mvn(p, a, True, 1e-3, "inside_sqrt"), X, np.array([3], np.int64))


def test_normalize_l2_literals() -> None:
    x = np.array([[3.0, 4.0], [0.0, -5.0]], np.float32)
    np.testing.assert_allclose(run(lambda p: opset.normalize_l2(p, [1], 1e-12, "add"), x), [[0.6, 0.8], [0, -1]])
    np.testing.assert_allclose(run(lambda p: opset.normalize_l2(p, [1], 100.0, "max"), x), [[0.3, 0.4], [0, -0.5]])
    np.testing.assert_allclose(run(lambda p: opset.normalize_l2(p, [1], 11.0, "add"), x), [[0.5, 2 / 3], [0, -5 / 6]],
                               rtol=1e-6)
    np.testing.assert_allclose(run(lambda p: opset.normalize_l2(p, [0, 1], 0.0, "add"), x), x / np.sqrt(50),
                               rtol=1e-6)
    empty = run(lambda p: opset.normalize_l2(p, np.zeros(0, np.int64), 0.5, "max"), x)
    assert empty.tolist() == [[1.0, 1.0], [0.0, 1.0]]  # each element divided by itself; 0 stays 0


@pytest.mark.parametrize("version", [1, 5])
def test_batch_norm_inference_matches_the_formula(version: int) -> None:
    rng = np.random.default_rng(3)
    gamma, beta, mean = (rng.uniform(-2, 2, 3).astype(np.float32) for _ in range(3))
    var = rng.uniform(0.1, 2, 3).astype(np.float32)
    got = run(lambda x, g, b, m, v: opset.batch_norm_inference(x, g, b, m, v, 0.01, version=version),
              X, gamma, beta, mean, var)
    s = (1, 3, 1)
    want = (X - mean.reshape(s)) / np.sqrt(var.reshape(s).astype(np.float64) + 0.01) * gamma.reshape(s)
    want += beta.reshape(s)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    two = np.array([[1.0, 2.0]], np.float32)
    lit = run(lambda x: opset.batch_norm_inference(x, np.float32([2, 1]), np.float32([1, 0]), np.float32([0, 1]),
                                                   np.float32([3, 0]), 1.0, version=version), two)
    assert lit.tolist() == [[2.0, 1.0]]  # 2*1/sqrt(4)+1, 1*(2-1)/sqrt(1)+0


def test_group_normalization_matches_the_formula() -> None:
    x = np.random.default_rng(5).uniform(-3, 3, (2, 6, 2, 2)).astype(np.float32)
    scale, bias = np.linspace(-1, 1, 6).astype(np.float32), np.arange(6, dtype=np.float32)
    got = run(lambda d, s, b: opset.group_normalization(d, s, b, 3, 1e-4), x, scale, bias)
    g = x.astype(np.float64).reshape(2, 3, 8)
    norm = ((g - g.mean(axis=2, keepdims=True)) / np.sqrt(g.var(axis=2, keepdims=True) + 1e-4)).reshape(x.shape)
    np.testing.assert_allclose(got, norm * scale.reshape(1, 6, 1, 1) + bias.reshape(1, 6, 1, 1), rtol=1e-5, atol=1e-5)
    assert run(lambda d, s, b: opset.group_normalization(d, s, b, 1, 0.0), np.float32([[1, 3]]), np.float32([1, 2]),
               np.float32([0, 1])).tolist() == [[-1.0, 3.0]]


def _lrn_loops(x: np.ndarray, axes: list[int], alpha: float, beta: float, bias: float, size: int) -> np.ndarray:
    """The spec's LRN, element by element (an independent formulation of the window)."""
    half = (size - 1) // 2
    out = np.empty(x.shape)
    for idx in np.ndindex(*x.shape):
        region = tuple(slice(max(0, i - half), min(x.shape[a], i + half + 1)) if a in axes else slice(i, i + 1)
                       for a, i in enumerate(idx))
        sqr_sum = float(np.sum(x[region].astype(np.float64) ** 2))
        out[idx] = x[idx] / (bias + alpha / size ** len(axes) * sqr_sum) ** beta
    return out


@pytest.mark.parametrize(("axes", "size"), [([1], 3), ([1], 5), ([2], 3), ([1, 2], 3), ([0, 2], 1), ([1], 4)])
def test_lrn_matches_the_spec_window(axes: list[int], size: int) -> None:
    got = run(lambda p: opset.lrn(p, axes, 0.5, 0.75, 2.0, size), X)
    np.testing.assert_allclose(got, _lrn_loops(X, axes, 0.5, 0.75, 2.0, size), rtol=1e-6, atol=1e-7)


def test_lrn_and_grn_literals() -> None:
    x = np.array([[[1.0], [2.0], [2.0]]], np.float32)  # [1, 3, 1]
    # channel 0 window {0, 1}: 1 + 4 = 5 -> 1 / (1 + 3/3 * 5)**0.5 = 1/sqrt(6)
    got = run(lambda p: opset.lrn(p, [1], 3.0, 0.5, 1.0, 3), x)
    np.testing.assert_allclose(got.ravel(), [1 / np.sqrt(6), 2 / np.sqrt(10), 2 / np.sqrt(9)], rtol=1e-6)
    np.testing.assert_allclose(run(lambda p: opset.grn(p, 0.0), np.float32([[3, 4], [0, 2]])), [[0.6, 0.8], [0, 1]])
    got = run(lambda p: opset.grn(p, 9.0), np.float32([[[0.0], [4.0]]]))
    assert got.ravel().tolist() == [0.0, np.float32(0.8)]  # 4 / sqrt(16 + 9)


# -- kernels: CumSum -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("exclusive", "reverse", "want"), [
    (False, False, [1, 3, 6]), (True, False, [0, 1, 3]), (False, True, [6, 5, 3]), (True, True, [5, 3, 0]),
])
def test_cumsum_literals(exclusive: bool, reverse: bool, want: list[int]) -> None:
    for dtype in (np.float32, np.int32, np.int64, np.float16):
        got = run(lambda p: opset.cumsum(p, 0, exclusive, reverse), np.array([1, 2, 3], dtype))
        assert got.dtype == dtype and got.tolist() == want


@pytest.mark.parametrize("axis", [0, 1, -1, 2])
def test_cumsum_matches_numpy_and_takes_the_axis_at_run_time(axis: int) -> None:
    want = np.cumsum(X.astype(np.float64), axis=axis)
    np.testing.assert_allclose(run(lambda p: opset.cumsum(p, axis), X), want, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(run(lambda p, a: opset.cumsum(p, a), X, np.array(axis, np.int32)), want, rtol=1e-6,
                               atol=1e-6)
    assert run(lambda p: opset.cumsum(p), np.float32([[1, 2], [3, 4]])).tolist() == [[1, 2], [4, 6]]  # axis 0


def test_cumsum_integers_wrap_and_bad_axes_fail() -> None:
    assert run(lambda p: opset.cumsum(p, 0), np.array([100, 100, -50], np.int8)).tolist() == [100, -56, -106]
    assert run(lambda p: opset.cumsum(p, 0, True), np.array([250, 10], np.uint8)).tolist() == [0, 250]
    with pytest.raises(InferError, match="CumSum-3 node.*axis 2 is out of range for rank 2"):
        run(lambda p, a: opset.cumsum(p, a), X[0], np.array(2, np.int64))


# -- kernels: Range / Eye / OneHot ----------------------------------------------------------------------------------

def test_range_literals() -> None:
    assert run_const(opset.range_v1(np.int32(2), np.int32(23), np.int32(3))).tolist() == [2, 5, 8, 11, 14, 17, 20]
    assert run_const(opset.range_v1(np.int64(23), np.int64(2), np.int64(-3))).tolist() == [23, 20, 17, 14, 11, 8, 5]
    got = run_const(opset.range(np.float32(1), np.float32(2.5), np.float32(0.5), "f32"))
    assert got.dtype == np.float32 and got.tolist() == [1.0, 1.5, 2.0]
    cast = run_const(opset.range(np.float32(0.5), np.float32(5.5), np.float32(1.7), "i32"))
    assert cast.dtype == np.int32 and cast.tolist() == [0, 1, 2, 3, 4]  # start 0, stop 5, step 1 after the cast
    mixed = run_const(opset.range(np.int32(-3), np.int64(1), np.float32(1.5), "f16"))
    assert mixed.dtype == np.float16 and mixed.tolist() == [-3.0, -1.5, 0.0]


def test_range_at_run_time() -> None:
    def range1(a: Node, b: Node, c: Node) -> Node:
        return opset.range_v1(a, b, c)

    f = np.float32
    assert run(range1, f(0), f(-1), f(0.25)).tolist() == []  # stop behind start: empty
    assert run(range1, f(0), f(1), f(0.25)).tolist() == [0, 0.25, 0.5, 0.75]
    assert run(lambda a, b, c: opset.range(a, b, c, "i64"), np.int32(5), f(0), np.int64(-2)).tolist() == [5, 3, 1]
    with pytest.raises(InferError, match="Range-1 node.*step is 0.*non-zero step"):
        run(range1, np.int32(0), np.int32(5), np.int32(0))
    with pytest.raises(InferError, match="Range-4 node.*step is 0.4.*which is 0 in i32"):
        run(lambda a, b, c: opset.range(a, b, c, "i32"), f(0), f(5), f(0.4))
    with pytest.raises(InferError, match="Range-1 node.*must be finite"):
        run(range1, f(0), f(np.inf), f(1))


def test_eye_literals() -> None:
    assert run_const(opset.eye(2, 3, 1, "i32")).tolist() == [[0, 1, 0], [0, 0, 1]]
    assert run_const(opset.eye(3, 2, -1, "f32")).tolist() == [[0, 0], [1, 0], [0, 1]]
    assert run_const(opset.eye(2, 2, 5, "u8")).tolist() == [[0, 0], [0, 0]]  # outside the matrix
    batched = run_const(opset.eye(2, 2, 0, "f16", [3]))
    assert batched.shape == (3, 2, 2) and batched.dtype == np.float16 and np.all(batched == np.eye(2))
    assert run_const(opset.eye(2, 2, 0, "boolean")).tolist() == [[True, False], [False, True]]


def test_eye_at_run_time() -> None:
    def make(r: Node, c: Node, d: Node, b: Node) -> Node:
        return opset.eye(r, c, d, "f32", b)

    i32 = np.int32
    got = run(make, i32(2), i32(3), i32(-1), np.array([2, 1], i32))
    assert got.shape == (2, 1, 2, 3) and got[1, 0].tolist() == [[0, 0, 0], [1, 0, 0]]
    with pytest.raises(InferError, match="Eye-9 node.*num_rows -1 and num_columns 3 must be >= 0"):
        run(make, i32(-1), i32(3), i32(0), np.array([1], i32))
    with pytest.raises(InferError, match=r"Eye-9 node.*batch_shape \[-2\] has a negative dim"):
        run(make, i32(1), i32(3), i32(0), np.array([-2], i32))


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


# -- case strategies ------------------------------------------------------------------------------------------------

CASE_SETTINGS = settings(max_examples=15, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])


def test_every_op_of_the_family_has_a_case() -> None:
    assert set(KEYS) <= set(all_case_keys())


@pytest.mark.parametrize(("op", "version"), KEYS)
@CASE_SETTINGS
@given(data=st.data())
def test_cases_are_valid_and_run(op: str, version: int, data: st.DataObject) -> None:
    case = data.draw(case_strategy(op, version))
    node, outs = check_case_runs(case, op, version)
    if op == "LRN":
        assert node.attrs["size"] % 2 == 1
    if op in ("NormalizeL2", "GRN"):
        assert np.all(np.abs(case.inputs["data"].astype(np.float64)) >= 0.24)
