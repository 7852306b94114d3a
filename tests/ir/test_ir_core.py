"""Element types, dimensions, partial shapes, nodes and Model."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ovconform import Dimension, Model, PartialShape, Type
from ovconform import opset as ops
from ovconform.errors import NotFoundError, ValidationError
from ovconform.ir import as_type, bf16_to_f32, f32_to_bf16, make_node

# -- element types --------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "dtype"), [
    ("boolean", np.bool_), ("f16", np.float16), ("f32", np.float32), ("f64", np.float64),
    ("bf16", np.uint16), ("i8", np.int8), ("i16", np.int16), ("i32", np.int32), ("i64", np.int64),
    ("u8", np.uint8), ("u16", np.uint16), ("u32", np.uint32), ("u64", np.uint64)])
def test_type_maps_to_numpy(name: str, dtype: type) -> None:
    t = as_type(name)
    assert t.get_type_name() == name
    assert t.to_dtype() == np.dtype(dtype)
    assert as_type(t.ir_precision) is t
    if name not in ("bf16", "u16"):
        assert as_type(np.dtype(dtype)) is t


def test_unknown_type_lists_known_ones() -> None:
    with pytest.raises(ValidationError, match=r"'f31' is not known; known types: .*f32"):
        as_type("f31")


def test_bf16_round_trip_and_rounding() -> None:
    x = np.array([1.0, -2.5, 3.140625, 2.0**100, np.inf, -np.inf], dtype=np.float32)
    assert np.array_equal(bf16_to_f32(f32_to_bf16(x)), x)  # all exactly representable
    # 1 + 2^-8 is halfway between bf16 neighbours 1 and 1+2^-7: ties to even → 1.0
    assert bf16_to_f32(f32_to_bf16(np.float32(1 + 2**-8)))[()] == 1.0
    assert bf16_to_f32(f32_to_bf16(np.float32(1 + 3 * 2**-9)))[()] == np.float32(1 + 2**-7)
    assert np.isnan(bf16_to_f32(f32_to_bf16(np.array([np.nan], np.float32))))[0]
    assert f32_to_bf16(np.float32(2.0)).shape == ()


# -- dimensions and shapes --------------------------------------------------------------------------

def test_dimension_kinds() -> None:
    assert Dimension(3).is_static and Dimension(3).get_length() == 3
    assert str(Dimension()) == "?" and str(Dimension(-1)) == "?"
    b = Dimension(1, 8)
    assert b.is_dynamic and b.is_bounded() and str(b) == "1..8"
    assert Dimension.parse("1..8") == b and Dimension.parse("?") == Dimension()
    with pytest.raises(ValidationError, match="not static"):
        b.get_length()
    with pytest.raises(ValidationError, match="not an interval"):
        Dimension(5, 2)
    with pytest.raises(ValidationError, match="not an integer"):
        Dimension.parse("x")


def test_dimension_merge_and_broadcast() -> None:
    assert Dimension(1, 8).merge(Dimension(4, 10)) == Dimension(4, 8)
    assert Dimension(1, 3).merge(5) is None
    assert Dimension(1).broadcast_merge(Dimension(1, 8)) == Dimension(1, 8)
    assert Dimension(4).broadcast_merge(Dimension()) == Dimension(4)
    assert Dimension(4).broadcast_merge(Dimension(5)) is None


dims = st.one_of(st.integers(0, 6).map(Dimension), st.just(Dimension()),
                 st.tuples(st.integers(0, 4), st.integers(4, 9)).map(lambda t: Dimension(*t)))


@given(dims, dims, st.integers(0, 10))
def test_merge_is_the_interval_intersection(a: Dimension, b: Dimension, v: int) -> None:
    m = a.merge(b)
    assert (m is not None and m.contains(v)) == (a.contains(v) and b.contains(v)) or m is None
    assert a.compatible(b) == (m is not None)


def test_partial_shape() -> None:
    s = PartialShape([-1, 3, "1..8"])
    assert s.rank == 3 and s.is_dynamic and str(s) == "[?,3,1..8]"
    assert s.to_ir_string() == "?,3,1..8"
    assert PartialShape("?,3,1..8") == s
    assert s.fits((5, 3, 8)) and not s.fits((5, 3, 9)) and not s.fits((5, 3))
    assert PartialShape([2, 3, 4]).refines(s) and not PartialShape([2, 3, 9]).refines(s) and PartialShape([2, 3, 4]).refines(PartialShape([2, -1, 4]))
    dyn = PartialShape.dynamic()
    assert not dyn.has_rank() and dyn.rank.is_dynamic and dyn.compatible([1, 2])
    assert PartialShape([2, 3]).to_shape() == (2, 3)
    with pytest.raises(ValidationError, match="not static"):
        s.to_shape()


# -- nodes and models ---------------------------------------------------------------------------------

def _model() -> tuple[Model, object]:
    x = ops.parameter([2, 3], "f32", name="x")
    y = ops.parameter([3], "f32", name="y")
    a = ops.add(x, y, name="add")
    r = ops.relu(a, name="relu")
    r.output(0).set_names({"out"})
    return Model([r], [x, y], "m"), a


def test_model_structure_and_lookup() -> None:
    m, a = _model()
    order = [n.friendly_name for n in m.get_ordered_ops()]
    assert order[:2] == ["x", "y"] and order.index("add") < order.index("relu")
    assert m.input("y").get_partial_shape() == PartialShape([3])
    assert m.output("out").get_element_type() == Type.f32
    assert m.output().get_shape() == (2, 3)
    with pytest.raises(NotFoundError, match=r"no input named 'z'; input names: \['x', 'y'\]"):
        m.input("z")
    assert [i.get_node().friendly_name for i in a.output(0).get_target_inputs()] == ["relu"]


def test_clone_is_deep() -> None:
    m, _ = _model()
    c = m.clone()
    cn = {n.friendly_name: n for n in c.get_ordered_ops()}
    cn["relu"].rt_info["fused"] = "yes"
    cn["add"].attrs["auto_broadcast"] = "none"
    cn["relu"].set_friendly_name("changed")
    c.rt_info["k"] = 1
    on = {n.friendly_name: n for n in m.get_ordered_ops()}
    assert "fused" not in on["relu"].rt_info and on["add"].attrs["auto_broadcast"] == "numpy"
    assert "changed" not in on and m.rt_info == {}
    assert [n.friendly_name for n in c.get_ordered_ops()] != [n.friendly_name for n in m.get_ordered_ops()]


def test_undeclared_parameter_is_named() -> None:
    x = ops.parameter([2], "f32", name="x")
    y = ops.parameter([2], "f32", name="hidden")
    with pytest.raises(ValidationError, match="Parameter-1 node 'hidden' is used .* not among the model's parameters"):
        Model([ops.add(x, y)], [x], "m")


def test_cycle_is_detected() -> None:
    x = ops.parameter([2], "f32", name="x")
    a = ops.relu(x, name="a")
    b = ops.relu(a, name="b")
    a.set_argument(0, b.output(0))
    with pytest.raises(ValidationError, match="cycle"):
        Model([b], [x], "m")


def test_duplicate_tensor_names_are_refused() -> None:
    x = ops.parameter([2], "f32", name="x")
    a = ops.relu(x, name="a")
    a.output(0).set_names({"x"})
    with pytest.raises(ValidationError, match="tensor name 'x' is used by both"):
        Model([a], [x], "m")


def test_bad_construction_names_op_and_node() -> None:
    x = ops.parameter([2, 3], "f32", name="x")
    with pytest.raises(ValidationError, match=r"Add-1 node 'bad': shapes \[2,3\] and \[4\] cannot be broadcast"):
        ops.add(x, ops.parameter([4], "f32"), name="bad")
    with pytest.raises(ValidationError, match=r"Relu-1 node: got 2 input\(s\); expected 1"):
        make_node("Relu", 1, [x.output(0), x.output(0)])
    with pytest.raises(ValidationError, match="unknown attribute"):
        make_node("Relu", 1, [x.output(0)], {"alpha": 1.0})
    with pytest.raises(ValidationError, match="'auto_broadcast'='sideways' is not allowed; allowed: 'numpy', 'none', 'pdpd'"):
        ops.add(x, x, auto_broadcast="sideways")
    with pytest.raises(ValidationError, match="logical ops need boolean"):
        ops.logical_and(x, x)


def test_failed_construction_leaves_no_consumer_behind() -> None:
    x = ops.parameter([2], "f32", name="x")
    with pytest.raises(ValidationError):
        ops.add(x, ops.parameter([3], "f32"))
    assert x.output(0).get_target_inputs() == []


def test_model_results_from_outputs_and_sinks_signature() -> None:
    x = ops.parameter([2], "f32", name="x")
    m = Model([ops.relu(x).output(0)], [], [x], "with_sinks")
    assert m.get_sinks() == [] and m.get_results()[0].type_name == "Result"
