"""Tests of the comparison ops (OpenVINO's op-spec folder "comparison"): IsNaN-10, IsInf-10 and
IsFinite-10 — builder inference and errors (as OpenVINO writes and infers them), REFERENCE kernel
numerics against literal values or independent loop formulas (transcriptions of the specs'
pseudo-code), and the case strategies.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from _op_helpers import run
from _opcase_checks import CASE_SETTINGS, check_case_runs, check_ir_spelling
from hypothesis import given
from hypothesis import strategies as st

from ovconform import opset as ops
from ovconform.errors import ValidationError
from ovconform.ir import Node, PartialShape, Type
from ovconform.ir.opset_table import OPSET_VERSIONS
from ovconform.opcases import case_strategy

#: The op versions of the family whose case strategies are checked here.
CASE_KEYS = [("IsNaN", 10), ("IsInf", 10), ("IsFinite", 10)]
#: Attribute names, in IR order, as OpenVINO writes them.
IR_ATTRS = {("IsNaN", 10): [], ("IsInf", 10): ["detect_negative", "detect_positive"], ("IsFinite", 10): []}
#: IR type names that differ from the op type.
IR_NAMES: dict[str, str] = {}

@pytest.mark.parametrize(("op", "version"), list(IR_ATTRS))
def test_ir_names_and_attributes_follow_openvino(op: str, version: int) -> None:
    check_ir_spelling(op, version, IR_ATTRS[(op, version)], IR_NAMES.get(op))
    assert version in OPSET_VERSIONS[op]

@pytest.mark.parametrize(("op", "version"), CASE_KEYS)
@CASE_SETTINGS
@given(data=st.data())
def test_cases_are_valid_and_run(op: str, version: int, data: st.DataObject) -> None:
    case = data.draw(case_strategy(op, version))
    node, outs = check_case_runs(case, op, version)
    assert outs[0].shape == tuple(node.get_output_partial_shape(0).to_shape())


def f32(*v: float) -> np.ndarray:
    return np.array(v, dtype=np.float32)


@pytest.mark.parametrize("build", [ops.is_nan, ops.is_finite, ops.is_inf])
def test_classifiers_give_boolean(build: Callable[..., Node]) -> None:
    node = build(ops.parameter(PartialShape("?,2"), Type.f16, "x"))
    assert node.get_output_element_type(0) == Type.boolean
    assert node.get_output_partial_shape(0) == PartialShape("?,2")


def test_is_inf_attributes_default_and_set() -> None:
    x = ops.parameter([2], Type.f32, "x")
    assert ops.is_inf(x).attrs == {"detect_negative": True, "detect_positive": True}
    assert ops.is_inf(x, {"detect_positive": False}).attrs == {"detect_negative": True, "detect_positive": False}


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


@pytest.mark.parametrize("build", [ops.is_nan, ops.is_finite, ops.is_inf])
@pytest.mark.parametrize("et", [Type.i32, Type.u8, Type.boolean])
def test_non_float_data_is_rejected_naming_the_type(build: Callable[..., Node], et: Type) -> None:
    with pytest.raises(ValidationError, match=f"element type {et}.*floating-point"):
        build(ops.parameter([2], et, "x"))
