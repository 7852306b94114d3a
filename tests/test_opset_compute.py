"""Builders for the compute ops: MatMul, Convolution, GroupConvolution, MaxPool, AvgPool,
ReduceSum/Mean/Max and Softmax — shape/type inference (static, dynamic, bounded), attribute
spelling, and errors on bad construction."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ovconform import opset
from ovconform.errors import UnsupportedOpError, ValidationError
from ovconform.ir import PartialShape, Type, get_opdef, make_node
from ovconform.opset._window import resolve_pads, same_pads

P = opset.parameter


def out(node: Any, i: int = 0) -> str:
    return str(node.output(i).get_partial_shape())


def w(*shape: int, dtype: Any = np.float32) -> np.ndarray:
    return np.ones(shape, dtype)


# -- attribute names, order and defaults: exactly what OpenVINO writes to IR ---------------------

IR_ATTRS = {
    ("MatMul", 1): ["transpose_a", "transpose_b"],
    ("Convolution", 1): ["strides", "dilations", "pads_begin", "pads_end", "auto_pad"],
    ("GroupConvolution", 1): ["strides", "pads_begin", "pads_end", "dilations", "auto_pad"],
    ("MaxPool", 1): ["strides", "pads_begin", "pads_end", "kernel", "rounding_type", "auto_pad"],
    ("MaxPool", 8): ["strides", "dilations", "pads_begin", "pads_end", "kernel", "rounding_type", "auto_pad",
                     "index_element_type", "axis"],
    ("MaxPool", 14): ["strides", "dilations", "pads_begin", "pads_end", "kernel", "rounding_type", "auto_pad",
                      "index_element_type", "axis"],
    ("AvgPool", 1): ["kernel", "strides", "pads_begin", "pads_end", "exclude-pad", "auto_pad", "rounding_type"],
    ("AvgPool", 14): ["kernel", "strides", "pads_begin", "pads_end", "exclude-pad", "auto_pad", "rounding_type"],
    ("AvgPool", 16): ["kernel", "strides", "pads_begin", "pads_end", "exclude-pad", "auto_pad", "rounding_type",
                      "dilations"],
    ("ReduceSum", 1): ["keep_dims"],
    ("ReduceMean", 1): ["keep_dims"],
    ("ReduceMax", 1): ["keep_dims"],
    ("Softmax", 1): ["axis"],
    ("Softmax", 8): ["axis"],
}


@pytest.mark.parametrize(("op", "version"), sorted(IR_ATTRS))
def test_attribute_names_follow_ir(op: str, version: int) -> None:
    assert [a.name for a in get_opdef(op, version).attrs] == IR_ATTRS[(op, version)]


def test_softmax_is_written_softmax_in_ir() -> None:
    assert get_opdef("Softmax", 8).ir_type_name == "SoftMax"
    assert get_opdef("SoftMax", 1).type_name == "Softmax"


def test_builders_store_ir_spelling() -> None:
    x = P([1, 3, 7, 7])
    conv = opset.convolution(x, w(2, 3, 3, 3), [1, 1], [0, 0], [0, 0], [1, 1], auto_pad="SAME_UPPER")
    assert conv.attrs["auto_pad"] == "same_upper"
    assert opset.convolution(x, w(2, 3, 3, 3), [1, 1], [0, 0], [0, 0], [1, 1]).attrs["auto_pad"] == "explicit"
    mp = opset.max_pool(x, [1, 1], [1, 1], [0, 0], [0, 0], [2, 2], "CEIL_TORCH", "notset", "i32")
    assert (mp.attrs["rounding_type"], mp.attrs["auto_pad"], mp.attrs["index_element_type"]) == (
        "ceil_torch", "explicit", Type.i32)
    ap = opset.avg_pool(x, [1, 1], [0, 0], [0, 0], [2, 2], True, auto_pad="VALID")
    assert (ap.attrs["exclude-pad"], ap.attrs["auto_pad"], ap.attrs["dilations"]) == (True, "valid", [1, 1])
    assert ap.version == 16 and mp.version == 14 and opset.softmax(x, 1).version == 8


# -- MatMul ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(("a", "b", "ta", "tb", "expected"), [
    ([2, 3], [3, 4], False, False, "[2,4]"),
    ([3, 2], [3, 4], True, False, "[2,4]"),
    ([2, 3], [4, 3], False, True, "[2,4]"),
    ([3], [3], False, False, "[]"),
    ([3], [3], True, True, "[]"),  # transposes do not apply to vectors
    ([3], [3, 4], True, False, "[4]"),
    ([4, 3], [3], False, True, "[4]"),
    ([3], [2, 3, 4], False, False, "[2,4]"),
    ([2, 4, 3], [3], False, False, "[2,4]"),
    ([2, 1, 4, 3], [5, 3, 6], False, False, "[2,5,4,6]"),
    ([1, 4, 3], [7, 3, 6], False, False, "[7,4,6]"),
    ([0, 3], [3, 0], False, False, "[0,0]"),
    ([-1, 4, -1], ["2..5", -1, 6], False, False, "[2..5,4,6]"),
    (["1..3", 4, 3], ["2..5", 3, 6], False, False, "[2..5,4,6]"),
    ([-1, 4, 3], [1, 3, 6], False, False, "[?,4,6]"),
    (["1..3", "2..7", 3], [3, "..6"], False, False, "[1..3,2..7,0..6]"),
    (["2..4", 3], [3, 5], True, False, "[3,5]"),
    ([4, "2..3"], ["3..5", 6], False, False, "[4,6]"),
    ([2, 4, 3], "...", False, False, "..."),
    ("...", [3], False, False, "..."),
])
def test_matmul_shapes(a: Any, b: Any, ta: bool, tb: bool, expected: str) -> None:
    assert out(opset.matmul(P(a), P(b), ta, tb)) == expected


@pytest.mark.parametrize("et", [Type.f16, Type.i32, Type.i64, Type.u8])
def test_matmul_keeps_numeric_type(et: Type) -> None:
    assert opset.matmul(P([2, 3], et), P([3, 2], et), False, False).output(0).get_element_type() == et


@pytest.mark.parametrize(("a", "b", "ta", "tb", "match"), [
    ([4, 3], [4, 6], False, False, "K=3.*K=4"),
    ([3, 4], [4, 6], True, False, "K=3.*K=4"),
    ([4, "2..3"], ["4..5", 6], False, False, "K=2..3.*K=4..5"),
    ([2, 4, 3], [5, 3, 6], False, False, r"batch dimensions .*\[2\].*\[5\]"),
    ([], [3], False, False, "input A is a scalar"),
    ([3], [], False, False, "input B is a scalar"),
])
def test_matmul_errors(a: Any, b: Any, ta: bool, tb: bool, match: str) -> None:
    with pytest.raises(ValidationError, match=f"MatMul-1 node .*{match}"):
        opset.matmul(P(a), P(b), ta, tb)


def test_matmul_type_errors() -> None:
    with pytest.raises(ValidationError, match="same element type"):
        opset.matmul(P([2, 3], Type.f16), P([3, 2]), False, False)
    with pytest.raises(ValidationError, match="boolean is not allowed"):
        opset.matmul(P([2, 3], Type.boolean), P([3, 2], Type.boolean), False, False)


def test_matmul_literal_takes_the_node_type() -> None:
    node = opset.matmul(P([2, 3], Type.f16), [[1.0], [2.0], [3.0]], False, False)
    assert node.input_value(1).get_element_type() == Type.f16 and out(node) == "[2,1]"


# -- sliding windows ------------------------------------------------------------------------------

@pytest.mark.parametrize(("size", "k", "s", "d", "lower", "expected"), [
    (7, 3, 1, 1, False, (1, 1)),
    (8, 2, 2, 1, False, (0, 0)),
    (7, 4, 2, 1, False, (1, 2)),
    (7, 4, 2, 1, True, (2, 1)),
    (5, 3, 3, 2, False, (1, 2)),
    (2, 5, 1, 1, True, (2, 2)),
])
def test_same_pads(size: int, k: int, s: int, d: int, lower: bool, expected: tuple[int, int]) -> None:
    assert same_pads(size, k, s, d, lower) == expected


def test_resolve_pads() -> None:
    args = ([7, 7], [4, 3], [2, 1], [1, 2])
    assert resolve_pads(*args, "explicit", [1, 0], [0, 2]) == ([1, 0], [0, 2])
    assert resolve_pads(*args, "explicit", [], []) == ([0, 0], [0, 0])
    assert resolve_pads(*args, "valid", [1, 0], [0, 2]) == ([0, 0], [0, 0])
    assert resolve_pads(*args, "same_upper", [9, 9], [9, 9]) == ([1, 2], [2, 2])
    assert resolve_pads(*args, "same_lower", [], []) == ([2, 2], [1, 2])


# -- Convolution / GroupConvolution ---------------------------------------------------------------

CONV = [  # data, filters, strides, pads_begin, pads_end, dilations, auto_pad, expected
    ([1, 3, 7, 7], [4, 3, 3, 3], [1, 1], [0, 0], [0, 0], [1, 1], "explicit", "[1,4,5,5]"),
    ([1, 3, 7, 7], [4, 3, 3, 3], [2, 2], [1, 1], [1, 1], [1, 1], "explicit", "[1,4,4,4]"),
    ([1, 3, 7, 8], [4, 3, 3, 2], [2, 3], [1, 0], [0, 1], [1, 2], "explicit", "[1,4,3,3]"),
    ([2, 3, 7, 7], [4, 3, 3, 3], [2, 2], [5, 5], [5, 5], [1, 1], "same_upper", "[2,4,4,4]"),
    ([2, 3, 7, 7], [4, 3, 3, 3], [2, 2], [0, 0], [0, 0], [2, 2], "same_lower", "[2,4,4,4]"),
    ([1, 3, 7, 7], [4, 3, 3, 3], [2, 2], [3, 3], [3, 3], [1, 1], "valid", "[1,4,3,3]"),
    ([1, 3, 9], [4, 3, 2], [2], [1], [0], [3], "same_lower", "[1,4,5]"),
    ([1, 2, 5, 6, 7], [1, 2, 2, 3, 1], [1, 2, 3], [0, 0, 0], [0, 0, 0], [1, 1, 1], "explicit", "[1,1,4,2,3]"),
    ([0, 1, 7], [2, 1, 3], [1], [0], [0], [1], "explicit", "[0,2,5]"),
    ([-1, 3, "5..20", -1], [4, 3, 3, 2], [2, 3], [1, 0], [0, 1], [1, 2], "explicit", "[?,4,2..10,1..]"),
    ([-1, 3, "5..20", -1], [4, 3, 3, 2], [2, 3], [1, 0], [0, 1], [1, 2], "same_upper", "[?,4,3..10,?]"),
    ([-1, 3, "5..20", -1], [4, 3, 3, 2], [2, 3], [1, 0], [0, 1], [1, 2], "valid", "[?,4,2..9,1..]"),
    ([1, 3, "1..2", 9], [4, 3, 3, 3], [1, 1], [0, 0], [0, 0], [1, 1], "explicit", "[1,4,1,7]"),
    ([1, 1, "4..9"], [2, 1, 3], [2], [1], [1], [2], "explicit", "[1,2,1..4]"),
    ([1, 3, 7, 7], [-1, -1, -1, -1], [1, 1], [0, 0], [0, 0], [1, 1], "explicit", "[1,?,1..7,1..7]"),
    ([1, 1, 9], [2, 1, "2..4"], [2], [1], [1], [2], "explicit", "[1,2,3..5]"),
    ([1, 1, 9], [2, 1, "2..4"], [2], [1], [1], [2], "same_upper", "[1,2,5]"),
    ([1, 1, 9], [2, 1, "2..4"], [2], [1], [1], [2], "valid", "[1,2,2..4]"),
    ([1, 1, 9], "...", [2], [1], [1], [2], "explicit", "[1,?,1..6]"),
    ("...", [4, 3, 3, 3], [1, 1], [0, 0], [0, 0], [1, 1], "explicit", "[?,4,1..,1..]"),
    ("...", "...", [2], [1], [1], [2], "explicit", "[?,?,1..]"),
    ("...", "...", [], [], [], [], "explicit", "..."),
    ([1, 3, 7, 7], [4, 3, 3, 3], [1, 1], [], [], [1, 1], "same_upper", "[1,4,7,7]"),
]


@pytest.mark.parametrize(("data", "filters", "s", "pb", "pe", "d", "pad", "expected"), CONV)
def test_convolution_shapes(data: Any, filters: Any, s: list[int], pb: list[int], pe: list[int],
                            d: list[int], pad: str, expected: str) -> None:
    node = opset.convolution(P(data), P(filters), s, pb, pe, d, pad)
    assert out(node) == expected
    assert node.attrs["pads_begin"] == pb  # stored as given, even when auto_pad computes its own


@pytest.mark.parametrize(("data", "filters", "expected"), [
    ([1, 6, 5, 5], [3, 4, 2, 3, 3], "[1,12,3,3]"),
    ([1, -1, 5, 5], [3, 4, 2, 3, 3], "[1,12,3,3]"),
    ([1, 6, 5, 5], [-1, 4, 2, 3, 3], "[1,12,3,3]"),
    ([1, 6, 5, 5], [-1, 4, -1, 3, 3], "[1,?,3,3]"),
    ([1, 6, 5, 5], [3, -1, 2, 3, 3], "[1,?,3,3]"),
    ([1, "2..8", 9], [-1, 3, 2, 3], "[1,3..12,7]"),
    ([1, "2..", 9], [-1, 3, 2, 3], "[1,3..,7]"),
    ("...", [2, 3, 4, 3], "[?,6,1..]"),
    ([1, 4, 9], "...", "[1,?,1..9]"),
])
def test_group_convolution_shapes(data: Any, filters: Any, expected: str) -> None:
    n = len(filters) - 3 if isinstance(filters, list) else len(data) - 2
    node = opset.group_convolution(P(data), P(filters), [1] * n, [0] * n, [0] * n, [1] * n)
    assert out(node) == expected


@pytest.mark.parametrize(("data", "filters", "kw", "match"), [
    ([1, 2, 5, 5], [4, 3, 3, 3], {}, r"data channels 2 .* filters input channels 3"),
    ([1, 3, 5, 5], [4, 3, 3], {}, "do not match in rank"),
    ([1, 3], [4, 3], {"n": 0}, "rank 3, 4 or 5"),
    ([1, 3, 4, 4, 4, 4], [4, 3, 2, 2, 2, 2], {"n": 4}, "rank 3, 4 or 5"),
    ([1, 3, 5, 5], [4, 3, 3, 3], {"s": [1]}, r"'strides'=\[1\] must have 2 value"),
    ([1, 3, 5, 5], [4, 3, 3, 3], {"s": [0, 1]}, "'strides'.* must be positive"),
    ([1, 3, 5, 5], [4, 3, 3, 3], {"d": [1, 0]}, "'dilations'.* must be positive"),
    ([1, 3, 5, 5], [4, 3, 3, 3], {"pb": [-1, 0]}, "'pads_begin'.* must not be negative"),
    ([1, 3, 5, 5], [4, 3, 3, 3], {"pe": [0]}, r"'pads_end'=\[0\] must have 2"),
    ([1, 3, 2, 9], [4, 3, 3, 3], {}, r"kernel after dilation \(3\) is larger than the padded input \(2\)"),
    ([1, 3, 5, 5], [4, 3, 3, 3], {"d": [3, 1]}, r"kernel after dilation \(7\)"),
    ([1, 3, 5, 5], [4, 3, 0, 3], {}, "filters spatial dimension 0 is 0"),
    ([1, 3, 5, 5], [4, 3, 3, 3], {"pad": "same"}, "'auto_pad'='same' is not allowed; allowed: 'explicit'"),
])
def test_convolution_errors(data: Any, filters: Any, kw: dict[str, Any], match: str) -> None:
    n = kw.get("n", 2)
    args = [kw.get("s", [1] * n), kw.get("pb", [0] * n), kw.get("pe", [0] * n), kw.get("d", [1] * n)]
    with pytest.raises(ValidationError, match=f"Convolution-1 node.*{match}"):
        opset.convolution(P(data), P(filters), *args, auto_pad=kw.get("pad", "explicit"))


def test_convolution_type_errors() -> None:
    with pytest.raises(ValidationError, match="same element type"):
        opset.convolution(P([1, 3, 5, 5], Type.f16), P([4, 3, 3, 3]), [1, 1], [0, 0], [0, 0], [1, 1])
    with pytest.raises(ValidationError, match="boolean is not allowed"):
        opset.convolution(P([1, 3, 5, 5], "boolean"), P([4, 3, 3, 3], "boolean"), [1, 1], [0, 0], [0, 0], [1, 1])
    node = opset.convolution(P([1, 3, 5, 5], Type.i32), w(4, 3, 3, 3), [1, 1], [0, 0], [0, 0], [1, 1])
    assert node.output(0).get_element_type() == Type.i32  # the literal filters take the data type


@pytest.mark.parametrize(("data", "filters", "match"), [
    ([1, 5, 5, 5], [3, 4, 2, 3, 3], "data channels 5 .* not a multiple of .* 2"),
    ([1, 8, 5, 5], [3, 4, 2, 3, 3], r"need 4 group\(s\) of 2 channels, but the filters .* have 3"),
    ([1, "5..7", 5], [-1, 4, 4, 3], "hold no multiple of"),
    ([1, 4, 9], [2, 3, 2], r"filters shape \[2,3,2\] must have rank 4, 5 or 6"),
    ([1, 4, 9], [2, 3, 0, 3], "input channels per group .* is 0"),
])
def test_group_convolution_errors(data: Any, filters: Any, match: str) -> None:
    n = len(filters) - 3
    with pytest.raises(ValidationError, match=f"GroupConvolution-1 node.*{match}"):
        opset.group_convolution(P(data), P(filters), [1] * n, [0] * n, [0] * n, [1] * n)


# -- MaxPool / AvgPool ----------------------------------------------------------------------------

def mp(data: Any, s: list[int], k: list[int], pb: list[int] | None = None, pe: list[int] | None = None,
       d: list[int] | None = None, **kw: Any) -> Any:
    n = len(k)
    return opset.max_pool(P(data), s, d or [1] * n, pb or [0] * n, pe or [0] * n, k, **kw)


@pytest.mark.parametrize(("data", "s", "k", "pb", "pe", "kw", "expected"), [
    ([1, 3, 7, 7], [2, 2], [2, 2], [1, 1], [1, 1], {}, "[1,3,4,4]"),
    ([1, 3, 7, 7], [2, 2], [2, 2], [1, 1], [1, 1], {"rounding_type": "ceil"}, "[1,3,5,5]"),
    ([1, 3, 7, 7], [2, 2], [2, 2], [1, 1], [1, 1], {"rounding_type": "ceil_torch"}, "[1,3,4,4]"),
    ([1, 1, 6], [2], [2], [1], [0], {"rounding_type": "ceil_torch"}, "[1,1,4]"),  # starts at in+pb-1: kept
    ([1, 3, 7, 7], [1, 1], [3, 3], None, None, {"d": [2, 2]}, "[1,3,3,3]"),
    ([1, 3, 7, 7], [2, 2], [3, 3], None, None, {"auto_pad": "same_lower"}, "[1,3,4,4]"),
    ([1, 3, 7, 7], [2, 2], [3, 3], None, None, {"auto_pad": "same_upper", "rounding_type": "ceil"}, "[1,3,4,4]"),
    ([1, 3, 7, 7], [2, 2], [2, 2], [5, 5], [5, 5], {"auto_pad": "valid", "rounding_type": "ceil"}, "[1,3,4,4]"),
    ([1, 3, 7, 7], [1, 1], [3, 3], [3, 0], None, {}, "[1,3,8,5]"),  # pads >= kernel: allowed for MaxPool
    ([1, 3, 9], [2], [3], None, None, {}, "[1,3,4]"),
    ([2, 1, 4, 5, 6], [1, 2, 3], [2, 2, 2], None, None, {}, "[2,1,3,2,2]"),
    ([-1, 3, "5..20", -1], [2, 3], [3, 2], [1, 0], [0, 1], {"d": [1, 2]}, "[?,3,2..10,1..]"),
    ([1, 3, "5..9", -1], [2, 2], [2, 2], [1, 1], [1, 1], {"rounding_type": "ceil"}, "[1,3,4..6,1..]"),
    ([1, 3, "5..9", -1], [2, 2], [2, 2], [1, 1], [1, 1], {"rounding_type": "ceil_torch"}, "[1,3,3..5,1..]"),
    ([1, 3, "5..9", "2..4"], [2, 2], [2, 2], None, None, {"auto_pad": "same_upper"}, "[1,3,3..5,1..2]"),
    ("...", [1, 1], [3, 3], None, None, {}, "[?,?,?,?]"),
])
def test_max_pool_shapes(data: Any, s: list[int], k: list[int], pb: Any, pe: Any, kw: dict[str, Any],
                         expected: str) -> None:
    for version in (14, 8, 1) if not kw.get("d") and kw.get("rounding_type") != "ceil_torch" else (14,):
        node = mp(data, s, k, pb, pe, version=version, **kw)
        assert out(node) == expected, version
        assert node.get_output_size() == (1 if version == 1 else 2)


def test_max_pool_indices() -> None:
    node = mp([1, 3, 7, 7], [1, 1], [3, 3], index_element_type="i32", axis=-4, version=8)
    assert node.output(1).get_element_type() == Type.i32 and out(node, 1) == "[1,3,5,5]"
    assert mp([1, 3, 7, 7], [1, 1], [3, 3]).output(1).get_element_type() == Type.i64
    assert mp([1, 3, 7, 7], [1, 1], [3, 3], axis=None).attrs["axis"] == 0
    assert mp("...", [1, 1], [3, 3], axis=7).attrs["axis"] == 7  # cannot be checked without a rank


@pytest.mark.parametrize(("data", "k", "kw", "match"), [
    ([1, 3, 7, 7], [3, 3], {"axis": -5}, r"'axis' -5 is out of range for rank 4; allowed \[-4, 3\]"),
    ([1, 3, 7, 7], [3, 3], {"axis": 4}, "'axis' 4 is out of range"),
    ([1, 3, 7, 7], [3, 3], {"index_element_type": "f32"}, "'index_element_type'=.*not allowed"),
    ([1, 3, 7, 7], [3, 3], {"version": 8, "rounding_type": "ceil_torch"}, "'ceil_torch' is not allowed"),
    ([1, 3, 7, 7], [8, 3], {}, r"kernel after dilation \(8\) is larger than the padded input \(7\)"),
    ([1, 3, 7, 7], [0, 3], {}, "'kernel'.* must be positive"),
    ([1, 3, 7, 7], [3], {}, r"'kernel'=\[3\] must have 2 value"),
    ([1, 3], [], {}, "rank 3, 4 or 5"),
    ("...", [2, 2, 2, 2], {}, "'kernel'.* must have 1, 2 or 3 values"),
    ([0, 3, 7, 7], [3, 3], {}, "batch dimension of 0"),
    ([1, 0, 7, 7], [3, 3], {}, "channel dimension of 0"),
    ([1, 3, 7, 7], [3, 3], {"s": [0, 1]}, "'strides'.* must be positive"),
    ([1, 3, 7, 7], [3, 3], {"d": [0, 1]}, "'dilations'.* must be positive"),
    ([1, 3, 7, 7], [3, 3], {"pb": [-1, 0]}, "'pads_begin'.* must not be negative"),
    ([1, 3, 7, 7], [3, 3], {"rounding_type": "round"}, "'rounding_type'='round' is not allowed"),
])
def test_max_pool_errors(data: Any, k: list[int], kw: dict[str, Any], match: str) -> None:
    kw = dict(kw)
    s = kw.pop("s", [1] * len(k))
    version = kw.get("version", 14)
    with pytest.raises(ValidationError, match=f"MaxPool-{version} node.*{match}"):
        mp(data, s, k, kw.pop("pb", None), None, kw.pop("d", None), **kw)


def test_max_pool_boolean_data_is_refused() -> None:
    with pytest.raises(ValidationError, match="MaxPool-14 node.*boolean is not allowed"):
        opset.max_pool(P([1, 1, 4], "boolean"), [1], [1], [0], [0], [2])


def test_max_pool_versions() -> None:
    assert "dilations" not in mp([1, 3, 7, 7], [1, 1], [2, 2], version=1).attrs
    with pytest.raises(ValidationError, match=r"MaxPool-1 has no dilations; got dilations=\[2, 2\]"):
        mp([1, 3, 7, 7], [1, 1], [2, 2], d=[2, 2], version=1)
    with pytest.raises(UnsupportedOpError, match=r"'MaxPool' has no version 2; defined versions: \[1, 8, 14\]"):
        mp([1, 3, 7, 7], [1, 1], [2, 2], version=2)


def test_pool_through_make_node_like_the_ir_reader() -> None:
    x = P([1, 3, 7, 7]).output(0)
    node = make_node("MaxPool", 8, [x], {"strides": [2, 2], "pads_begin": [0, 0], "pads_end": [0, 0],
                                         "kernel": [3, 3], "rounding_type": "ceil", "auto_pad": "explicit"})
    assert out(node) == "[1,3,3,3]" and node.attrs["dilations"] == [] and node.attrs["axis"] == 0
    node = make_node("AvgPool", 1, [x], {"strides": [1, 1], "pads_begin": [1, 1], "pads_end": [1, 1],
                                         "kernel": [3, 3], "exclude-pad": False})
    assert out(node) == "[1,3,7,7]" and node.attrs["rounding_type"] == "floor"
    node = make_node("AvgPool", 16, [x], {"strides": [1, 1], "pads_begin": [0, 0], "pads_end": [0, 0],
                                          "kernel": [3, 3], "exclude-pad": True})
    assert out(node) == "[1,3,5,5]" and node.attrs["dilations"] == []  # empty: all ones
    with pytest.raises(ValidationError, match="AvgPool-1 node.*'exclude-pad' is required"):
        make_node("AvgPool", 1, [x], {"strides": [1, 1], "pads_begin": [0, 0], "pads_end": [0, 0], "kernel": [3, 3]})


def ap(data: Any, s: list[int], k: list[int], pb: list[int], pe: list[int], exclude: bool, **kw: Any) -> Any:
    return opset.avg_pool(P(data), s, pb, pe, k, exclude, **kw)


def test_avg_pool_shapes() -> None:
    assert out(ap([1, 3, 7, 7], [2, 2], [2, 2], [1, 1], [1, 1], True, rounding_type="ceil", version=1)) == "[1,3,5,5]"
    assert out(ap([1, 3, 7, 7], [2, 2], [2, 2], [1, 1], [1, 1], True, rounding_type="ceil_torch",
                  version=14)) == "[1,3,4,4]"
    assert out(ap([1, 3, 7, 7], [1, 1], [3, 3], [0, 0], [0, 0], True, dilations=[2, 2])) == "[1,3,3,3]"
    assert out(ap([1, 3, 7, 7], [1, 1], [3, 3], [0, 0], [0, 0], True)) == "[1,3,5,5]"
    assert out(ap([1, 1, 7], [1], [3], [3], [0], False)) == "[1,1,8]"
    assert out(ap([1, 1, 7], [1], [3], [3], [0], True, auto_pad="valid")) == "[1,1,5]"  # pads ignored
    assert ap([1, 3, 7, 7], [1, 1], [2, 2], [0, 0], [0, 0], False, version=14).version == 14
    node = ap([1, 3, 7, 7], [1, 1], [2, 2], [0, 0], [0, 0], False, version=1)
    assert node.output(0).get_element_type() == Type.f32 and "dilations" not in node.attrs


@pytest.mark.parametrize(("k", "pb", "pe", "kw", "match"), [
    ([3], [3], [0], {}, r"dilated kernel 3 and pads \(3, 0\); pads must be smaller"),
    ([2], [0], [3], {"dilations": [2]}, r"dilated kernel 3 and pads \(0, 3\)"),
])
def test_avg_pool_window_in_padding(k: list[int], pb: list[int], pe: list[int], kw: dict[str, Any],
                                    match: str) -> None:
    with pytest.raises(ValidationError, match=f"AvgPool-16 node.*exclude-pad=true.*{match}"):
        ap([1, 1, 9], [1], k, pb, pe, True, **kw)


def test_avg_pool_errors() -> None:
    with pytest.raises(ValidationError, match="AvgPool-1 node.*'ceil_torch' is not allowed"):
        ap([1, 3, 7, 7], [1, 1], [2, 2], [0, 0], [0, 0], True, rounding_type="ceil_torch", version=1)
    with pytest.raises(ValidationError, match=r"AvgPool-14 has no dilations; got dilations=\[2, 2\]"):
        ap([1, 3, 7, 7], [1, 1], [2, 2], [0, 0], [0, 0], True, dilations=[2, 2], version=14)
    with pytest.raises(ValidationError, match=r"AvgPool-16 node.*'dilations'=\[1\] must have 2"):
        ap([1, 3, 7, 7], [1, 1], [2, 2], [0, 0], [0, 0], True, dilations=[1])
    with pytest.raises(ValidationError, match="AvgPool-16 node.*'yes' is not of attribute kind 'bool'"):
        ap([1, 3, 7, 7], [1, 1], [2, 2], [0, 0], [0, 0], "yes")


# -- reductions -----------------------------------------------------------------------------------

@pytest.mark.parametrize("builder", [opset.reduce_sum, opset.reduce_mean, opset.reduce_max])
@pytest.mark.parametrize(("data", "axes", "keep", "expected"), [
    ([2, 3, 4], [0, -1], False, "[3]"),
    ([2, 3, 4], [0, -1], True, "[1,3,1]"),
    ([2, 3, 4], [1, 1], False, "[2,4]"),
    ([2, 3, 4], [1, -2], True, "[2,1,4]"),
    ([2, 3, 4], np.array([], np.int64), False, "[2,3,4]"),
    ([2, 3, 4], np.int64(1), False, "[2,4]"),
    ([2, 3, 4], np.array([2, 0], np.int32), False, "[3]"),
    ([], np.array([], np.int64), False, "[]"),
    ([], [0], True, "[]"),
    ([-1, "2..5", 4], [1], False, "[?,4]"),
    ("...", [1], True, "..."),
])
def test_reduce_constant_axes(builder: Any, data: Any, axes: Any, keep: bool, expected: str) -> None:
    assert out(builder(P(data), axes, keep)) == expected


@pytest.mark.parametrize(("data", "axes", "keep", "expected"), [
    ([2, 3, 4], [2], False, "..."),
    ([2, 3, 4], [2], True, "[1..2,1..3,1..4]"),
    ([2, 1, -1], [-1], True, "[1..2,1,?]"),
    ([2, 3, 4], [], False, "[?,?]"),
    ([2, 3, 4], [1], False, "[?,?]"),
    ([2, 3, 4], [0], False, "[2,3,4]"),
    ("...", [2], True, "..."),
])
def test_reduce_axes_unknown_at_build_time(data: Any, axes: Any, keep: bool, expected: str) -> None:
    assert out(opset.reduce_sum(P(data), P(axes, Type.i64), keep)) == expected


@pytest.mark.parametrize(("data", "axes", "match"), [
    ([2, 3, 4], [3], r"reduction axis 3 is out of range for rank 3; allowed \[-3, 2\]"),
    ([2, 3, 4], [-4], "reduction axis -4 is out of range"),
    ([2, 3, 4], np.array([1.0], np.float32), "axes element type f32 is not allowed"),
    ([2, 3, 4], np.array([[1]], np.int64), r"axes shape \[1,1\] is not allowed"),
    ([], [1], "reduction axis 1 is out of range for a rank-0 input; allowed: 0 or -1"),
])
def test_reduce_errors(data: Any, axes: Any, match: str) -> None:
    axes_node = opset.constant(axes)
    with pytest.raises(ValidationError, match=f"ReduceMean-1 node.*{match}"):
        opset.reduce_mean(P(data), axes_node)


def test_reduce_type_errors() -> None:
    with pytest.raises(ValidationError, match="ReduceMax-1 node.*boolean is not allowed"):
        opset.reduce_max(P([2, 3], Type.boolean), [1])
    with pytest.raises(ValidationError, match=r"ReduceSum: reduction axes \[1.5\] must be integers"):
        opset.reduce_sum(P([2, 3]), [1.5])
    assert opset.reduce_sum(P([2, 3]), [1]).input_value(1).get_element_type() == Type.i64
    node = opset.reduce_sum(P([2, 3], Type.i32), np.array([1], np.int32))
    assert node.input_value(1).get_element_type() == Type.i32 and node.output(0).get_element_type() == Type.i32


# -- Softmax --------------------------------------------------------------------------------------

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


def test_exports() -> None:
    for name in ("matmul", "convolution", "group_convolution", "max_pool", "avg_pool", "reduce_sum",
                 "reduce_mean", "reduce_max", "softmax"):
        assert name in opset.__all__ and callable(getattr(opset, name))



# -- agreement with OpenVINO's own shape inference ------------------------------------------------
# Each construction above is rebuilt with OpenVINO's NodeFactory from our node's IR attributes.
# Our shapes must equal OpenVINO's, except where ours are strictly more precise (listed).

MORE_PRECISE = {  # (op, our shape): what OpenVINO infers there
    ("MaxPool", "[1,3,3..5,1..2]"): "[1,3,?,?]",  # same_* pooling on bounded dims: OV gives up
    ("ReduceSum", "[1..2,1..3,1..4]"): "[?,?,?]",  # keep_dims with unknown axes: each dim is d or 1
    ("ReduceSum", "[1..2,1,?]"): "[?,?,?]",
    ("ReduceSum", "[2,3,4]"): "[...]",  # axes of shape [0]: nothing is reduced
}


def _ov_node(node: Any) -> Any:
    ov = pytest.importorskip("openvino")
    from openvino.utils.node_factory import NodeFactory

    inputs = []
    for src in node.input_values():
        producer = src.get_node()
        if producer.type_name == "Constant":
            inputs.append(ov.opset16.constant(np.asarray(producer.data)).output(0))
        else:
            et = getattr(ov.Type, src.get_element_type().name)
            inputs.append(ov.opset16.parameter(ov.PartialShape(str(src.get_partial_shape())), et).output(0))
    attrs = {k: (v.name if isinstance(v, Type) else v) for k, v in node.attrs.items()}
    return NodeFactory(f"opset{node.version}").create(node.type_name, inputs, attrs)


def _agreement_nodes() -> list[Any]:
    nodes = [opset.matmul(P(a), P(b), ta, tb) for a, b, ta, tb, _ in [
        ([2, 1, 4, 3], [5, 3, 6], False, False, 0), ([3], [2, 3, 4], True, False, 0),
        ([-1, 4, -1], ["2..5", -1, 6], False, False, 0), (["1..3", 4, 3], ["2..5", 3, 6], False, False, 0),
        ([2, 4, 3], [3], False, True, 0), ([-1, 4, 3], [1, 3, 6], False, False, 0)]]
    nodes += [opset.convolution(P(c[0]), P(c[1]), *c[2:7]) for c in CONV]
    nodes += [opset.group_convolution(P([1, 6, 5, 5]), P([-1, 4, 2, 3, 3]), [2, 1], [1, 0], [0, 1], [1, 2]),
              opset.group_convolution(P([1, "2..8", 9]), P([-1, 3, 2, 3]), [1], [0], [0], [1], "same_lower")]
    nodes += [mp([1, 3, "5..9", -1], [2, 2], [2, 2], [1, 1], [1, 1], rounding_type=r) for r in ROUNDINGS]
    nodes += [mp([1, 3, 7, 7], [2, 2], [2, 2], [1, 1], [1, 1], rounding_type=r, version=v)
              for r in ("floor", "ceil") for v in (1, 8)]
    nodes += [mp([1, 1, 6], [2], [2], [1], [0], rounding_type="ceil_torch"),
              mp([1, 3, "5..9", "2..4"], [2, 2], [2, 2], auto_pad="same_upper"),
              ap([1, 3, 7, 7], [2, 2], [3, 3], [1, 1], [1, 1], True, rounding_type="ceil_torch", dilations=[1, 2]),
              ap([1, 3, "4..9", 7], [2, 2], [2, 2], [1, 1], [0, 0], False, rounding_type="ceil", version=1)]
    nodes += [opset.reduce_sum(P([2, 3, 4]), P(axes, Type.i64), keep) for axes, keep in [
        ([2], True), ([2], False), ([], False), ([0], False)]]
    nodes += [opset.reduce_sum(P([2, 1, -1]), P([1], Type.i64), True),
              opset.reduce_max(P([2, 3, 4]), [0, -1], True), opset.reduce_mean(P([2, 3, 4]), np.int64(1))]
    nodes += [opset.softmax(P([2, "1..3"]), -1), opset.softmax(P([2, 3]), 1, version=1), opset.softmax(P([]), -1),
              opset.reduce_sum(P([]), [-1]), opset.reduce_max(P([]), np.array([], np.int64))]
    # not compared: ReduceSum of a scalar with keep_dims, where OpenVINO fails ("out-of-range dimension")
    return nodes


ROUNDINGS = ("floor", "ceil", "ceil_torch")


@pytest.mark.openvino
def test_shapes_agree_with_openvino() -> None:
    checked = 0
    for node in _agreement_nodes():
        theirs = _ov_node(node)
        assert theirs.get_output_size() == node.get_output_size(), node
        for i in range(node.get_output_size()):
            ours_shape = str(node.output(i).get_partial_shape())
            ov_shape = str(theirs.output(i).get_partial_shape()).replace("[...]", "...")
            expected = MORE_PRECISE.get((node.type_name, ours_shape), ov_shape).replace("[...]", "...")
            assert expected == ov_shape and PartialShape(ours_shape).refines(PartialShape(ov_shape)), (
                f"{node}: ours {ours_shape}, OpenVINO {ov_shape}")
            assert theirs.output(i).get_element_type().get_type_name() == node.output(i).get_element_type().name
            checked += 1
    assert checked > 40


@pytest.mark.openvino
@pytest.mark.parametrize("name", ["matmul", "convolution", "group_convolution", "max_pool", "avg_pool",
                                  "reduce_sum", "reduce_mean", "reduce_max", "softmax"])
def test_builder_signatures_follow_openvino_opset16(name: str) -> None:
    import inspect

    ov_opset = pytest.importorskip("openvino.opset16")
    ours = [p for p in inspect.signature(getattr(opset, name)).parameters.values() if p.kind != p.KEYWORD_ONLY]
    theirs = list(inspect.signature(getattr(ov_opset, name)).parameters.values())
    assert [(p.name, p.default) for p in ours] == [(p.name, p.default) for p in theirs]
