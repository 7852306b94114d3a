"""Tier-2 activation family: builders (inference, IR names, errors), REFERENCE kernels against
literal values / plain numpy formulas, and the case strategies.

Ops: HSwish-4, HSigmoid-5, SoftPlus-4, SoftSign-9, Mish-4, Swish-4, Elu-1, Selu-1, HardSigmoid-1,
PRelu-1, IsNaN-10, IsInf-10, IsFinite-10, Identity-16.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ovconform import opset as ops
from ovconform.errors import InferError, UnsupportedOpError, ValidationError
from ovconform.ir import Model, Node, PartialShape, Type, as_type, bf16_to_f32, f32_to_bf16, get_opdef
from ovconform.opcases import OpCase, all_case_keys, case_strategy
from reference_plugin._evaluate import evaluate

KEYS = [("HSwish", 4), ("HSigmoid", 5), ("SoftPlus", 4), ("SoftSign", 9), ("Mish", 4), ("Swish", 4),
        ("Elu", 1), ("Selu", 1), ("HardSigmoid", 1), ("PRelu", 1), ("IsNaN", 10), ("IsInf", 10),
        ("IsFinite", 10), ("Identity", 16)]


def run(make: Callable[..., Node], *arrays: np.ndarray, types: list[Type] | None = None) -> np.ndarray:
    """One op over Parameters for ``arrays``; its single output."""
    params = [ops.parameter(list(a.shape), types[i] if types else as_type(a.dtype), f"in{i}")
              for i, a in enumerate(arrays)]
    node = make(*params)
    (out,) = evaluate(Model([node.output(0)], params), list(arrays))
    return out


def f32(*v: float) -> np.ndarray:
    return np.array(v, dtype=np.float32)


X = f32(-5.0, -3.0, -1.5, -0.5, 0.0, 0.5, 1.5, 3.0, 5.0)
XD = X.astype(np.float64)


# -- builders: inference, IR names, errors --------------------------------------------------------------

def test_versions_and_ir_names() -> None:
    for op, version in KEYS:
        assert get_opdef(op, version) is not None
    assert get_opdef("PRelu", 1).ir_type_name == "PReLU"
    assert [a.name for a in get_opdef("IsInf", 10).attrs] == ["detect_negative", "detect_positive"]
    assert [a.name for a in get_opdef("Elu", 1).attrs] == ["alpha"]
    for op in ("HSwish", "Swish", "Selu", "PRelu", "Identity"):
        with pytest.raises(UnsupportedOpError, match="no version 3"):
            get_opdef(op, 3)


@pytest.mark.parametrize("build", [ops.hswish, ops.hsigmoid, ops.softplus, ops.softsign, ops.mish, ops.swish,
                                   lambda x: ops.elu(x, 1.0), ops.identity])
@pytest.mark.parametrize("et", [Type.f32, Type.f16, Type.bf16])
def test_float_unary_inference_keeps_type_and_shape(build: Callable[..., Node], et: Type) -> None:
    x = ops.parameter(PartialShape("1..4,?,3"), et, "x")
    node = build(x)
    assert node.get_output_element_type(0) == et
    assert node.get_output_partial_shape(0) == PartialShape("1..4,?,3")


@pytest.mark.parametrize("build", [ops.hswish, ops.hsigmoid, ops.softplus, ops.softsign, ops.mish, ops.swish,
                                   lambda x: ops.elu(x, 1.0), ops.is_nan, ops.is_finite, ops.is_inf])
@pytest.mark.parametrize("et", [Type.i32, Type.u8, Type.boolean])
def test_non_float_data_is_rejected_naming_the_type(build: Callable[..., Node], et: Type) -> None:
    with pytest.raises(ValidationError, match=f"element type {et}.*floating-point"):
        build(ops.parameter([2], et, "x"))


@pytest.mark.parametrize("build", [ops.is_nan, ops.is_finite, ops.is_inf])
def test_classifiers_give_boolean(build: Callable[..., Node]) -> None:
    node = build(ops.parameter(PartialShape("?,2"), Type.f16, "x"))
    assert node.get_output_element_type(0) == Type.boolean
    assert node.get_output_partial_shape(0) == PartialShape("?,2")


def test_is_inf_attributes_default_and_set() -> None:
    x = ops.parameter([2], Type.f32, "x")
    assert ops.is_inf(x).attrs == {"detect_negative": True, "detect_positive": True}
    assert ops.is_inf(x, {"detect_positive": False}).attrs == {"detect_negative": True, "detect_positive": False}


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


SALTED = f32(1.0, np.nan, np.inf, -np.inf, -0.0, 3e38)


def test_classifiers() -> None:
    np.testing.assert_array_equal(run(ops.is_nan, SALTED), [False, True, False, False, False, False])
    np.testing.assert_array_equal(run(ops.is_finite, SALTED), [True, False, False, False, True, True])
    for neg, pos, want in [(True, True, [0, 0, 1, 1, 0, 0]), (True, False, [0, 0, 0, 1, 0, 0]),
                           (False, True, [0, 0, 1, 0, 0, 0]), (False, False, [0] * 6)]:
        out = run(lambda x, n=neg, p=pos: ops.is_inf(x, {"detect_negative": n, "detect_positive": p}), SALTED)
        assert out.dtype == np.bool_
        np.testing.assert_array_equal(out, np.array(want, bool))


def test_classifiers_f16() -> None:
    h = np.array([np.inf, np.nan, 65504.0], np.float16)
    np.testing.assert_array_equal(run(ops.is_finite, h, types=[Type.f16]), [False, False, True])
    np.testing.assert_array_equal(run(ops.is_inf, h, types=[Type.f16]), [True, False, False])


@pytest.mark.parametrize("value", [np.array([[1, -2]], np.int64), np.array([True, False]),
                                   np.array([np.nan, -0.0], np.float32), np.array(7, np.uint8)])
def test_identity_copies(value: np.ndarray) -> None:
    out = run(ops.identity, value, types=[as_type(value.dtype)])
    assert out.dtype == value.dtype and out.shape == value.shape
    np.testing.assert_array_equal(out, value)
    assert out is not value


# -- case strategies ----------------------------------------------------------------------------------------

def test_every_op_has_a_case() -> None:
    missing = sorted(set(KEYS) - set(all_case_keys()))
    assert not missing, f"ops without a case strategy: {missing}"


@pytest.mark.parametrize("key", KEYS, ids=[f"{k}-{v}" for k, v in KEYS])
@settings(max_examples=15, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_case_strategies_draw_valid_cases(key: tuple[str, int], data: Any) -> None:
    case: OpCase = data.draw(case_strategy(*key))
    assert (case.op_type, case.version) == key
    node = next(n for n in case.model.get_ordered_ops() if n.type_name == key[0])
    assert node.version == key[1]
    params = case.model.get_parameters()
    assert {p.friendly_name for p in params} == set(case.inputs)
    for p in params:
        value = case.inputs[p.friendly_name]
        assert p.get_output_element_type(0).to_dtype() == value.dtype
        assert p.get_output_partial_shape(0).fits(value.shape)
    outs = evaluate(case.model, [case.inputs[p.friendly_name] for p in params])
    assert outs[0].shape == tuple(node.get_output_partial_shape(0).to_shape())
    if key[0] not in ("IsNaN", "IsInf", "IsFinite", "Identity"):
        assert np.isfinite(outs[0]).all()  # values stay in the op's well-conditioned domain
