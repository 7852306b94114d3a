"""Tests of the quantization ops (OpenVINO's op-spec folder "quantization"): FakeQuantize-1 and
FakeConvert-13 — builder inference and errors (as OpenVINO writes and infers them), REFERENCE kernel
numerics against literal values or independent loop formulas (transcriptions of the specs'
pseudo-code), and the case strategies.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _op_helpers import P, evaluate_node, out, run, seeded
from _opcase_checks import CASE_SETTINGS, check_case_runs, check_ir_spelling, versions_of
from hypothesis import given
from hypothesis import strategies as st

from ovconform import opset
from ovconform.errors import ValidationError
from ovconform.ir import Type, get_opdef
from ovconform.ir.opset_table import OPSET_VERSIONS
from ovconform.opcases import OpCase, all_case_keys, case_strategy
from reference_plugin.evaluate import evaluate

#: The op versions of the family whose case strategies are checked here.
CASE_KEYS = [("FakeQuantize", 1)]
#: Attribute names, in IR order, as OpenVINO writes them.
IR_ATTRS = {("FakeQuantize", 1): ["levels", "auto_broadcast"]}
#: IR type names that differ from the op type.
IR_NAMES: dict[str, str] = {}

@pytest.mark.parametrize(("op", "version"), list(IR_ATTRS))
def test_ir_names_and_attributes_follow_openvino(op: str, version: int) -> None:
    check_ir_spelling(op, version, IR_ATTRS[(op, version)], IR_NAMES.get(op))
    assert version in OPSET_VERSIONS[op]


def test_builders_use_the_opset_versions() -> None:
    assert versions_of([opset.fake_quantize(P([1, 2, 4, 4]), 0.0, 1.0, 0.0, 1.0, 3)]) == CASE_KEYS

@pytest.mark.parametrize(("op", "version"), CASE_KEYS)
@CASE_SETTINGS
@given(data=st.data())
def test_cases_are_valid_and_run(op: str, version: int, data: st.DataObject) -> None:
    case = data.draw(case_strategy(op, version))
    node, outs = check_case_runs(case, op, version)
    if node.get_output_element_type(0).is_real():
        assert np.all(np.isfinite(outs[0].astype(np.float64)))


def _fq_formula(x: np.ndarray, il: Any, ih: Any, ol: Any, oh: Any, levels: int) -> np.ndarray:
    x, il, ih, ol, oh = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in (x, il, ih, ol, oh)))
    out = np.empty(x.shape)
    for i in np.ndindex(*x.shape):
        if x[i] <= min(il[i], ih[i]):
            out[i] = ol[i]
        elif x[i] > max(il[i], ih[i]):
            out[i] = oh[i]
        else:
            out[i] = round((x[i] - il[i]) / (ih[i] - il[i]) * (levels - 1)) / (levels - 1) * (oh[i] - ol[i]) + ol[i]
    return out


def test_fake_quantize_literals() -> None:
    x = np.array([-2.0, -1.0, -0.4, 0.1, 0.6, 1.0, 3.0], np.float32)
    got = run(lambda p: opset.fake_quantize(p, np.float32(-1), np.float32(1), np.float32(0), np.float32(8), 5), x)
    # levels at -1, -0.5, 0, 0.5, 1 -> outputs 0, 2, 4, 6, 8
    assert got.tolist() == [0.0, 0.0, 2.0, 4.0, 6.0, 8.0, 8.0]


@pytest.mark.parametrize("levels", [2, 3, 16, 256])
def test_fake_quantize_matches_the_formula_with_broadcast_limits(levels: int) -> None:
    rng = np.random.default_rng(levels)
    x = rng.uniform(-3, 3, (2, 3, 4)).astype(np.float32)
    il = rng.uniform(-2, -0.5, (1, 3, 1)).astype(np.float32)
    ih = rng.uniform(0.5, 2, (4,)).astype(np.float32)
    ol, oh = np.float32(-1.5), rng.uniform(-1, 3, (3, 1)).astype(np.float32)  # some output ranges inverted
    got = run(lambda p: opset.fake_quantize(p, il, ih, ol, oh, levels), x)
    np.testing.assert_allclose(got, _fq_formula(x, il, ih, ol, oh, levels).astype(np.float32), rtol=1e-6, atol=1e-6)


def test_fake_quantize_broadcast_modes_and_errors() -> None:
    x = P([2, 3])
    assert out(opset.fake_quantize(x, P([2, 3]), P([2, 3]), P([2, 3]), P([2, 3]), 4, "none")) == "[2,3]"
    assert out(opset.fake_quantize(x, P([3]), P([1]), P([]), P([2, 1]), 4, "pdpd")) == "[2,3]"
    assert out(opset.fake_quantize(x, P([4, 1, 1]), 0.0, 1.0, 2.0, 4)) == "[4,2,3]"
    with pytest.raises(ValidationError, match="FakeQuantize-1 node.*'levels'=1 is not allowed; .*at least 2"):
        opset.fake_quantize(x, 0.0, 1.0, 0.0, 1.0, 1)
    with pytest.raises(ValidationError, match=r"FakeQuantize-1 node.*must be equal when auto_broadcast='none'"):
        opset.fake_quantize(x, P([3]), P([2, 3]), P([2, 3]), P([2, 3]), 4, "none")
    with pytest.raises(ValidationError, match="FakeQuantize-1 node.*one element type"):
        opset.fake_quantize(x, P([], Type.f16), 1.0, 0.0, 1.0, 4)
    with pytest.raises(ValidationError, match="FakeQuantize-1 node.*i32 is not allowed"):
        opset.fake_quantize(P([2], Type.i32), 0, 1, 0, 1, 4)
    lo = np.full((2, 3), -1, np.float32)
    got = run(lambda p: opset.fake_quantize(p, lo, lo + 2, lo + 1, lo + 3, 3, "none"),
              np.array([[-1.0, 0.2, 1.0], [-0.2, 5.0, -3.0]], np.float32))
    assert got.tolist() == [[0.0, 1.0, 2.0], [1.0, 2.0, 0.0]]


def test_fake_quantize_rounds_half_to_even_on_exact_boundaries() -> None:
    # (x - 0) / 1 * 4 = 0.5 and 1.5: ties go to the even level (std::nearbyint); the case strategy
    # keeps away from such boundaries because the division's precision decides them in practice
    x = np.array([0.125, 0.375], np.float32)
    got = run(lambda p: opset.fake_quantize(p, np.float32(0), np.float32(1), np.float32(0), np.float32(4), 5), x)
    assert got.tolist() == [0.0, 2.0]


def fake(values: list[float], dest: str, et: type = np.float32, scale: float = 1.0,
         shift: float | None = None) -> np.ndarray:
    x = np.array(values, et)
    t = Type.f32 if et == np.float32 else Type.f16
    node = opset.fake_convert(P([x.size], t), np.array([scale], et), None if shift is None else np.array([shift], et),
                              dest)
    (out,) = evaluate_node(node, x)
    assert out.dtype == et
    return out


def test_fake_convert_attribute_and_case() -> None:
    assert [a.name for a in get_opdef("FakeConvert", 13).attrs] == ["destination_type"]
    assert ("FakeConvert", 13) in all_case_keys()


def test_f8e4m3_rounds_to_nearest_even_with_subnormals_and_saturation() -> None:
    values = [0.0, 1.0625, 1.1875, 1.125, 3.14159, -2.7, 440, 449, 1000, np.inf, -np.inf,
              0.0015, 1.375 * 2**-7, 1.125 * 2**-7, 2.5 * 2**-9, 3.5 * 2**-9, 2**-11]
    want = [0.0, 1.0, 1.25, 1.125, 3.25, -2.75, 448, 448, 448, 448, -448,
            2**-9, 1.5 * 2**-7, 2**-7, 2 * 2**-9, 4 * 2**-9, 0.0]
    np.testing.assert_array_equal(fake(values, "f8e4m3"), np.array(want, np.float32))
    # the value becomes f16 first: 1.0625001 is the f16 tie 1.0625, which rounds to even (1.0)
    np.testing.assert_array_equal(fake([1.0625001, 1.0630], "f8e4m3"), [1.0, 1.125])
    assert np.isnan(fake([np.nan], "f8e4m3")[0])


def test_f8e5m2_rounds_to_nearest_even_with_subnormals_and_saturation() -> None:
    values = [1.125, 1.375, 464, 480, 57344, 61440, 1e6, -np.inf, 1.5 * 2**-16, 2.5 * 2**-16, 0.75 * 2**-16]
    want = [1.0, 1.5, 448, 512, 57344, 57344, 57344, -57344, 2 * 2**-16, 2 * 2**-16, 2**-16]
    np.testing.assert_array_equal(fake(values, "f8e5m2"), np.array(want, np.float32))
    np.testing.assert_array_equal(fake([1.125, 464], "f8e5m2", np.float16), np.array([1.0, 448], np.float16))


def test_fake_convert_scales_and_shifts_around_the_conversion() -> None:
    # (convert(x * 3 - 0.5) + 0.5) / 3: 3.3 -> 9.4 -> 9 (e4m3 step 1 in [8, 16)) -> 9.5 / 3
    np.testing.assert_allclose(fake([1.0, 2.0, 3.3], "f8e4m3", scale=3.0, shift=0.5),
                               np.array([1.0, 2.0, 9.5 / 3], np.float32), rtol=1e-7)
    x = np.arange(6, dtype=np.float32).reshape(1, 2, 3) * 1.3
    node = opset.fake_convert(P([1, 2, 3]), P([1, 2, 1]), P([1, 2, 1]), "f8e5m2")
    (got,) = evaluate_node(node, x, np.array([[[2.0], [0.5]]], np.float32), np.zeros((1, 2, 1), np.float32))
    expected = np.stack([fake(list(x[0, 0]), "f8e5m2", scale=2.0), fake(list(x[0, 1]), "f8e5m2", scale=0.5)])
    np.testing.assert_array_equal(got[0], expected)


@pytest.mark.parametrize(("make", "message"), [
    (lambda: opset.fake_convert(P([2, 3], Type.f64), P([1], Type.f64)), "element type f64; it must be f32, f16"),
    (lambda: opset.fake_convert(P([2, 3]), P([1], Type.f16)), r"scale \(input 1\) .* f16; it must match"),
    (lambda: opset.fake_convert(P([2, 3]), P([2, 1]), P([1])), r"scale shape \[2,1\] and shift shape \[1\] must be"),
    (lambda: opset.fake_convert(P([2, 3]), P([1, 2, 3])), r"scale shape \[1,2,3\] must broadcast to the data shape"),
    (lambda: opset.fake_convert(P([2, 3]), P([1]), None, "f8e3m4"), "f8e3m4"),
])
def test_fake_convert_errors(make: Any, message: str) -> None:
    with pytest.raises(ValidationError, match="FakeConvert-13 node.*" + message):
        make()


def test_fake_convert_shapes() -> None:
    node = opset.fake_convert(P([-1, 4, "1..3"], Type.f16), P([1, 4, 1], Type.f16), destination_type="F8E5M2")
    assert str(node.output(0).get_partial_shape()) == "[?,4,1..3]" and node.attrs["destination_type"] == "f8e5m2"


def test_fake_convert_cases_evaluate() -> None:
    @seeded(20)
    @given(case_strategy("FakeConvert", 13))
    def check(case: OpCase) -> None:
        params = case.model.get_parameters()
        (out,) = evaluate(case.model, [case.inputs[p.friendly_name] for p in params])
        assert np.isfinite(out.astype(np.float32)).all()

    check()
