"""Tests of the condition ops (OpenVINO's op-spec folder "condition"): NonZero-3 and Bucketize-3 —
builder inference and errors (as OpenVINO writes and infers them), REFERENCE kernel numerics against
literal values or independent loop formulas (transcriptions of the specs' pseudo-code), and the case
strategies.
"""

from __future__ import annotations

import numpy as np
import pytest
from _op_helpers import P, run_all
from _op_helpers import out as shape
from _opcase_checks import CASE_SETTINGS, check_case_runs, check_ir_spelling, versions_of
from hypothesis import given
from hypothesis import strategies as st

from ovconform import opset
from ovconform.errors import ValidationError
from ovconform.ir import Type
from ovconform.ir.opset_table import OPSET_VERSIONS
from ovconform.opcases import case_strategy

#: The op versions of the family whose case strategies are checked here.
CASE_KEYS = [("NonZero", 3), ("Bucketize", 3)]
#: Attribute names, in IR order, as OpenVINO writes them.
IR_ATTRS = {("NonZero", 3): ["output_type"], ("Bucketize", 3): ["output_type", "with_right_bound"]}
#: IR type names that differ from the op type.
IR_NAMES: dict[str, str] = {}

@pytest.mark.parametrize(("op", "version"), list(IR_ATTRS))
def test_ir_names_and_attributes_follow_openvino(op: str, version: int) -> None:
    check_ir_spelling(op, version, IR_ATTRS[(op, version)], IR_NAMES.get(op))
    assert version in OPSET_VERSIONS[op]


def test_builders_use_the_opset_versions() -> None:
    f = P([2, 3])
    assert versions_of([opset.non_zero(f), opset.bucketize(f, P([4]))]) == CASE_KEYS

@pytest.mark.parametrize(("op", "version"), CASE_KEYS)
@CASE_SETTINGS
@given(data=st.data())
def test_cases_are_valid_and_run(op: str, version: int, data: st.DataObject) -> None:
    case = data.draw(case_strategy(op, version))
    node, outs = check_case_runs(case, op, version)
    for i, got in enumerate(outs):
        assert got.dtype == node.output(i).get_element_type().to_dtype()


def test_non_zero() -> None:
    assert shape(opset.non_zero(P([2, 3]))) == "[2,0..6]"
    assert shape(opset.non_zero(P([2, -1]), "i32")) == "[2,?]"
    assert shape(opset.non_zero(P([]))) == "[?,?]"
    x = np.array([[0, 1.5, 0], [-2, 0, float("nan")]], np.float32)
    (out,) = run_all(lambda d: opset.non_zero(d, "i32"), x)
    assert out.dtype == np.int32 and out.tolist() == [[0, 1, 1], [1, 0, 2]]
    (out,) = run_all(opset.non_zero, np.zeros((2, 2), np.bool_))
    assert out.shape == (2, 0) and out.dtype == np.int64
    (out,) = run_all(opset.non_zero, np.array([-0.0, 3.0], np.float32))
    assert out.tolist() == [[1]]
    (out,) = run_all(opset.non_zero, np.array(5, np.int32))
    assert out.tolist() == [[0]]
    with pytest.raises(ValidationError, match=r"attribute 'output_type'"):
        opset.non_zero(P([2]), "f32")


def test_bucketize() -> None:
    node = opset.bucketize(P([2, 3], Type.i32), P([4]), "i32")
    assert shape(node) == "[2,3]" and node.output(0).get_element_type() == Type.i32
    x = np.array([-1, 0, 1, 2.5, 3, 9], np.float32)
    edges = np.array([0, 1, 3], np.int32)
    assert run_all(lambda d, b: opset.bucketize(d, b), x, edges)[0].tolist() == [0, 0, 1, 2, 2, 3]
    left = run_all(lambda d, b: opset.bucketize(d, b, with_right_bound=False), x, edges)[0]
    assert left.tolist() == [0, 1, 2, 2, 3, 3]
    big = np.array([2**40, 2**40 + 1], np.int64)  # integers compare exactly (no float rounding)
    assert run_all(lambda d, b: opset.bucketize(d, b), big, np.array([2**40], np.int64))[0].tolist() == [0, 1]
    with pytest.raises(ValidationError, match=r"Bucketize-3 node.*buckets has shape \[2,2\]; it must be 1D"):
        opset.bucketize(P([3]), P([2, 2]))
    with pytest.raises(ValidationError, match=r"Bucketize-3 node.*data \(input 0\) has element type boolean"):
        opset.bucketize(P([3], Type.boolean), P([2]))
