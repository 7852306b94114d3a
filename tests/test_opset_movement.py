"""Builders of the shape, data-movement and state ops: shape/type inference (static, dynamic,
bounded), attribute spellings as OpenVINO writes them, and construction errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ovconform import Dimension, Model, PartialShape, Type
from ovconform import opset as ops
from ovconform.errors import ValidationError
from ovconform.ir import Node, make_node
from ovconform.opset._infrastructure import VariableInfo, check_variables, variable_infos

P = ops.parameter
FAST = settings(max_examples=60, database=None, deadline=None, suppress_health_check=list(HealthCheck))


def shape(node: Node, i: int = 0) -> str:
    return str(node.get_output_partial_shape(i))


def scalar(value: int, dtype: Any = np.int64) -> Node:
    return ops.constant(np.array(value, dtype=dtype))


# -- Reshape ----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("data", "target", "special_zero", "want"), [
    ([2, 3, 4], [0, -1], True, "[2,12]"),
    ([2, 3, 4], [-1], False, "[24]"),
    ([2, 3, 4], [4, 0, -1], True, "[4,3,2]"),
    ([1, 1], [], False, "[]"),
    ([2, 3], [0, 0, -1], True, "[2,3,1]"),
    ([-1, 3, 4], [0, -1], True, "[?,12]"),
    ([-1, 3, 4], [-1, 4], False, "[?,4]"),
    (["2..6", 3, 4], [-1, 4], False, "[6..18,4]"),
    ([-1, "2..4", 4], [0, 0, -1], True, "[?,2..4,4]"),
    ([2, 0, 4], [0, -1], True, "[2,0]"),
    ([2, 0, 4], [-1, 0], True, "[8,0]"),
    ([0, 3], [0, -1], False, "[0,1]"),
    ("...", [2, -1], False, "[2,?]"),
    ("...", [0, 3], True, "[?,3]"),
])
def test_reshape_shapes(data: Any, target: list[int], special_zero: bool, want: str) -> None:
    node = ops.reshape(P(data, "i32"), target, special_zero)
    assert shape(node) == want and node.get_output_element_type(0) == Type.i32
    assert node.attrs == {"special_zero": special_zero}


def test_reshape_target_not_constant_gives_rank_from_its_length() -> None:
    assert shape(ops.reshape(P([2, 3]), P([3], "i64"), False)) == "[?,?,?]"
    assert shape(ops.reshape(P([2, 3]), P([-1], "i32"), False)) == "..."


def test_reshape_target_from_shape_of_a_static_shape_is_exact() -> None:
    x = P([2, 3, 4])
    assert shape(ops.reshape(P([24]), ops.shape_of(x), False)) == "[2,3,4]"


@given(st.lists(st.integers(1, 4), max_size=4), st.data())
@FAST
def test_reshape_matches_numpy(dims: list[int], data: st.DataObject) -> None:
    x = np.zeros(dims)
    target = list(data.draw(st.permutations(dims)))
    if target and data.draw(st.booleans()):
        target[data.draw(st.integers(0, len(target) - 1))] = -1
    assert ops.reshape(P(dims), target, False).get_output_partial_shape(0) == list(x.reshape(target).shape)


@pytest.mark.parametrize(("data", "target", "special_zero", "message"), [
    ([2, 3], [-1, -1], False, r"more than one -1"),
    ([2, 3], [-2, 3], False, r"\[-2\]; allowed: -1, 0"),
    ([2, 3], [4, 2], False, r"cannot reshape input of shape \[2,3\] into \[4,2\]"),
    ([2, 3], [4, -1], False, r"does not divide the 6 elements"),
    ([2, 3], [0, -1], False, r"zero-size dim, so -1 cannot be inferred"),
    ([2, 3], [0, 0, 0], True, r"copies input dim 2 \(special_zero\) but the input \[2,3\] has rank 2"),
])
def test_reshape_errors(data: list[int], target: list[int], special_zero: bool, message: str) -> None:
    with pytest.raises(ValidationError, match=r"^Reshape-1 node 'r': .*" + message):
        ops.reshape(P(data), target, special_zero, name="r")


def test_reshape_target_must_be_1d_integers() -> None:
    with pytest.raises(ValidationError, match=r"Reshape-1 node 'r': the target shape \(input 1\) has element type f32"):
        ops.reshape(P([2, 3]), ops.constant(np.array([6.0], np.float32)), False, name="r")
    with pytest.raises(ValidationError, match=r"the target shape has shape \[1,1\]; it must be 1D"):
        ops.reshape(P([2, 3]), np.array([[6]]), False)
    with pytest.raises(ValidationError, match=r"Reshape target shape \[1.5\] must be integers"):
        ops.reshape(P([2, 3]), [1.5], False)


# -- Squeeze / Unsqueeze ------------------------------------------------------------------------------

@pytest.mark.parametrize(("version", "data", "axes", "skip", "want"), [
    (1, [1, 3, 1], [0], False, "[3,1]"),
    (1, [1, 3, 1], [-1, 0], False, "[3]"),
    (1, [1, 3, 1], None, False, "[3]"),
    (1, [1, 3, 1], [], False, "[3]"),
    (1, [1, 3, 1], np.int64(2), False, "[1,3]"),
    (1, [1, 3, 1], [0, 0, -3], False, "[3,1]"),
    (1, [2, 3], [1], False, "[2,3]"),             # a named dim that is not 1 is copied as is
    (1, [2, -1, 3], [1], False, "[2,3]"),         # a dynamic dim that may be 1 is squeezed
    (1, [2, "1..4", 3], [1], False, "[2,3]"),
    (1, [2, "2..4", 3], [1], False, "[2,2..4,3]"),  # one that cannot be 1 stays
    (1, [2, -1, 1], None, False, "..."),          # without axes a dim that may be 1 makes the rank dynamic
    (1, [2, "2..4", 1], None, False, "[2,2..4]"),
    (1, [], [], False, "[]"),
    (1, "...", [0], False, "..."),
    (15, [2, -1, 1], [1, 2], True, "..."),
    (15, [2, -1, 1], [1, 2], False, "[2]"),
    (15, [2, 3, 1], [1, 2], True, "[2,3]"),
])
def test_squeeze_shapes(version: int, data: Any, axes: Any, skip: bool, want: str) -> None:
    inputs = [P(data).output(0)] + ([] if axes is None else [ops.constant(np.asarray(axes, np.int64)).output(0)])
    node = make_node("Squeeze", version, inputs, {"allow_axis_skip": skip} if version == 15 else {})
    assert shape(node) == want


def test_squeeze_builder_is_v15_as_in_openvino_opset16() -> None:
    node = ops.squeeze(P([1, 2]), [0], allow_axis_skip=True)
    assert (node.version, node.attrs, shape(node)) == (15, {"allow_axis_skip": True}, "[2]")
    assert ops.squeeze(P([1, 2])).get_input_size() == 1


def test_squeeze_axes_not_constant() -> None:
    assert shape(ops.squeeze(P([1, 3, 1]), P([1], "i64"))) == "[?,?]"
    assert shape(ops.squeeze(P([1, 3, 1]), P([2], "i64"))) == "..."


def test_squeeze_errors() -> None:
    with pytest.raises(ValidationError, match=r"Squeeze-15 node 's': squeeze axis 2 is out of range for rank 2"):
        ops.squeeze(P([1, 3]), [2], name="s")
    with pytest.raises(ValidationError, match=r"axes \(input 1\) has element type f32"):
        ops.squeeze(P([1, 3]), ops.constant(np.array([0.0], np.float32)))
    with pytest.raises(ValidationError, match=r"axes \(input 1\) has shape \[1,1\]; it must have rank 0 or 1"):
        ops.squeeze(P([1, 3]), np.array([[0]]))


@pytest.mark.parametrize(("data", "axes", "want"), [
    ([2, 3], [0], "[1,2,3]"),
    ([2, 3], [-1, 0], "[1,2,3,1]"),
    ([2, 3], np.int64(1), "[2,1,3]"),
    ([], np.int64(0), "[1]"),
    ([-1, "2..5"], [1], "[?,1,2..5]"),
    ([2, 3], [0, 0], "[1,2,3]"),      # a repeated axis counts once, as in OpenVINO
    ("...", [0], "..."),
])
def test_unsqueeze_shapes(data: Any, axes: Any, want: str) -> None:
    assert shape(ops.unsqueeze(P(data, "boolean"), axes)) == want


def test_unsqueeze_axes_not_constant_gives_dynamic_rank() -> None:
    assert shape(ops.unsqueeze(P([2, 3]), P([2], "i64"))) == "..."


def test_unsqueeze_errors() -> None:
    with pytest.raises(ValidationError, match=r"Unsqueeze-1 node 'u': unsqueeze axis 4 is out of range for rank 3"):
        ops.unsqueeze(P([2, 3]), [4], name="u")
    with pytest.raises(ValidationError, match=r"axes is empty"):
        ops.unsqueeze(P([2, 3]), [])


@given(st.lists(st.integers(1, 3), max_size=3), st.data())
@FAST
def test_squeeze_unsqueeze_match_numpy(dims: list[int], data: st.DataObject) -> None:
    x = np.zeros(dims)
    out_rank = len(dims) + 2
    axes = data.draw(st.lists(st.integers(-out_rank, out_rank - 1), min_size=2, max_size=2,
                              unique_by=lambda a: a % out_rank))
    want = np.expand_dims(x, tuple(a % out_rank for a in axes))
    assert ops.unsqueeze(P(dims), axes).get_output_partial_shape(0) == list(want.shape)
    ones = [i for i, d in enumerate(dims) if d == 1]
    chosen = data.draw(st.lists(st.sampled_from(ones), unique=True)) if ones else []
    assert ops.squeeze(P(dims), chosen or None).get_output_partial_shape(0) == list(
        np.squeeze(x, tuple(chosen) if chosen else None).shape)


# -- ShapeOf ------------------------------------------------------------------------------------------

def test_shape_of() -> None:
    v1 = make_node("ShapeOf", 1, [P([2, -1], "u8").output(0)])
    assert (v1.get_output_element_type(0), shape(v1), v1.attrs) == (Type.i64, "[2]", {})
    v3 = ops.shape_of(P("..."), "i32")
    assert (v3.get_output_element_type(0), shape(v3), v3.attrs) == (Type.i32, "[?]", {"output_type": Type.i32})
    assert shape(ops.shape_of(P([]))) == "[0]"
    with pytest.raises(ValidationError, match=r"ShapeOf-3 node 's': attribute 'output_type'=<Type: 'f32'> is not "
                                              r"allowed; allowed: <Type: 'i32'>, <Type: 'i64'>"):
        ops.shape_of(P([2]), "f32", name="s")


# -- Broadcast ----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("data", "target", "mapping", "mode", "want"), [
    ([3, 1], [2, 3, 4], None, "numpy", "[2,3,4]"),
    ([], [2, 3], None, "numpy", "[2,3]"),
    ([-1, 1], [2, 3, 4], None, "numpy", "[2,3,4]"),
    ([2, 3, 4], [1, 1, 4], None, "bidirectional", "[2,3,4]"),
    ([3, 1], [2, 1, 4], None, "bidirectional", "[2,3,4]"),
    (["1..3", 4], [5, 1, 4], None, "bidirectional", "[5,1..3,4]"),
    ([3], [2, 3, 4], [1], "explicit", "[2,3,4]"),
    ([1, 4], [2, 3, 4], [1, 2], "explicit", "[2,3,4]"),
    ("...", [2, 3], None, "numpy", "[2,3]"),
])
def test_broadcast_3_shapes(data: Any, target: list[int], mapping: Any, mode: str, want: str) -> None:
    node = ops.broadcast(P(data, "f16"), target, mapping, mode.upper())
    assert (node.version, shape(node), node.get_output_element_type(0), node.attrs) == (3, want, Type.f16,
                                                                                        {"mode": mode})


def test_broadcast_target_not_constant() -> None:
    assert shape(ops.broadcast(P([3, 1]), P([3], "i64"))) == "[?,?,?]"
    assert shape(ops.broadcast(P([3, 1]), P([3], "i64"), broadcast_spec="BIDIRECTIONAL")) == "[?,3,?]"
    assert shape(ops.broadcast(P([3, 1, 1, 5]), P([3], "i64"), broadcast_spec="BIDIRECTIONAL")) == "[3,?,?,5]"
    assert shape(ops.broadcast(P([1, 2]), P([1], "i64"), broadcast_spec="BIDIRECTIONAL")) == "[1,2]"
    assert shape(ops.broadcast(P([3, 1]), P([-1], "i64"))) == "..."


def test_broadcast_1_stores_explicit_as_none_as_openvino_writes_it() -> None:
    x, target = P([3]).output(0), ops.constant(np.array([2, 3], np.int64)).output(0)
    mapping = ops.constant(np.array([1], np.int64)).output(0)
    node = make_node("Broadcast", 1, [x, target, mapping], {"mode": "explicit"})
    assert (node.attrs, shape(node)) == ({"mode": "none"}, "[2,3]")
    assert make_node("Broadcast", 1, [x, target], {}).attrs == {"mode": "numpy"}
    with pytest.raises(ValidationError, match=r"Broadcast-1 node 'b': mode 'none' \(explicit\) needs the axes_mapping"):
        make_node("Broadcast", 1, [x, target], {"mode": "none"}, "b")


@pytest.mark.parametrize(("data", "target", "mapping", "mode", "message"), [
    ([3, 2], [2, 3, 4], None, "NUMPY", r"input shape \[3,2\] cannot broadcast to target_shape \[2, 3, 4\] \(numpy "
                                       r"rules\): input dim 1 is 2; allowed 1 or 4"),
    ([1, 3, 1], [3, 4], None, "NUMPY", r"input shape \[1,3,1\] has a larger rank than target_shape \[3, 4\]"),
    ([3, 2], [2, 3, 4], None, "BIDIRECTIONAL", r"cannot be broadcast \(numpy rules\)"),
    ([3, 2], [2, 3, 4], [1, 0], "EXPLICIT", r"axes_mapping \[1, 0\] must be strictly increasing"),
    ([3], [2, 3, 4], [2], "EXPLICIT", r"input dim 0 is 3 but target_shape\[2\] is 4"),
    ([3], [2, 3, 4], [3], "EXPLICIT", r"axes_mapping \[3\] value 3 is out of range for target rank 3"),
    ([3, 4], [2, 3, 4], [1], "EXPLICIT", r"axes_mapping \[1\] has 1 value\(s\); the input \[3,4\] has rank 2"),
    ([3], [2, 3], [1], "NUMPY", r"the axes_mapping input is only allowed in mode 'explicit', not 'numpy'"),
    ([3], [2, 3], None, "EXPLICIT", r"mode 'explicit' needs the axes_mapping input"),
    ([3], [-1, 3], None, "NUMPY", r"target_shape \[-1, 3\] has negative value\(s\) \[-1\]"),
    ([3], [2, 3], None, "PDPD", r"attribute 'mode'='pdpd' is not allowed; allowed: 'numpy', 'explicit', 'bidir"),
])
def test_broadcast_errors(data: list[int], target: list[int], mapping: Any, mode: str, message: str) -> None:
    with pytest.raises(ValidationError, match=r"^Broadcast-3 node 'b': .*" + message):
        ops.broadcast(P(data), target, mapping, mode, name="b")


# -- Transpose ----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("data", "order", "want"), [
    ([2, 3, 4], [2, 0, 1], "[4,2,3]"),
    ([2, 3, 4], [], "[4,3,2]"),
    ([], [], "[]"),
    ([-1, "1..3", 4], [1, 2, 0], "[1..3,4,?]"),
    ("...", [1, 0], "[?,?]"),
    ("...", [], "..."),
])
def test_transpose_shapes(data: Any, order: list[int], want: str) -> None:
    assert shape(ops.transpose(P(data, "i64"), np.array(order, np.int32))) == want


def test_transpose_order_not_constant() -> None:
    assert shape(ops.transpose(P([2, 3, 4]), P([3], "i64"))) == "[?,?,?]"
    assert shape(ops.transpose(P("..."), P([2], "i64"))) == "[?,?]"


@pytest.mark.parametrize(("order", "message"), [
    ([-1, 0, 1], r"input_order \[-1, 0, 1\] is not a permutation of 0..2"),
    ([0, 0, 1], r"input_order \[0, 0, 1\] is not a permutation"),
    ([1, 0], r"input_order has 2 value\(s\); the input \[2,3,4\] has rank 3"),
])
def test_transpose_errors(order: list[int], message: str) -> None:
    with pytest.raises(ValidationError, match=r"^Transpose-1 node 't': " + message):
        ops.transpose(P([2, 3, 4]), order, name="t")


# -- Concat -------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("shapes", "axis", "want"), [
    ([[2, 3], [2, 4]], -1, "[2,7]"),
    ([[2, 3], [5, 3], [1, 3]], 0, "[8,3]"),
    ([[2, 3]], 1, "[2,3]"),
    ([[-1, 3], [2, "1..4"], ["1..3", -1]], 0, "[3..,3]"),
    ([[-1, 3], [2, "1..4"], ["1..3", -1]], 1, "[2,4..]"),
    ([[2, "1..3"], ["2..6", 2]], 1, "[2,3..5]"),
    (["...", [2, 4]], 0, "[2..,4]"),
    ([[2, 3], [2, 4]], 1, "[2,7]"),
    (["...", "..."], 0, "..."),
])
def test_concat_shapes(shapes: list[Any], axis: int, want: str) -> None:
    node = ops.concat([P(s, "u8") for s in shapes], axis)
    assert (shape(node), node.attrs, node.get_output_element_type(0)) == (want, {"axis": axis}, Type.u8)


@pytest.mark.parametrize(("shapes", "types", "axis", "message"), [
    ([[2, 3], [2]], ["f32", "f32"], 0, r"inputs must have one rank; got shapes \['\[2,3\]', '\[2\]'\]"),
    ([[2, 3], [2, 4]], ["f32", "f32"], 0, r"input shapes \['\[2,3\]', '\[2,4\]'\] differ in dim 1, which is not the "
                                          r"concat axis 0"),
    ([[2, 3], [2, 3]], ["f32", "i32"], 0, r"inputs must share one element type; got \['f32', 'i32'\]"),
    ([[], []], ["f32", "f32"], 0, r"inputs are scalars"),
    ([[2, 3], [2, 3]], ["f32", "f32"], 2, r"axis 2 is out of range for rank 2; allowed \[-2, 1\]"),
])
def test_concat_errors(shapes: list[Any], types: list[str], axis: int, message: str) -> None:
    with pytest.raises(ValidationError, match=r"^Concat-1 node 'c': .*" + message):
        ops.concat([P(s, t) for s, t in zip(shapes, types, strict=True)], axis, name="c")


# -- Split / VariadicSplit ------------------------------------------------------------------------------

def test_split_outputs() -> None:
    node = ops.split(P([2, 6, 4]), scalar(-2), 3)
    assert [str(o.get_partial_shape()) for o in node.outputs()] == ["[2,2,4]"] * 3
    assert node.attrs == {"num_splits": 3}
    bounded = ops.split(P([2, "4..9", 4]), scalar(1, np.int32), 4)
    assert [shape(bounded, i) for i in range(4)] == ["[2,1..2,4]"] * 4
    assert [shape(ops.split(P([2, 6]), P([], "i64"), 2), i) for i in range(2)] == ["[?,?]"] * 2


@pytest.mark.parametrize(("axis", "n", "message"), [
    (scalar(1), 4, r"data dim 1 of \[2,6,4\] is 6; it does not divide into num_splits=4 equal parts"),
    (scalar(1), 0, r"attribute num_splits=0 must be in \[1, 65536\]"),
    (ops.constant(np.array([1], np.int64)), 2, r"axis has shape \[1\]; it must be a scalar"),
    (scalar(3), 2, r"axis 3 is out of range for rank 3"),
])
def test_split_errors(axis: Node, n: int, message: str) -> None:
    with pytest.raises(ValidationError, match=r"^Split-1 node 's': " + message):
        ops.split(P([2, 6, 4]), axis, n, name="s")


@pytest.mark.parametrize(("data", "axis", "lengths", "want"), [
    ([2, 6, 4], 1, [1, -1, 2], ["[2,1,4]", "[2,3,4]", "[2,2,4]"]),
    ([2, 6, 4], -1, [4], ["[2,6,4]"]),
    ([2, 6, 4], [1], [0, 6], ["[2,0,4]", "[2,6,4]"]),
    ([2, -1, 4], 1, [1, -1, 2], ["[2,1,4]", "[2,?,4]", "[2,2,4]"]),
    ([2, "4..9", 4], 1, [1, -1], ["[2,1,4]", "[2,3..8,4]"]),
])
def test_variadic_split_shapes(data: Any, axis: Any, lengths: list[int], want: list[str]) -> None:
    node = ops.variadic_split(P(data), np.asarray(axis, np.int64), lengths)
    assert [str(o.get_partial_shape()) for o in node.outputs()] == want and node.attrs == {}


def test_variadic_split_inputs_not_constant() -> None:
    node = ops.variadic_split(P([2, 6, 4]), scalar(1), P([3], "i64"))
    assert [shape(node, i) for i in range(3)] == ["[2,?,4]"] * 3
    node = ops.variadic_split(P([2, 6, 4]), P([], "i32"), [1, -1])
    assert [shape(node, i) for i in range(2)] == ["[?,?,?]"] * 2


@pytest.mark.parametrize(("lengths", "message"), [
    ([1, 2], r"split_lengths \[1, 2\] add up to 3; the split dim is 6"),
    ([-1, -1], r"split_lengths \[-1, -1\] has more than one -1"),
    ([7, -1], r"split_lengths \[7, -1\] add up to 7, more than the split dim 6"),
    ([-2, 8], r"split_lengths \[-2, 8\] has value\(s\) \[-2\]"),
])
def test_variadic_split_errors(lengths: list[int], message: str) -> None:
    with pytest.raises(ValidationError, match=r"^VariadicSplit-1 node 'v': " + message):
        ops.variadic_split(P([2, 6, 4]), scalar(1), lengths, name="v")
    with pytest.raises(ValidationError, match=r"split_lengths has shape \[\?\]; its length must be static"):
        ops.variadic_split(P([2, 6, 4]), scalar(1), P([-1], "i64"))


# -- Gather -------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("version", "data", "indices", "axis", "batch_dims", "want"), [
    (8, [2, 3, 4], [[1, 2]], -1, 0, "[2,3,1,2]"),
    (8, [2, 3, 4], np.int64(1), 1, 0, "[2,4]"),
    (8, [2, 3, 4], [[0, 1], [1, 2]], 1, 1, "[2,2,4]"),
    (8, [2, 3, 4], [[0, 1], [1, 2]], 1, -1, "[2,2,4]"),
    (8, [2, 3, 4], [[0, -1, 2], [1, 2, 3]], 2, 2, "[2,3]"),
    (7, [2, 3, 4], [[0, 1], [1, 2]], 2, 1, "[2,3,2]"),
    (1, [2, 3, 4], [0, 1], -1, 0, "[2,3,2]"),
    (1, [5], [[0, 1, 2]], 0, 0, "[1,3]"),
])
def test_gather_shapes(version: int, data: list[int], indices: Any, axis: int, batch_dims: int, want: str) -> None:
    ins = [P(data, "boolean").output(0), ops.constant(np.asarray(indices, np.int32)).output(0),
           scalar(axis).output(0)]
    node = make_node("Gather", version, ins, {} if version == 1 else {"batch_dims": batch_dims})
    assert shape(node) == want and node.get_output_element_type(0) == Type.boolean


def test_gather_dynamic() -> None:
    node = ops.gather(P([-1, "2..5", 4]), P(["1..3", -1], "i64"), scalar(1), 1)
    assert (shape(node), node.attrs) == ("[1..3,?,4]", {"batch_dims": 1})
    assert shape(ops.gather(P([2, 3, 4]), [0, 1], P([], "i64"))) == "[?,?,?]"
    assert shape(ops.gather(P([2, 3, 4]), [0, 1], ops.constant(np.array([1], np.int64)))) == "[2,2,4]"
    assert shape(ops.gather(P("..."), [0, 1], scalar(0))) == "..."


def test_gather_from_shape_of_folds_nothing_but_keeps_types() -> None:
    node = ops.gather(ops.shape_of(P([2, 3])), [1], scalar(0))
    assert (shape(node), node.get_output_element_type(0)) == ("[1]", Type.i64)


@pytest.mark.parametrize(("data", "indices", "axis", "batch_dims", "message"), [
    ([2, 3, 4], [[0, 1], [1, 2]], 0, 1, r"batch_dims=1 \(normalized\) must not exceed axis=0"),
    ([2, 3, 4], [[0, 1], [1, 2], [0, 0]], 1, 1, r"data \[2,3,4\] and indices \[3,2\] differ in batch dim 0"),
    ([2, 3, 4], [0, 1], 2, 2, r"batch_dims=2 is out of range for indices \[2\]; allowed \[-1, 1\]"),
    ([2, 3, 4], [0, 1], 3, 0, r"axis 3 is out of range for rank 3; allowed \[-3, 2\]"),
])
def test_gather_errors(data: list[int], indices: Any, axis: int, batch_dims: int, message: str) -> None:
    with pytest.raises(ValidationError, match=r"^Gather-8 node 'g': " + message):
        ops.gather(P(data), indices, scalar(axis), batch_dims, name="g")


def test_gather_input_errors() -> None:
    with pytest.raises(ValidationError, match=r"Gather-8 node 'g': indices \(input 1\) has element type f32"):
        ops.gather(P([3]), ops.constant(np.array([1.0], np.float32)), scalar(0), name="g")
    with pytest.raises(ValidationError, match=r"data is a scalar; Gather needs data of rank >= 1"):
        ops.gather(P([]), [0], scalar(0))
    with pytest.raises(ValidationError, match=r"axis has shape \[2\]; it must be a scalar or hold one value"):
        ops.gather(P([3]), [0], [0, 0])


# -- StridedSlice -------------------------------------------------------------------------------------

def _ss(data: Any, begin: list[int], end: list[int], strides: list[int] | None, **masks: list[int]) -> Node:
    masks.setdefault("begin_mask", [0] * len(begin))
    masks.setdefault("end_mask", [0] * len(begin))
    return ops.strided_slice(P(data), begin, end, strides, **masks)


@pytest.mark.parametrize(("data", "begin", "end", "strides", "masks", "want"), [
    ([5, 6], [1, 2], [4, 6], [1, 2], {}, "[3,2]"),
    ([5, 6], [4, -1], [0, 0], [-1, -2], {"end_mask": [0, 1]}, "[4,3]"),
    ([2, 3, 4, 5], [0, 1], [0, 3], [1, 1], {"ellipsis_mask": [1, 0]}, "[2,3,4,2]"),
    ([2, 3, 4, 5], [0, 0, 1], [0, 0, 3], [1, 1, 1], {"new_axis_mask": [1, 0, 0], "ellipsis_mask": [0, 1]},
     "[1,2,3,4,2]"),
    ([2, 3], [0, 0, 0], [1, 1, 2], [1, 1, 1], {"new_axis_mask": [0, 1, 0]}, "[1,1,2]"),
    ([2, 3], [1, -1], [2, 3], [1, 1], {"shrink_axis_mask": [1, 1]}, "[]"),
    ([2, 3, 4], [1, 1, 1], [2, 2, 2], [1, 1, 1], {"begin_mask": [1], "end_mask": [0]}, "[2,1,1]"),
    ([2, 3], [0, 0], [1, 1], [1, 1], {"new_axis_mask": [1, 0], "shrink_axis_mask": [1, 0]}, "[1,1,3]"),
    ([2, 3, 4], [0, 1], [1, 2], [1, 1], {"shrink_axis_mask": [1, 1], "ellipsis_mask": [1, 0]}, "[2,3]"),
    ([5], [7], [9], [1], {}, "[0]"),
    ([5], [1], [3], None, {}, "[2]"),
    ([-1, 6], [1, 2], [4, 6], [1, 2], {}, "[0..3,2]"),
    ([-1, 6], [0, 2], [0, 6], [1, 2], {"begin_mask": [1, 0], "end_mask": [1, 0]}, "[?,2]"),
    ([-1, 6], [0], [0], [2], {"begin_mask": [1], "end_mask": [1]}, "[?,6]"),
    ([-1, 6], [-3], [0], [1], {"end_mask": [1]}, "[0..3,6]"),
    ([-1, 6], [1], [-1], [1], {}, "[?,6]"),
    (["2..8", 6], [1], [4], [1], {}, "[1..3,6]"),
    (["2..8", 6], [-3], [5], [1], {}, "[0..3,6]"),
    (["2..8", 6], [1], [2], [1], {"shrink_axis_mask": [1]}, "[6]"),
    ("...", [1], [2], [1], {}, "..."),
])
def test_strided_slice_shapes(data: Any, begin: list[int], end: list[int], strides: list[int] | None,
                              masks: dict[str, list[int]], want: str) -> None:
    assert shape(_ss(data, begin, end, strides, **masks)) == want


def test_strided_slice_inputs_not_constant() -> None:
    param = P([2], "i64")
    assert shape(ops.strided_slice(P([5, 6, 7]), param, [4, 6], [1, 1], [0, 0], [0, 0])) == "[0..4,0..6,7]"
    assert shape(ops.strided_slice(P([5, 6, 7]), param, [4, 6], [1, 1], [0, 0], [0, 0], [0, 0], [1, 0])) == "[0..6,7]"
    assert shape(ops.strided_slice(P([5, 6, 7]), param, [4, 6], [1, 1], [0, 0], [0, 0], [1, 0])) == "[1,0..5,6,7]"
    assert shape(ops.strided_slice(P([5, 6, 7]), param, [4, 6], [1, 1], [1, 1], [1, 1])) == "[5,6,7]"
    assert shape(ops.strided_slice(P([5, 6]), [1, 1], [4, 6], P([2], "i64"), [0, 0], [0, 0])) == "[0..3,0..5]"
    unknown = P([-1], "i64")
    assert shape(ops.strided_slice(P([5, 6, 7]), unknown, unknown, unknown, [0], [0])) == "..."


@st.composite
def _slice_spec(draw: Any) -> tuple[list[int], list[Any], dict[str, list[int]]]:
    dims = draw(st.lists(st.integers(1, 6), min_size=1, max_size=4))
    rows: list[tuple[Any, ...]] = []
    consumed, ellipsis = 0, False
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["range", "range", "new", "shrink", "ellipsis"]))
        if kind == "ellipsis" and not ellipsis:
            ellipsis = True
            rows.append((0, 0, 1, 0, 0, 0, 0, 1))
        elif kind == "new":
            rows.append((0, 0, 1, 0, 0, 1, 0, 0))
        elif consumed < len(dims) and kind != "ellipsis":
            consumed += 1
            n = dims[consumed - 1] if not ellipsis else None
            b, e = draw(st.integers(-8, 8)), draw(st.integers(-8, 8))
            if kind == "shrink" and n is not None:
                rows.append((draw(st.integers(-n, n - 1)), 0, 1, 0, 0, 0, 1, 0))
            else:
                rows.append((b, e, draw(st.sampled_from([1, 2, 3, -1, -2])), int(draw(st.booleans())),
                             int(draw(st.booleans())), 0, 0, 0))
    cols = [list(c) for c in zip(*rows, strict=True)]
    names = ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask")
    return dims, cols[:3], dict(zip(names, cols[3:], strict=True))


@given(_slice_spec())
@FAST
def test_strided_slice_static_shape_matches_numpy(spec: tuple[list[int], list[Any], dict[str, list[int]]]) -> None:
    dims, (begin, end, strides), masks = spec
    index: list[Any] = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides, strict=True)):
        if masks["ellipsis_mask"][i]:
            index.append(Ellipsis)
        elif masks["new_axis_mask"][i]:
            index.append(None)
        elif masks["shrink_axis_mask"][i]:
            index.append(b)
        else:
            index.append(slice(None if masks["begin_mask"][i] else b, None if masks["end_mask"][i] else e, s))
    try:
        want = np.zeros(dims)[tuple(index)].shape
    except IndexError:  # a shrink index out of range after an ellipsis moved it
        return
    node = ops.strided_slice(P(dims), begin, end, strides, **masks)
    assert node.get_output_partial_shape(0) == list(want)


@pytest.mark.parametrize(("begin", "end", "strides", "masks", "message"), [
    ([0], [1], [0], {}, r"strides \[0\] has a zero; strides must be non-zero"),
    ([0, 0], [1], [1, 1], {}, r"begin, end and strides must have the same length; got \[2, 1, 2\]"),
    ([0, 0], [1, 1], [1, 1], {"begin_mask": [2, 0]}, r"begin_mask \[2, 0\] must hold only 0 and 1"),
    ([0, 0], [1, 1], [1, 1], {"ellipsis_mask": [1, 1]}, r"ellipsis_mask \[1, 1\] sets more than one bit"),
    ([0], [1], [1], {"end_mask": [0, 1]}, r"end_mask \[0, 1\] sets a bit past the 1 begin/end value\(s\)"),
    ([0, 0, 0], [1, 1, 1], [1, 1, 1], {}, r"the slice spec addresses 3 input dim\(s\); data \[2,3\] has rank 2"),
])
def test_strided_slice_errors(begin: list[int], end: list[int], strides: list[int], masks: dict[str, list[int]],
                              message: str) -> None:
    masks = {"begin_mask": [0] * len(begin), "end_mask": [0] * len(begin)} | masks
    with pytest.raises(ValidationError, match=r"^StridedSlice-1 node 's': " + message):
        ops.strided_slice(P([2, 3]), begin, end, strides, name="s", **masks)


def test_strided_slice_keeps_mask_attributes_as_given() -> None:
    node = ops.strided_slice(P([4, 5]), [1], [3], [1], [0], [1])
    assert node.attrs == {"begin_mask": [0], "end_mask": [1], "new_axis_mask": [], "shrink_axis_mask": [],
                          "ellipsis_mask": []}


# -- ReadValue / Assign -------------------------------------------------------------------------------

def test_read_value_6() -> None:
    rv = ops.read_value(P([2, 3]), "v", "f32", [-1, 3])
    assert (shape(rv), rv.get_output_element_type(0)) == ("[?,3]", Type.f32)
    assert rv.attrs == {"variable_id": "v", "variable_type": Type.f32, "variable_shape": PartialShape([-1, 3])}
    bare = ops.read_value(None, "w", Type.i32, [2, "1..4"])
    assert (bare.get_input_size(), shape(bare), bare.get_output_element_type(0)) == (0, "[2,1..4]", Type.i32)
    defaulted = ops.read_value(P([2], "f16"), "u")
    assert defaulted.attrs["variable_type"] == Type.f16 and defaulted.attrs["variable_shape"] == [2]


@pytest.mark.parametrize(("init", "vtype", "vshape", "message"), [
    ([2, 4], "f32", [-1, 3], r"the initializing input has shape \[2,4\], which variable_shape \[\?,3\] does not allow"),
    ([-1, 3], "f32", [2, 3], r"the initializing input has shape \[\?,3\], which variable_shape \[2,3\]"),
    ([2, 3], "f16", [2, 3], r"the initializing input has element type f32; variable_type is f16"),
])
def test_read_value_6_errors(init: list[Any], vtype: str, vshape: list[Any], message: str) -> None:
    with pytest.raises(ValidationError, match=r"^ReadValue-6 node 'rv': " + message):
        ops.read_value(P(init), "v", vtype, vshape, name="rv")
    with pytest.raises(ValidationError, match=r"ReadValue-6 node 'rv': variable_type is required"):
        ops.read_value(None, "v", name="rv")
    with pytest.raises(ValidationError, match=r"ReadValue-6 node 'rv': attribute variable_id is empty"):
        ops.read_value(P(init), "", name="rv")


def _loop(version: int, et: str = "f32") -> tuple[Model, Node, Node]:
    x = P([2, 3], et, name="x")
    if version == 6:
        rv = ops.read_value(ops.constant(np.zeros([2, 3], Type.f32.to_dtype() if et == "f32" else et)), "state")
    else:
        rv = make_node("ReadValue", 3, [P([2, 3], et, name="init").output(0)], {"variable_id": "state"})
    y = ops.add(rv, x)
    sink = make_node("Assign", version, [y.output(0)], {"variable_id": "state"}, "a")
    params = [p for p in (x, rv.input_value(0).node) if p.type_name == "Parameter"]
    return Model([y], [sink], params, "loop"), rv, sink


@pytest.mark.parametrize("version", [3, 6])
def test_state_loop_model(version: int) -> None:
    model, rv, sink = _loop(version)
    assert model.get_sinks() == [sink] and sink.attrs == {"variable_id": "state"}
    assert model.get_variables() == ["state"]
    assert variable_infos(model) == [VariableInfo("state", Type.f32, PartialShape([2, 3]))]
    check_variables(model)
    assert shape(sink) == "[2,3]" and rv.attrs["variable_id"] == "state"


def test_assign_errors_name_the_node() -> None:
    with pytest.raises(ValidationError, match=r"^Assign-3 node 'a': no ReadValue of variable 'v' feeds this Assign"):
        make_node("Assign", 3, [P([2]).output(0)], {"variable_id": "v"}, "a")
    rv = ops.read_value(ops.constant(np.zeros([2, 3], np.float32)), "v")
    with pytest.raises(ValidationError, match=r"^Assign-6 node 'a': the new value has element type f16; variable "
                                              r"'v' has type f32"):
        ops.assign(ops.convert(rv, "f16"), "v", name="a")
    with pytest.raises(ValidationError, match=r"^Assign-6 node 'a': the new value has shape \[6\]; variable 'v' "
                                              r"has shape \[2,3\]"):
        ops.assign(ops.reshape(rv, [6], False), rv, name="a")
    with pytest.raises(ValidationError, match=r"Assign-6 node 'a': Parameter-1 node '.*' is not a ReadValue"):
        ops.assign(rv, P([1]), name="a")


def test_check_variables_sees_an_assign_the_node_could_not_check() -> None:
    rv = ops.read_value(ops.constant(np.zeros([2], np.float32)), "v")
    other = P([3], name="other")
    sink = ops.assign(other, "v", name="a")  # not downstream of the ReadValue: unchecked at build
    model = Model([rv], [sink], [other], "m")
    assert model.get_variables() == ["v"]
    with pytest.raises(ValidationError, match=r"Assign-6 node 'a': the new value has shape \[3\]; variable 'v'"):
        check_variables(model)
    clash = ops.read_value(None, "v", "f32", [5], name="clash")
    with pytest.raises(ValidationError, match=r"ReadValue-6 node 'clash': variable 'v' is declared as f32 \[5\]"):
        check_variables(Model([rv, clash], [], "m2"))


# -- against OpenVINO: attribute spellings and inferred shapes ---------------------------------------

def _models() -> list[tuple[str, Callable[[], Model]]]:
    def m(*outs: Any) -> Model:
        return Model([o for o in outs], name="m")

    x = lambda s="2,3,4", t="f32", n="x": P(s, t, name=n)  # noqa: E731 - a table of tiny builders
    return [
        ("reshape", lambda: m(ops.reshape(x(), [0, -1], True, name="n"))),
        ("reshape dynamic", lambda: m(ops.reshape(x("?,2..6,4"), [-1, 4], False, name="n"))),
        ("squeeze15", lambda: m(ops.squeeze(x("1,3,1"), [0], True, name="n"))),
        ("squeeze1", lambda: m(make_node("Squeeze", 1, [x("1,?,1").output(0),
                                                       ops.constant(np.array([0, 1])).output(0)], {}, "n"))),
        ("unsqueeze", lambda: m(ops.unsqueeze(x("?,3"), [-1, 0], name="n"))),
        ("shape_of3", lambda: m(ops.shape_of(x("?,3"), "i32", name="n"))),
        ("shape_of1", lambda: m(make_node("ShapeOf", 1, [x().output(0)], {}, "n"))),
        ("broadcast3", lambda: m(ops.broadcast(x("3,1"), [2, 3, 4], None, "BIDIRECTIONAL", name="n"))),
        ("broadcast3 explicit", lambda: m(ops.broadcast(x("3"), [2, 3, 4], [1], "EXPLICIT", name="n"))),
        ("broadcast1 explicit", lambda: m(make_node("Broadcast", 1, [x("3").output(0),
                                                                     ops.constant(np.array([2, 3])).output(0),
                                                                     ops.constant(np.array([1])).output(0)],
                                                    {"mode": "explicit"}, "n"))),
        ("transpose", lambda: m(ops.transpose(x("?,1..3,4"), [2, 0, 1], name="n"))),
        ("concat", lambda: m(ops.concat([x("?,3", n="a"), x("2,1..4", n="b")], -2, name="n"))),
        ("split", lambda: m(*ops.split(x("2,4..9,4"), scalar(1), 2, name="n").outputs())),
        ("variadic_split", lambda: m(*ops.variadic_split(x("2,?,4"), scalar(1), [1, -1], name="n").outputs())),
        ("gather8", lambda: m(ops.gather(x(), [[0, -1], [1, 2]], scalar(1), 1, name="n"))),
        ("gather7", lambda: m(make_node("Gather", 7, [x().output(0), ops.constant(np.array([[0], [1]])).output(0),
                                                      scalar(2).output(0)], {"batch_dims": 1}, "n"))),
        ("gather1", lambda: m(make_node("Gather", 1, [x().output(0), ops.constant(np.array([0])).output(0),
                                                      scalar(-1).output(0)], {}, "n"))),
        ("strided_slice", lambda: m(ops.strided_slice(x("2,?,4,5"), [0, 1, 0], [1, 3, 2], [1, 1, -1], [0, 0, 1],
                                                      [0, 0, 0], [0, 0, 0], [1, 0, 0], [0, 0, 0], name="n"))),
        ("strided_slice ellipsis", lambda: m(ops.strided_slice(x("2,3,4,5"), [0, 0, 1], [0, 0, 3], [1, 1, 1],
                                                               [0, 0, 0], [0, 0, 0], [1, 0, 0], [0, 0, 0],
                                                               [0, 1, 0], name="n"))),
    ]


MODELS = _models()


@pytest.mark.openvino
@pytest.mark.parametrize(("what", "build"), MODELS, ids=[w for w, _ in MODELS])
def test_attributes_and_shapes_agree_with_openvino(what: str, build: Callable[[], Model], tmp_path: Any) -> None:
    bridge = pytest.importorskip("_ovbridge")
    model = build()
    _, made = bridge.to_openvino(model)
    assert bridge.node_shapes_agree(model, made) == []
    node = next(n for n in model.get_ordered_ops() if n.friendly_name == "n")
    written = bridge.ir_attrs(model, tmp_path)["n"]
    assert {k: bridge.ir_string(v) for k, v in node.attrs.items()} == written


@pytest.mark.openvino
@pytest.mark.parametrize("version", [3, 6])
def test_state_attributes_agree_with_openvino(version: int, tmp_path: Any) -> None:
    bridge = pytest.importorskip("_ovbridge")
    model, rv, sink = _loop(version)
    rv.set_friendly_name("rv")
    written = bridge.ir_attrs(model, tmp_path)
    assert {k: bridge.ir_string(v) for k, v in rv.attrs.items()} == written["rv"]
    assert {k: bridge.ir_string(v) for k, v in sink.attrs.items()} == written["a"]


def test_builders_are_exported_from_the_opset_package() -> None:
    for name in ("reshape", "squeeze", "unsqueeze", "shape_of", "broadcast", "transpose", "concat", "split",
                 "variadic_split", "gather", "strided_slice", "read_value", "assign"):
        assert name in ops.__all__ and callable(getattr(ops, name))


def test_dimension_helpers_used_by_slicing_are_intervals() -> None:
    assert Dimension(2, 8) // 4 == Dimension(1, 2)


def test_split_refuses_a_hostile_number_of_outputs() -> None:
    data = ops.parameter([-1, 4], "f32", name="d")
    with pytest.raises(ValidationError, match=r"Split-1 node.*num_splits=1000000000 must be in \[1, 65536\]"):
        ops.split(data, 0, 10**9)
