"""Tests of the pooling ops (OpenVINO's op-spec folder "pooling"): MaxPool-1/8/14, AvgPool-1/14/16,
AdaptiveAvgPool-8 and AdaptiveMaxPool-8 — builder inference and errors (as OpenVINO writes and
infers them), REFERENCE kernel numerics against literal values or independent loop formulas
(transcriptions of the specs' pseudo-code), and the case strategies.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _op_helpers import P, out, run, run_all
from _opcase_checks import CASE_SETTINGS, check_case_runs, check_ir_spelling, versions_of
from hypothesis import given
from hypothesis import strategies as st

from ovconform import opset
from ovconform.errors import UnsupportedOpError, ValidationError
from ovconform.ir import Node, Type, make_node
from ovconform.ir.opset_table import OPSET_VERSIONS
from ovconform.opcases import case_strategy

#: The op versions of the family whose case strategies are checked here.
CASE_KEYS = [("AdaptiveAvgPool", 8), ("AdaptiveMaxPool", 8)]
#: Attribute names, in IR order, as OpenVINO writes them.
IR_ATTRS = {("AdaptiveAvgPool", 8): [], ("AdaptiveMaxPool", 8): ["index_element_type"],
            ("MaxPool", 1): ["strides", "pads_begin", "pads_end", "kernel", "rounding_type", "auto_pad"],
            ("MaxPool", 8): ["strides", "dilations", "pads_begin", "pads_end", "kernel", "rounding_type", "auto_pad",
                             "index_element_type", "axis"],
            ("MaxPool", 14): ["strides", "dilations", "pads_begin", "pads_end", "kernel", "rounding_type", "auto_pad",
                              "index_element_type", "axis"],
            ("AvgPool", 1): ["kernel", "strides", "pads_begin", "pads_end", "exclude-pad", "auto_pad", "rounding_type"],
            ("AvgPool", 14): ["kernel", "strides", "pads_begin", "pads_end", "exclude-pad", "auto_pad",
                              "rounding_type"],
            ("AvgPool", 16): ["kernel", "strides", "pads_begin", "pads_end", "exclude-pad", "auto_pad", "rounding_type",
                              "dilations"]}
#: IR type names that differ from the op type.
IR_NAMES: dict[str, str] = {}

@pytest.mark.parametrize(("op", "version"), list(IR_ATTRS))
def test_ir_names_and_attributes_follow_openvino(op: str, version: int) -> None:
    check_ir_spelling(op, version, IR_ATTRS[(op, version)], IR_NAMES.get(op))
    assert version in OPSET_VERSIONS[op]


def test_builders_use_the_opset_versions() -> None:
    x4 = P([1, 2, 4, 4])
    assert versions_of([opset.adaptive_avg_pool(x4, [2, 2]), opset.adaptive_max_pool(x4, [2, 2])]) == CASE_KEYS


def test_builders_store_ir_spelling() -> None:
    x = P([1, 3, 7, 7])
    mp = opset.max_pool(x, [1, 1], [1, 1], [0, 0], [0, 0], [2, 2], "CEIL_TORCH", "notset", "i32")
    assert (mp.attrs["rounding_type"], mp.attrs["auto_pad"], mp.attrs["index_element_type"]) == (
        "ceil_torch", "explicit", Type.i32)
    ap = opset.avg_pool(x, [1, 1], [0, 0], [0, 0], [2, 2], True, auto_pad="VALID")
    assert (ap.attrs["exclude-pad"], ap.attrs["auto_pad"], ap.attrs["dilations"]) == (True, "valid", [1, 1])
    assert ap.version == 16 and mp.version == 14

@pytest.mark.parametrize(("op", "version"), CASE_KEYS)
@CASE_SETTINGS
@given(data=st.data())
def test_cases_are_valid_and_run(op: str, version: int, data: st.DataObject) -> None:
    case = data.draw(case_strategy(op, version))
    node, outs = check_case_runs(case, op, version)
    if op == "AdaptiveMaxPool":
        values = case.inputs["data"]
        assert np.unique(values).size == values.size
    if node.get_output_element_type(0).is_real():
        assert np.all(np.isfinite(outs[0].astype(np.float64)))


def test_adaptive_pool_inference() -> None:
    assert out(opset.adaptive_avg_pool(P([2, 3, 7]), [3])) == "[2,3,3]"
    assert out(opset.adaptive_avg_pool(P([-1, 3, 7, 5, 4]), np.array([1, 2, 9], np.int32))) == "[?,3,1,2,9]"
    assert out(opset.adaptive_avg_pool(P([2, 3, 7, 7]), P([2], Type.i64))) == "[2,3,?,?]"
    node = opset.adaptive_max_pool(P([2, 3, 7, 7], Type.f16), [3, 3], "i32")
    assert node.output(1).get_element_type() == Type.i32 and out(node, 1) == "[2,3,3,3]"
    assert out(opset.adaptive_max_pool(P("..."), [3, 3])) == "..."


@pytest.mark.parametrize(("make", "match"), [
    (lambda: opset.adaptive_avg_pool(P([2, 3, 7, 7]), [3]), r"output_shape shape \[1\] must hold 2 value"),
    (lambda: opset.adaptive_avg_pool(P([2, 7]), [3]), r"data shape \[2,7\] must have rank 3, 4 or 5"),
    (lambda: opset.adaptive_avg_pool(P([2, 3, 7], Type.i32), [3]), "i32 is not allowed; .*floating-point"),
    (lambda: opset.adaptive_avg_pool(P([2, 3, 7]), [0]), r"output_shape \[0\] must be positive"),
    (lambda: opset.adaptive_max_pool(P([2, 3, 7]), [3], "i8"), "index_element_type.*not allowed"),
    (lambda: opset.adaptive_max_pool(P([2, 3, 7]), opset.constant(np.array([3.0], np.float32))),
     "output_shape element type f32"),
])
def test_adaptive_pool_errors(make: Callable[[], Node], match: str) -> None:
    with pytest.raises(ValidationError, match=f"Adaptive(Avg|Max)Pool-8 node.*{match}"):
        make()


def _bins(size: int, n: int) -> list[tuple[int, int]]:
    return [(math.floor(i * size / n), math.ceil((i + 1) * size / n)) for i in range(n)]


@pytest.mark.parametrize(("shape", "sizes"), [((2, 3, 7), [3]), ((1, 2, 5, 7), [2, 4]), ((1, 1, 3, 4, 5), [2, 3, 7]),
                                              ((1, 2, 3, 2), [5, 4])])
def test_adaptive_pools_match_a_loop_over_bins(shape: tuple[int, ...], sizes: list[int]) -> None:
    x = np.random.default_rng(3).permutation(math.prod(shape)).reshape(shape).astype(np.float32)
    avg = run(lambda p: opset.adaptive_avg_pool(p, sizes), x)
    peak, index = run_all(lambda p: opset.adaptive_max_pool(p, sizes), x)
    spatial = shape[2:]
    for pos in np.ndindex(*sizes):
        box = tuple(slice(*_bins(s, n)[o]) for s, n, o in zip(spatial, sizes, pos, strict=True))
        window = x[(slice(None), slice(None), *box)].reshape(*shape[:2], -1)
        np.testing.assert_allclose(avg[(..., *pos)], window.mean(axis=-1), rtol=1e-6)
        np.testing.assert_array_equal(peak[(..., *pos)], window.max(axis=-1))
        flat = x.reshape(*shape[:2], -1)
        np.testing.assert_array_equal(np.take_along_axis(flat, index[(..., *pos)].reshape(*shape[:2], 1), -1)[..., 0],
                                      window.max(axis=-1))
    assert index.dtype == np.int64


def test_adaptive_max_pool_matches_openvino_literals() -> None:
    x = np.random.default_rng(0).permutation(40).astype(np.float32).reshape(1, 2, 5, 4)
    values, index = run_all(lambda p: opset.adaptive_max_pool(p, [2, 3], "i32"), x)
    assert values.tolist() == [[[[27, 27, 34], [38, 38, 30]], [[35, 35, 36], [39, 39, 31]]]]
    assert index.dtype == np.int32
    assert index.tolist() == [[[[1, 1, 7], [17, 17, 15]], [[1, 1, 7], [13, 13, 19]]]]


def test_adaptive_max_pool_ties_and_nan() -> None:
    x = np.array([[[2.0, 5.0, 5.0, 1.0, np.nan, 3.0]]], np.float32)
    values, index = run_all(lambda p: opset.adaptive_max_pool(p, [2]), x)
    assert index.tolist() == [[[1, 4]]]  # the first maximum; NaN wins its bin
    assert values[0, 0, 0] == 5.0 and np.isnan(values[0, 0, 1])


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
