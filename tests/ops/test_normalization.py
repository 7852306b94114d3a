"""Tests of the normalization ops (OpenVINO's op-spec folder "normalization"): MVN-2/6, NormalizeL2-1,
BatchNormInference-1/5, GroupNormalization-12, LRN-1 and GRN-1 — builder inference and errors (as
OpenVINO writes and infers them), REFERENCE kernel numerics against literal values or independent
loop formulas (transcriptions of the specs' pseudo-code), and the case strategies.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from _op_helpers import P, out, run
from _opcase_checks import CASE_SETTINGS, check_case_runs, check_ir_spelling, versions_of
from hypothesis import given
from hypothesis import strategies as st

from ovconform import opset
from ovconform.errors import InferError, ValidationError
from ovconform.ir import Node, Type, make_node
from ovconform.ir.opset_table import OPSET_VERSIONS
from ovconform.opcases import case_strategy

#: The op versions of the family whose case strategies are checked here.
CASE_KEYS = [("MVN", 2), ("MVN", 6), ("NormalizeL2", 1), ("BatchNormInference", 1), ("BatchNormInference", 5),
             ("GroupNormalization", 12), ("LRN", 1), ("GRN", 1)]
#: Attribute names, in IR order, as OpenVINO writes them.
IR_ATTRS = {("MVN", 2): ["eps", "across_channels", "normalize_variance", "reduction_axes"],
            ("MVN", 6): ["eps", "normalize_variance", "eps_mode"], ("NormalizeL2", 1): ["eps", "eps_mode"],
            ("BatchNormInference", 1): ["epsilon"], ("BatchNormInference", 5): ["epsilon"],
            ("GroupNormalization", 12): ["num_groups", "epsilon"], ("LRN", 1): ["alpha", "beta", "bias", "size"],
            ("GRN", 1): ["bias"]}
#: IR type names that differ from the op type.
IR_NAMES: dict[str, str] = {}

@pytest.mark.parametrize(("op", "version"), list(IR_ATTRS))
def test_ir_names_and_attributes_follow_openvino(op: str, version: int) -> None:
    check_ir_spelling(op, version, IR_ATTRS[(op, version)], IR_NAMES.get(op))
    assert version in OPSET_VERSIONS[op]


def test_builders_use_the_opset_versions() -> None:
    x, c = P([2, 4, 3]), P([4])
    built = [opset.mvn_v1(x), opset.mvn(x, [1], True, 1e-5, "inside_sqrt"), opset.normalize_l2(x, [1], 1e-5, "add"),
             opset.batch_norm_inference(x, c, c, c, c, 1e-5, version=1),
             opset.batch_norm_inference(x, c, c, c, c, 1e-5),
             opset.group_normalization(x, c, c, 2, 1e-5), opset.lrn(x, [1]), opset.grn(x, 1e-6)]
    assert versions_of(built) == CASE_KEYS

@pytest.mark.parametrize(("op", "version"), CASE_KEYS)
@CASE_SETTINGS
@given(data=st.data())
def test_cases_are_valid_and_run(op: str, version: int, data: st.DataObject) -> None:
    case = data.draw(case_strategy(op, version))
    node, outs = check_case_runs(case, op, version)
    if op == "LRN":
        assert node.attrs["size"] % 2 == 1
    if op in ("NormalizeL2", "GRN"):
        assert np.all(np.abs(case.inputs["data"].astype(np.float64)) >= 0.24)


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


def test_normalisations_keep_the_data_shape_and_type() -> None:
    for et in (Type.f32, Type.f16, Type.bf16, Type.f64):
        x = P([2, -1, "1..4"], et)
        for node in (opset.mvn_v1(x, True), opset.mvn(x, [0, -1], False, 1e-9, "inside_sqrt"),
                     opset.normalize_l2(x, [], 1e-6, "add"), opset.lrn(x, [1]), opset.grn(x, 0.1)):
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
])
def test_normalisation_errors(make: Callable[[], Node], match: str) -> None:
    with pytest.raises(ValidationError, match=match):
        make()
