"""Tests of the type ops (OpenVINO's op-spec folder "type"): ConvertPromoteTypes-14 (Convert and
ConvertLike in tests/ops/test_opcases_core.py and tests/reference) — builder inference and errors
(as OpenVINO writes and infers them), REFERENCE kernel numerics against literal values or
independent loop formulas (transcriptions of the specs' pseudo-code), and the case strategies.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from _op_helpers import P, run_all
from _op_helpers import out as shape
from _opcase_checks import CASE_SETTINGS, check_case_runs, check_ir_spelling, versions_of
from hypothesis import given
from hypothesis import strategies as st

from ovconform import opset
from ovconform.errors import ValidationError
from ovconform.ir import Type, as_type
from ovconform.ir.opset_table import OPSET_VERSIONS
from ovconform.opcases import case_strategy
from ovconform.opset._type import promote_types

#: The op versions of the family whose case strategies are checked here.
CASE_KEYS = [("ConvertPromoteTypes", 14)]
#: Attribute names, in IR order, as OpenVINO writes them.
IR_ATTRS = {("ConvertPromoteTypes", 14): ["promote_unsafe", "pytorch_scalar_promotion", "u64_integer_promotion_target"]}
#: IR type names that differ from the op type.
IR_NAMES: dict[str, str] = {}

@pytest.mark.parametrize(("op", "version"), list(IR_ATTRS))
def test_ir_names_and_attributes_follow_openvino(op: str, version: int) -> None:
    check_ir_spelling(op, version, IR_ATTRS[(op, version)], IR_NAMES.get(op))
    assert version in OPSET_VERSIONS[op]


def test_builders_use_the_opset_versions() -> None:
    assert versions_of([opset.convert_promote_types(P([2], Type.i8), P([2], Type.f32))]) == CASE_KEYS


def test_ir_attributes_as_openvino_writes_them() -> None:
    ov = pytest.importorskip("openvino")
    import openvino.opset16 as ovo

    node = ovo.convert_promote_types(ovo.parameter([2], ov.Type.i8), ovo.parameter([2], ov.Type.f32))
    assert sorted(node.get_attributes()) == sorted(IR_ATTRS[("ConvertPromoteTypes", 14)])

@pytest.mark.parametrize(("op", "version"), CASE_KEYS)
@CASE_SETTINGS
@given(data=st.data())
def test_cases_are_valid_and_run(op: str, version: int, data: st.DataObject) -> None:
    case = data.draw(case_strategy(op, version))
    node, outs = check_case_runs(case, op, version)
    for i, got in enumerate(outs):  # static output shapes, and the node's element types
        assert got.shape == node.output(i).get_partial_shape().to_shape()
        assert got.dtype == node.output(i).get_element_type().to_dtype()


PROMOTE = ["boolean", "f16", "bf16", "f32", "f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"]


def test_promotion_rules_match_openvino_for_every_type_pair() -> None:
    ov = pytest.importorskip("openvino")
    import openvino.opset16 as ovo

    checked = 0
    for a, b in itertools.product(PROMOTE, repeat=2):
        for unsafe, pytorch, scalar_b in itertools.product((False, True), repeat=3):
            if scalar_b and not pytorch:
                continue
            try:
                node = ovo.convert_promote_types(ovo.parameter([2], getattr(ov.Type, a)),
                                                 ovo.parameter([] if scalar_b else [2], getattr(ov.Type, b)),
                                                 unsafe, pytorch, "i64")
                want: str | None = node.output(0).get_element_type().get_type_name()
            except RuntimeError:
                want = None
            try:
                got: str | None = promote_types(as_type(a), as_type(b), False, scalar_b, unsafe, pytorch, Type.i64).name
            except ValidationError:
                got = None
            assert got == want, (a, b, unsafe, pytorch, scalar_b)
            checked += 1
    assert checked > 600


@pytest.mark.parametrize(("a", "b", "kwargs", "expected"), [
    (Type.i8, Type.f16, {}, Type.f16),
    (Type.i32, Type.f16, {"promote_unsafe": True}, Type.f16),
    (Type.u8, Type.i16, {}, Type.i16),
    (Type.u8, Type.i8, {"promote_unsafe": True}, Type.i16),
    (Type.u64, Type.i8, {"promote_unsafe": True, "u64_integer_promotion_target": "f64"}, Type.f64),
    (Type.boolean, Type.u16, {}, Type.u16),
    (Type.f16, Type.bf16, {"promote_unsafe": True}, Type.f32),
])
def test_convert_promote_types_inference(a: Type, b: Type, kwargs: dict[str, Any], expected: Type) -> None:
    node = opset.convert_promote_types(P([2, 3], a), P([-1], b), **kwargs)
    assert [node.output(i).get_element_type() for i in range(2)] == [expected, expected]
    assert (shape(node, 0), shape(node, 1)) == ("[2,3]", "[?]")


def test_convert_promote_types_pytorch_scalar_promotion() -> None:
    node = opset.convert_promote_types(P([2], Type.i8), P([], Type.i32), pytorch_scalar_promotion=True,
                                       promote_unsafe=True)
    assert node.output(0).get_element_type() == Type.i8
    assert opset.convert_promote_types(P([2], Type.i8), P([], Type.i32)).output(0).get_element_type() == Type.i32


def test_convert_promote_types_values() -> None:
    a, b = np.array([[-3, 7]], np.int8), np.array([250, 1], np.uint8)
    out_a, out_b = run_all(lambda x, y: opset.convert_promote_types(x, y, promote_unsafe=True), a, b)
    assert out_a.dtype == out_b.dtype == np.int16
    assert out_a.tolist() == [[-3, 7]] and out_b.tolist() == [250, 1]
    fa, fb = run_all(lambda x, y: opset.convert_promote_types(x, y, promote_unsafe=True),
                        np.array([16777217], np.int32), np.array([0.5], np.float32))
    assert fa.dtype == np.float32 and fa[0] == np.float32(16777216)  # int -> float rounds to nearest


@pytest.mark.parametrize(("a", "b", "message"), [
    (Type.i32, Type.f16, "cannot be safely promoted to floating-point f16"),
    (Type.u64, Type.i32, "cannot be safely promoted with signed i32"),
    (Type.u8, Type.i8, "cannot be safely promoted with signed i8"),
    (Type.f16, Type.bf16, "no common type"),
])
def test_convert_promote_types_errors(a: Type, b: Type, message: str) -> None:
    with pytest.raises(ValidationError, match=f"ConvertPromoteTypes-14 node .*{message}"):
        opset.convert_promote_types(P([2], a), P([2], b))
