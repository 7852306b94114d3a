"""Tests of the activation ops (OpenVINO's op-spec folder "activation"): HSwish, HSigmoid, SoftPlus,
SoftSign, Mish, Swish, Elu, Selu, HardSigmoid, PRelu, Identity, Softmax-1/8 and LogSoftmax-5 —
builder inference and errors (as OpenVINO writes and infers them), REFERENCE kernel numerics against
literal values or independent loop formulas (transcriptions of the specs' pseudo-code), and the case
strategies.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _op_helpers import P, out, run
from _opcase_checks import CASE_SETTINGS, check_case_runs, check_ir_spelling, versions_of
from hypothesis import given
from hypothesis import strategies as st

from ovconform import opset
from ovconform import opset as ops
from ovconform.errors import InferError, UnsupportedOpError, ValidationError
from ovconform.ir import Model, Node, PartialShape, Type, as_type, bf16_to_f32, f32_to_bf16, get_opdef
from ovconform.ir.opset_table import OPSET_VERSIONS
from ovconform.opcases import case_strategy
from reference_plugin.evaluate import evaluate

#: The op versions of the family whose case strategies are checked here.
CASE_KEYS = [("HSwish", 4), ("HSigmoid", 5), ("SoftPlus", 4), ("SoftSign", 9), ("Mish", 4), ("Swish", 4), ("Elu", 1),
             ("Selu", 1), ("HardSigmoid", 1), ("PRelu", 1), ("Identity", 16), ("LogSoftmax", 5)]
#: Attribute names, in IR order, as OpenVINO writes them.
IR_ATTRS = {("Elu", 1): ["alpha"], ("PRelu", 1): [], ("LogSoftmax", 5): ["axis"], ("Softmax", 1): ["axis"],
            ("Softmax", 8): ["axis"]}
#: IR type names that differ from the op type.
IR_NAMES: dict[str, str] = {"PRelu": "PReLU", "Softmax": "SoftMax"}

@pytest.mark.parametrize(("op", "version"), list(IR_ATTRS))
def test_ir_names_and_attributes_follow_openvino(op: str, version: int) -> None:
    check_ir_spelling(op, version, IR_ATTRS[(op, version)], IR_NAMES.get(op))
    assert version in OPSET_VERSIONS[op]


def test_versions_exist_and_others_are_refused() -> None:
    for op, version in CASE_KEYS:
        assert get_opdef(op, version) is not None
    for op in ("HSwish", "Swish", "Selu", "PRelu", "Identity"):
        with pytest.raises(UnsupportedOpError, match="no version 3"):
            get_opdef(op, 3)


def test_builders_use_the_opset_versions() -> None:
    x = P([2, 3])
    assert versions_of([opset.log_softmax(x, 1), opset.softmax(x, 1)]) == [("LogSoftmax", 5), ("Softmax", 8)]

@pytest.mark.parametrize(("op", "version"), CASE_KEYS)
@CASE_SETTINGS
@given(data=st.data())
def test_cases_are_valid_and_run(op: str, version: int, data: st.DataObject) -> None:
    case = data.draw(case_strategy(op, version))
    node, outs = check_case_runs(case, op, version)
    assert outs[0].shape == tuple(node.get_output_partial_shape(0).to_shape())
    if op != "Identity":
        assert np.isfinite(outs[0]).all()  # values stay in the op's well-conditioned domain
    if op == "LogSoftmax":
        assert np.all(np.asarray(outs[0], np.float64) <= 1e-3)


def f32(*v: float) -> np.ndarray:
    return np.array(v, dtype=np.float32)


X = f32(-5.0, -3.0, -1.5, -0.5, 0.0, 0.5, 1.5, 3.0, 5.0)
XD = X.astype(np.float64)


@pytest.mark.parametrize("build", [ops.hswish, ops.hsigmoid, ops.softplus, ops.softsign, ops.mish, ops.swish,
                                   lambda x: ops.elu(x, 1.0), ops.identity])
@pytest.mark.parametrize("et", [Type.f32, Type.f16, Type.bf16])
def test_float_unary_inference_keeps_type_and_shape(build: Callable[..., Node], et: Type) -> None:
    x = ops.parameter(PartialShape("1..4,?,3"), et, "x")
    node = build(x)
    assert node.get_output_element_type(0) == et
    assert node.get_output_partial_shape(0) == PartialShape("1..4,?,3")


def test_identity_takes_any_type() -> None:
    for et in (Type.i64, Type.u8, Type.boolean, Type.bf16):
        assert ops.identity(ops.parameter([3], et, "x")).get_output_element_type(0) == et


def test_elu_alpha_attribute() -> None:
    node = ops.elu(ops.parameter([2], Type.f32, "x"), 0.25)
    assert node.attrs == {"alpha": 0.25}


def test_swish_beta_optional_scalar_same_type() -> None:
    x = ops.parameter([2, 3], Type.f32, "x")
    assert ops.swish(x).get_input_size() == 1
    assert ops.swish(x, 2.0).get_input_size() == 2
    with pytest.raises(ValidationError, match=r"'beta'.*scalar"):
        ops.swish(x, f32(1.0))
    with pytest.raises(ValidationError, match="same element type"):
        ops.swish(x, ops.constant(np.float16(1.0)))


def test_selu_needs_one_element_inputs() -> None:
    x = ops.parameter([2, 3], Type.f32, "x")
    assert ops.selu(x, f32(1.67), np.array([[1.05]], np.float32)).get_output_partial_shape(0) == PartialShape([2, 3])
    with pytest.raises(ValidationError, match=r"'alpha'.*\[2\].*exactly one element"):
        ops.selu(x, f32(1.0, 2.0), f32(1.0))
    with pytest.raises(ValidationError, match="same element type"):
        ops.selu(x, ops.constant(np.array([1], np.float16)), f32(1.0))


def test_hard_sigmoid_needs_scalars() -> None:
    x = ops.parameter([4], Type.f16, "x")
    assert ops.hard_sigmoid(x, np.float16(0.2), np.float16(0.5)).get_output_element_type(0) == Type.f16
    with pytest.raises(ValidationError, match=r"'alpha'.*scalar"):
        ops.hard_sigmoid(x, np.array([0.2], np.float16), np.float16(0.5))
    with pytest.raises(ValidationError, match=r"'beta'.*scalar"):
        ops.hard_sigmoid(x, np.float16(0.2), np.array([0.5], np.float16))


@pytest.mark.parametrize("slope", [(3,), (4,), (1,), (3, 4), (3, 1), (1, 3, 4), (2, 3, 4), ()])
def test_prelu_slope_shapes_accepted(slope: tuple[int, ...]) -> None:
    x = ops.parameter([2, 3, 4], Type.f32, "x")
    node = ops.prelu(x, np.ones(slope, np.float32))
    assert node.get_output_partial_shape(0) == PartialShape([2, 3, 4])


@pytest.mark.parametrize("slope", [(5,), (2,), (2, 1, 1, 1), (4, 3)])
def test_prelu_slope_shapes_rejected(slope: tuple[int, ...]) -> None:
    x = ops.parameter([2, 3, 4], Type.f32, "x")
    with pytest.raises(ValidationError, match=r"PRelu-1 node .*slope shape .* fits data shape \[2, 3, 4\] neither"):
        ops.prelu(x, np.ones(slope, np.float32))


def test_prelu_dynamic_shapes_defer_the_check() -> None:
    x = ops.parameter(PartialShape("?,?"), Type.f32, "x")
    assert ops.prelu(x, f32(1, 2, 3)).get_output_partial_shape(0) == PartialShape("?,?")


# -- kernels ----------------------------------------------------------------------------------------------

def _relu6(v: np.ndarray) -> np.ndarray:
    return np.clip(v + 3.0, 0.0, 6.0) / 6.0


@pytest.mark.parametrize(("build", "expected"), [
    (ops.hswish, XD * _relu6(XD)),
    (ops.hsigmoid, _relu6(XD)),
    (ops.softplus, np.log(1.0 + np.exp(XD))),
    (ops.softsign, XD / (1.0 + np.abs(XD))),
    (ops.mish, XD * np.tanh(np.log(1.0 + np.exp(XD)))),
    (ops.swish, XD / (1.0 + np.exp(-XD))),
    (lambda x: ops.elu(x, 0.5), np.where(XD > 0, XD, 0.5 * (np.exp(XD) - 1.0))),
])
def test_float_unary_kernels_match_formulas(build: Callable[..., Node], expected: np.ndarray) -> None:
    out = run(build, X)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, expected.astype(np.float32), rtol=1e-6, atol=1e-7)


def test_literal_values() -> None:
    np.testing.assert_array_equal(run(ops.hswish, f32(-3, 0, 1, 3, 4)), f32(0, 0, 4 / 6, 3, 4))
    np.testing.assert_array_equal(run(ops.hsigmoid, f32(-4, -3, 0, 3, 9)), f32(0, 0, 0.5, 1, 1))
    np.testing.assert_array_equal(run(ops.softsign, f32(-3, 0, 1)), f32(-0.75, 0, 0.5))
    np.testing.assert_allclose(run(ops.softplus, f32(0.0)), f32(np.log(2.0)), rtol=1e-7)
    np.testing.assert_array_equal(run(lambda x: ops.elu(x, 2.0), f32(1.5, 0.0)), f32(1.5, 0.0))


def test_softplus_is_stable_for_large_inputs() -> None:
    out = run(ops.softplus, f32(-200, 100, 1000))
    np.testing.assert_allclose(out, f32(0, 100, 1000), atol=1e-30)
    assert np.isfinite(out).all()


def test_mish_large_and_nan() -> None:
    out = run(ops.mish, f32(50.0, -50.0, np.nan))
    assert out[0] == np.float32(50.0) and abs(out[1]) < 1e-18 and np.isnan(out[2])


def test_swish_with_beta() -> None:
    out = run(lambda x: ops.swish(x, np.float32(2.0)), X)
    np.testing.assert_allclose(out, (XD / (1.0 + np.exp(-2.0 * XD))).astype(np.float32), rtol=1e-6, atol=1e-7)
    beta = run(lambda x, b: ops.swish(x, b), X, np.array(0.0, np.float32))
    np.testing.assert_allclose(beta, X / 2, rtol=1e-7)


def test_selu() -> None:
    alpha, lam = 1.6732632, 1.0507010
    out = run(lambda x: ops.selu(x, f32(alpha), f32(lam)), X)
    expected = lam * np.where(XD > 0, XD, alpha * (np.exp(XD) - 1.0))
    np.testing.assert_allclose(out, expected.astype(np.float32), rtol=1e-6)


def test_hard_sigmoid() -> None:
    out = run(lambda x: ops.hard_sigmoid(x, np.float32(0.2), np.float32(0.5)), X)
    np.testing.assert_allclose(out, np.clip(0.2 * XD + 0.5, 0, 1).astype(np.float32), rtol=1e-7)
    zero = run(lambda x: ops.hard_sigmoid(x, np.float32(0.0), np.float32(0.0)), f32(2.0, -2.0))
    np.testing.assert_array_equal(zero, f32(0, 0))  # the spec's formula, even for zero alpha/beta


def test_prelu_per_channel_and_numpy() -> None:
    x = np.arange(-12, 12, dtype=np.float32).reshape(2, 3, 4)
    slope = f32(0.1, 0.2, 0.3)
    out = run(lambda d: ops.prelu(d, slope), x)
    expected = np.where(x < 0, x * slope.reshape(1, 3, 1), x)
    np.testing.assert_allclose(out, expected, rtol=1e-7)
    slope4 = f32(1, 2, 3, 4)
    out4 = run(lambda d: ops.prelu(d, slope4), x)
    np.testing.assert_allclose(out4, np.where(x < 0, x * slope4, x), rtol=1e-7)


def test_prelu_channel_rule_wins_when_ambiguous() -> None:
    x = -np.ones((1, 2, 2), np.float32)
    out = run(lambda d: ops.prelu(d, f32(2, 3)), x)
    np.testing.assert_array_equal(out, f32(-2, -2, -3, -3).reshape(1, 2, 2))


def test_prelu_runtime_slope_mismatch_is_an_infer_error() -> None:
    # the builder cannot check it (dynamic slope shape), the kernel does
    params = [ops.parameter([2, 3], Type.f32, "d"), ops.parameter(PartialShape("?"), Type.f32, "s")]
    model = Model([ops.prelu(*params).output(0)], params)
    with pytest.raises(InferError, match=r"PRelu-1 node .*slope shape \[5\] fits data shape \[2, 3\] neither"):
        evaluate(model, [np.ones((2, 3), np.float32), np.ones(5, np.float32)])


def test_f16_and_bf16_round_once() -> None:
    h = run(ops.softsign, np.array([1.0, -3.0], np.float16), types=[Type.f16])
    assert h.dtype == np.float16
    np.testing.assert_array_equal(h, np.array([0.5, -0.75], np.float16))
    bits = f32_to_bf16(f32(1.0, -1.0))
    out = run(ops.hsigmoid, bits, types=[Type.bf16])
    assert out.dtype == np.uint16
    np.testing.assert_allclose(bf16_to_f32(out), f32(4 / 6, 2 / 6), rtol=4e-3)


@pytest.mark.parametrize("value", [np.array([[1, -2]], np.int64), np.array([True, False]),
                                   np.array([np.nan, -0.0], np.float32), np.array(7, np.uint8)])
def test_identity_copies(value: np.ndarray) -> None:
    out = run(ops.identity, value, types=[as_type(value.dtype)])
    assert out.dtype == value.dtype and out.shape == value.shape
    np.testing.assert_array_equal(out, value)
    assert out is not value


@pytest.mark.parametrize("build", [ops.hswish, ops.hsigmoid, ops.softplus, ops.softsign, ops.mish, ops.swish,
                                   lambda x: ops.elu(x, 1.0)])
@pytest.mark.parametrize("et", [Type.i32, Type.u8, Type.boolean])
def test_non_float_data_is_rejected_naming_the_type(build: Callable[..., Node], et: Type) -> None:
    with pytest.raises(ValidationError, match=f"element type {et}.*floating-point"):
        build(ops.parameter([2], et, "x"))


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


def test_softmax_is_written_softmax_in_ir() -> None:
    assert get_opdef("Softmax", 8).ir_type_name == "SoftMax"
    assert get_opdef("SoftMax", 1).type_name == "Softmax"


@pytest.mark.parametrize(("version", "shape", "axis", "expected"), [
    (8, [2, 3], -1, "[2,3]"),
    (8, [2, 3], -2, "[2,3]"),
    (8, [], 0, "[]"),
    (8, "...", 5, "..."),
    (1, [2, 3], 1, "[2,3]"),
    (1, [-1, "2..4"], 0, "[?,2..4]"),
])
def test_softmax_shapes(version: int, shape: Any, axis: int, expected: str) -> None:
    node = opset.softmax(P(shape), axis, version=version)
    assert out(node) == expected and node.version == version


@pytest.mark.parametrize(("version", "shape", "axis", "et", "match"), [
    (1, [2, 3], -1, Type.f32, "'axis'=-1 must not be negative in Softmax-1"),
    (1, [2, 3], 2, Type.f32, r"'axis' 2 is out of range for rank 2; allowed \[-2, 1\]"),
    (8, [2, 3], -3, Type.f32, "'axis' -3 is out of range"),
    (8, [2, 3], 1, Type.i32, "element type i32 is not allowed; Softmax needs a floating-point type"),
])
def test_softmax_errors(version: int, shape: Any, axis: int, et: Type, match: str) -> None:
    with pytest.raises(ValidationError, match=f"Softmax-{version} node.*{match}"):
        opset.softmax(P(shape, et), axis, version=version)
