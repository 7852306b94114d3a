"""Tests of the shape ops (OpenVINO's op-spec folder "shape"): Reshape-1, Squeeze-1/15, Unsqueeze-1 and
ShapeOf-1/3 — builder inference and errors (as OpenVINO writes and infers them), REFERENCE kernel
numerics against literal values or independent loop formulas (transcriptions of the specs'
pseudo-code), and the case strategies.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _op_helpers import P
from _op_helpers import out as shape
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ovconform import Model, Type
from ovconform import opset as ops
from ovconform.errors import ValidationError
from ovconform.ir import make_node

FAST = settings(max_examples=60, database=None, deadline=None, suppress_health_check=list(HealthCheck))


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
