"""Tests of the bitwise ops (OpenVINO's op-spec folder "bitwise"): BitwiseAnd/Or/Xor/Not-13 and
BitwiseLeftShift/RightShift-15 — builder inference and errors (as OpenVINO writes and infers them),
REFERENCE kernel numerics against literal values or independent loop formulas (transcriptions of the
specs' pseudo-code), and the case strategies.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _op_helpers import P, out, run
from _opcase_checks import CASE_SETTINGS, check_case_runs, check_ir_spelling, versions_of
from hypothesis import given
from hypothesis import strategies as st

from ovconform import opset
from ovconform.errors import InferError, ValidationError
from ovconform.ir import Type
from ovconform.ir.opset_table import OPSET_VERSIONS
from ovconform.opcases import case_strategy

#: The op versions of the family whose case strategies are checked here.
CASE_KEYS = [("BitwiseAnd", 13), ("BitwiseOr", 13), ("BitwiseXor", 13), ("BitwiseLeftShift", 15),
             ("BitwiseRightShift", 15), ("BitwiseNot", 13)]
#: Attribute names, in IR order, as OpenVINO writes them.
IR_ATTRS = {key: ([] if key[0] == "BitwiseNot" else ["auto_broadcast"]) for key in CASE_KEYS}
#: IR type names that differ from the op type.
IR_NAMES: dict[str, str] = {}

@pytest.mark.parametrize(("op", "version"), list(IR_ATTRS))
def test_ir_names_and_attributes_follow_openvino(op: str, version: int) -> None:
    check_ir_spelling(op, version, IR_ATTRS[(op, version)], IR_NAMES.get(op))
    assert version in OPSET_VERSIONS[op]


def test_builders_use_the_opset_versions() -> None:
    x = P([2, 3], Type.i32)
    built = [opset.bitwise_and(x, x), opset.bitwise_or(x, x), opset.bitwise_xor(x, x), opset.bitwise_left_shift(x, x),
             opset.bitwise_right_shift(x, x), opset.bitwise_not(x)]
    assert versions_of(built) == CASE_KEYS
    assert opset.bitwise_and(x, x, auto_broadcast="NUMPY").attrs["auto_broadcast"] == "numpy"

@pytest.mark.parametrize(("op", "version"), CASE_KEYS)
@CASE_SETTINGS
@given(data=st.data())
def test_cases_are_valid_and_run(op: str, version: int, data: st.DataObject) -> None:
    case = data.draw(case_strategy(op, version))
    node, outs = check_case_runs(case, op, version)
    if op in ("BitwiseLeftShift", "BitwiseRightShift"):
        counts = case.inputs["b"].astype(np.int64)
        bits = 32 if node.get_input_element_type(0) == Type.i64 else node.get_input_element_type(0).bitwidth
        assert counts.min(initial=0) >= 0 and counts.max(initial=0) < bits


@pytest.mark.parametrize("builder", [opset.bitwise_and, opset.bitwise_or, opset.bitwise_xor,
                                     opset.bitwise_left_shift, opset.bitwise_right_shift])
def test_bitwise_binary_broadcasts(builder: Any) -> None:
    node = builder(P([2, 1, 3], Type.u8), P([4, 1], Type.u8))
    assert out(node) == "[2,4,3]" and node.output(0).get_element_type() == Type.u8
    with pytest.raises(ValidationError, match="same element type"):
        builder(P([2], Type.i32), P([2], Type.i64))
    with pytest.raises(ValidationError, match="element type f32 is not allowed; this bitwise op needs an integer"):
        builder(P([2]), P([2]))
    with pytest.raises(ValidationError):
        builder(P([2], Type.i32), P([3], Type.i32), auto_broadcast="none")


def test_bitwise_boolean_rules() -> None:
    b = P([2], Type.boolean)
    assert opset.bitwise_and(b, b).output(0).get_element_type() == Type.boolean
    assert opset.bitwise_not(b).output(0).get_element_type() == Type.boolean
    with pytest.raises(ValidationError, match="BitwiseLeftShift-15 node.*boolean is not allowed; .*integer type"):
        opset.bitwise_left_shift(b, b)
    with pytest.raises(ValidationError, match="BitwiseNot-13 node.*element type f16 is not allowed"):
        opset.bitwise_not(P([2], Type.f16))
    assert out(opset.bitwise_not(P([-1, "2..5"], Type.i8))) == "[?,2..5]"


# -- bitwise: kernels ------------------------------------------------------------------------------------

A8 = np.array([0b0110, -1, 85, -128], np.int8)
B8 = np.array([0b0011, 7, -86, 1], np.int8)


@pytest.mark.parametrize(("builder", "want"), [
    (opset.bitwise_and, [0b0010, 7, 0, 0]),
    (opset.bitwise_or, [0b0111, -1, -1, -127]),
    (opset.bitwise_xor, [0b0101, -8, -1, -127]),
])
def test_bitwise_logic_literals(builder: Any, want: list[int]) -> None:
    got = run(builder, A8, B8)
    assert got.dtype == np.int8 and got.tolist() == want


@pytest.mark.parametrize("et", [np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64])
def test_bitwise_logic_match_numpy_with_broadcasting(et: Any) -> None:
    rng = np.random.default_rng(7)
    info = np.iinfo(et)
    a = rng.integers(info.min, info.max, (2, 3), dtype=et, endpoint=True)
    b = rng.integers(info.min, info.max, (3,), dtype=et, endpoint=True)
    assert run(opset.bitwise_and, a, b).tolist() == (a & b).tolist()
    assert run(opset.bitwise_or, a, b).tolist() == (a | b).tolist()
    assert run(opset.bitwise_xor, a, b).tolist() == (a ^ b).tolist()
    assert run(opset.bitwise_not, a).tolist() == (~a).tolist()


def test_bitwise_on_booleans_is_logic() -> None:
    a, b = np.array([True, True, False, False]), np.array([True, False, True, False])
    assert run(opset.bitwise_and, a, b).tolist() == [True, False, False, False]
    assert run(opset.bitwise_or, a, b).tolist() == [True, True, True, False]
    assert run(opset.bitwise_xor, a, b).tolist() == [False, True, True, False]
    assert run(opset.bitwise_not, a).tolist() == [False, False, True, True]


def test_bitwise_not_literals() -> None:
    assert run(opset.bitwise_not, np.array([0, -1, 5, 127], np.int8)).tolist() == [-1, 0, -6, -128]
    assert run(opset.bitwise_not, np.array([0, 255, 15], np.uint8)).tolist() == [255, 0, 240]


def test_shift_literals() -> None:
    left, right = opset.bitwise_left_shift, opset.bitwise_right_shift
    assert run(left, np.array([1, 3, -5], np.int32), np.array([4, 1, 2], np.int32)).tolist() == [16, 6, -20]
    assert run(left, np.array([200, 1], np.uint8), np.array([1, 7], np.uint8)).tolist() == [144, 128]  # wraps
    assert run(left, np.array([64], np.int8), np.array([1], np.int8)).tolist() == [-128]  # two's complement
    assert run(right, np.array([-8, 8, -1], np.int32), np.array([1, 2, 5], np.int32)).tolist() == [-4, 2, -1]
    assert run(right, np.array([255, 128], np.uint8), np.array([4, 7], np.uint8)).tolist() == [15, 1]  # logical
    assert run(left, np.array([[1], [2]], np.int64), np.array([0, 40], np.int64)).tolist() == [[1, 2**40],
                                                                                              [2, 2**41]]


def test_shift_counts_the_spec_leaves_undefined() -> None:
    left, right = opset.bitwise_left_shift, opset.bitwise_right_shift
    assert run(left, np.array([1, -1], np.int8), np.array([8, 100], np.int8)).tolist() == [0, 0]
    assert run(right, np.array([100, -100], np.int8), np.array([8, 9], np.int8)).tolist() == [0, -1]
    assert run(right, np.array([255], np.uint8), np.array([200], np.uint8)).tolist() == [0]
    with pytest.raises(InferError, match="BitwiseRightShift.*shift count -1 is negative"):
        run(right, np.array([4], np.int32), np.array([-1], np.int32))
