"""Tier-2 "index" family: GatherElements-6, GatherND-5/8, ScatterUpdate-3, ScatterElementsUpdate-3/12,
ScatterNDUpdate-3/15, TopK-1/3/11, NonZero-3, Bucketize-3, SearchSorted-15, Unique-10, SegmentMax-16 —
builder inference and errors, REFERENCE kernel numerics against literal values or plain numpy
formulas, and the case strategies."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _opcase_checks import check_case_runs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ovconform import opset, serialize
from ovconform.errors import InferError, ValidationError
from ovconform.ir import Model, Node, Type, as_type, bf16_to_f32, f32_to_bf16, get_opdef, make_node
from ovconform.ir.opset_table import OPSET_VERSIONS
from ovconform.opcases import OpCase, all_case_keys, case_strategy
from reference_plugin._evaluate import evaluate
from reference_plugin.ops import registered_ops

P = opset.parameter

KEYS = [("GatherElements", 6), ("GatherND", 5), ("GatherND", 8), ("ScatterUpdate", 3), ("ScatterElementsUpdate", 3),
        ("ScatterElementsUpdate", 12), ("ScatterNDUpdate", 4), ("ScatterNDUpdate", 15),
        ("TopK", 1), ("TopK", 3), ("TopK", 11), ("NonZero", 3), ("Bucketize", 3), ("SearchSorted", 15),
        ("Unique", 10), ("SegmentMax", 16)]
CASE_SETTINGS = settings(max_examples=12, deadline=None, derandomize=True, database=None,
                         suppress_health_check=list(HealthCheck))


def shape(node: Node, i: int = 0) -> str:
    return str(node.output(i).get_partial_shape())


def run(make: Callable[..., Node], *arrays: Any) -> list[np.ndarray]:
    """One op over Parameters holding ``arrays``; every output evaluated on REFERENCE."""
    values = [np.asarray(a) for a in arrays]
    params = [P(list(v.shape), as_type(v.dtype), name=f"in{i}") for i, v in enumerate(values)]
    node = make(*params)
    return evaluate(Model(node.outputs(), params), values)


I32 = np.int32


# -- op definitions: IR spelling ----------------------------------------------------------------

EXPECTED_ATTRS = {
    ("GatherElements", 6): ["axis"], ("GatherND", 5): ["batch_dims"], ("GatherND", 8): ["batch_dims"],
    ("ScatterUpdate", 3): [], ("ScatterElementsUpdate", 3): [],
    ("ScatterElementsUpdate", 12): ["reduction", "use_init_val"], ("ScatterNDUpdate", 4): [],
    ("ScatterNDUpdate", 15): ["reduction"], ("TopK", 1): ["axis", "mode", "sort", "index_element_type"],
    ("TopK", 3): ["axis", "mode", "sort", "index_element_type"],
    ("TopK", 11): ["axis", "mode", "sort", "index_element_type", "stable"], ("NonZero", 3): ["output_type"],
    ("Bucketize", 3): ["output_type", "with_right_bound"], ("SearchSorted", 15): ["right_mode", "output_type"],
    ("Unique", 10): ["sorted", "index_element_type", "count_element_type"], ("SegmentMax", 16): ["fill_mode"],
}


@pytest.mark.parametrize(("op", "version"), list(EXPECTED_ATTRS))
def test_ir_names_and_attributes_follow_openvino(op: str, version: int) -> None:
    d = get_opdef(op, version)
    assert (d.ir_type_name or d.type_name) == op
    assert [a.name for a in d.attrs] == EXPECTED_ATTRS[(op, version)]
    assert version in OPSET_VERSIONS[op]


def test_scatter_nd_update_4_is_the_opset4_layer_openvino_writes() -> None:
    data = P([2, 3])
    node = opset.scatter_nd_update(data, np.array([[1]]), P([1, 3], name="u"), version=4)
    xml, _ = serialize(Model([node], [data, node.input_value(2).node]))
    assert b'type="ScatterNDUpdate" version="opset4"' in xml


def test_builders_use_the_opset_versions() -> None:
    f, i = P([2, 3]), P([2, 3], Type.i32)
    built = [opset.gather_elements(f, i, 1), opset.gather_nd(f, P([2, 1], Type.i32)),
             opset.gather_nd(f, P([2, 1], Type.i32), version=5),
             opset.scatter_update(f, np.array([0]), P([2, 1]), np.int64(1)),
             opset.scatter_elements_update(f, i, f, 0), opset.scatter_elements_update(f, i, f, 0, version=3),
             opset.scatter_nd_update(f, np.array([[0]]), P([1, 3])),
             opset.scatter_nd_update(f, np.array([[0]]), P([1, 3]), version=4),
             opset.topk(f, 1, 1, "max", "value"), opset.topk(f, 1, 1, "max", "value", version=3),
             opset.topk(f, 1, 1, "max", "value", version=1), opset.non_zero(f), opset.bucketize(f, P([4])),
             opset.search_sorted(P([5]), f), opset.unique(f), opset.segment_max(f, np.array([0, 1]))]
    assert [(n.type_name, n.version) for n in built] == [
        ("GatherElements", 6), ("GatherND", 8), ("GatherND", 5), ("ScatterUpdate", 3), ("ScatterElementsUpdate", 12),
        ("ScatterElementsUpdate", 3), ("ScatterNDUpdate", 15), ("ScatterNDUpdate", 4), ("TopK", 11), ("TopK", 3),
        ("TopK", 1), ("NonZero", 3), ("Bucketize", 3), ("SearchSorted", 15), ("Unique", 10), ("SegmentMax", 16)]
    assert opset.topk(f, 1, 1, "MAX", "Value").attrs["mode"] == "max"
    assert opset.segment_max(f, np.array([0, 1]), fill_mode="LOWEST").attrs["fill_mode"] == "lowest"
    assert opset.scatter_nd_update(f, np.array([[0]]), P([1, 3]), "SUM").attrs["reduction"] == "sum"


@pytest.mark.parametrize(("builder", "version"), [(opset.gather_nd, 7), (opset.scatter_elements_update, 4),
                                                  (opset.scatter_nd_update, 3), (opset.topk, 2)])
def test_builders_refuse_versions_that_do_not_exist(builder: Any, version: int) -> None:
    args = {opset.gather_nd: (P([2]), np.array([[0]])),
            opset.scatter_elements_update: (P([2]), np.array([0]), P([1]), 0),
            opset.scatter_nd_update: (P([2]), np.array([[0]]), P([1])),
            opset.topk: (P([2]), 1, 0, "max", "value")}[builder]
    with pytest.raises(ValidationError, match=f"version {version} does not exist"):
        builder(*args, version=version)


# -- GatherElements / GatherND ---------------------------------------------------------------------

@pytest.mark.parametrize(("data", "idx", "axis", "expected"), [
    ([2, 3], [2, 5], 1, "[2,5]"), ([3, 3], [2, 3], 0, "[2,3]"), ([2, -1], [-1, 4], -1, "[2,4]"),
    ("...", [2, 2], 0, "[2,2]"), ([2, 3], "...", 1, "[?,?]"),
])
def test_gather_elements_shapes(data: Any, idx: Any, axis: int, expected: str) -> None:
    node = opset.gather_elements(P(data), P(idx, Type.i64), axis)
    assert shape(node) == expected and node.output(0).get_element_type() == Type.f32


def test_gather_elements_errors() -> None:
    with pytest.raises(ValidationError, match=r"GatherElements-6 node.*differ in dim 0, which is not the axis 1"):
        opset.gather_elements(P([2, 3]), P([3, 3], Type.i32), 1)
    with pytest.raises(ValidationError, match=r"GatherElements-6 node.*attribute 'axis' 2 is out of range for rank 2"):
        opset.gather_elements(P([2, 3]), P([2, 3], Type.i32), 2)
    with pytest.raises(ValidationError, match=r"GatherElements-6 node.*same rank"):
        opset.gather_elements(P([2, 3]), P([2], Type.i32), 0)
    with pytest.raises(ValidationError, match=r"indices \(input 1\) has element type f32"):
        opset.gather_elements(P([2, 3]), P([2, 3]), 0)


def test_gather_elements_kernel() -> None:
    data = np.array([[1, 7], [4, 3]], np.float32)
    (out,) = run(lambda d, i: opset.gather_elements(d, i, 1), data, np.array([[1, 1, 0], [1, 0, 1]], I32))
    assert out.tolist() == [[7, 7, 1], [3, 4, 3]]
    data = np.arange(9, dtype=np.int64).reshape(3, 3) + 1
    (out,) = run(lambda d, i: opset.gather_elements(d, i, 0), data, np.array([[1, 0, 1], [1, 2, 0]], I32))
    assert out.tolist() == [[4, 2, 6], [4, 8, 3]]
    rng = np.random.default_rng(1)
    x, idx = rng.standard_normal((3, 4, 2)).astype(np.float32), rng.integers(-4, 4, (3, 6, 2))
    (out,) = run(lambda d, i: opset.gather_elements(d, i, -2), x, idx)
    assert np.array_equal(out, np.take_along_axis(x, np.where(idx < 0, idx + 4, idx), axis=1))
    with pytest.raises(InferError, match=r"GatherElements-6 node.*index 2 at \[0, 1\] is out of range; allowed"):
        run(lambda d, i: opset.gather_elements(d, i, 1), data[:2, :2], np.array([[0, 2], [1, 1]], I32))


@pytest.mark.parametrize(("data", "idx", "b", "v8", "v5"), [
    ([2, 3], [2, 1], 0, "[2,3]", "[2,3]"), ([2, 3], [2], 0, "[]", "[]"), ([2, 3], [1], 0, "[3]", "[3]"),
    ([2, 3], [4, 2], 0, "[4]", "[4]"),
    ([2, 3, 4, 5], [2, 3, 1], 2, "[2,3,5]", "[6,5]"), ([2, 3, 4, 5], [2, 3, 6, 1], 2, "[2,3,6,5]", "[6,6,5]"),
    ([2, 3, 4], [2, 7, 2], 1, "[2,7]", "[2,7]"), ([2, -1, 4], [-1, 2], 0, "[?,4]", "[?,4]"),
    ([2, 3], [2, -1], 0, "...", "..."),
])
def test_gather_nd_shapes(data: Any, idx: Any, b: int, v8: str, v5: str) -> None:
    assert shape(opset.gather_nd(P(data), P(idx, Type.i32), b)) == v8
    assert shape(opset.gather_nd(P(data), P(idx, Type.i32), b, version=5)) == v5


def test_gather_nd_errors() -> None:
    with pytest.raises(ValidationError, match=r"GatherND-8 node.*last dim of 3; it must be in \[1, 2\]"):
        opset.gather_nd(P([2, 3]), P([1, 3], Type.i32))
    with pytest.raises(ValidationError, match=r"GatherND-8 node.*batch_dims=2 must be less than the ranks"):
        opset.gather_nd(P([2, 3]), P([2, 1], Type.i32), 2)
    with pytest.raises(ValidationError, match=r"GatherND-5 node.*differ in batch dim 0"):
        opset.gather_nd(P([2, 3]), P([3, 1], Type.i32), 1, version=5)
    with pytest.raises(ValidationError, match=r"GatherND-8 node.*batch_dims=-1 must be non-negative"):
        opset.gather_nd(P([2, 3]), P([2, 1], Type.i32), -1)


def test_gather_nd_kernel_spec_examples() -> None:
    data = np.array([[1, 2], [3, 4]], np.float32)
    assert run(lambda d, i: opset.gather_nd(d, i), data, np.array([[0, 0], [1, 0]], I32))[0].tolist() == [1, 3]
    assert run(lambda d, i: opset.gather_nd(d, i), data, np.array([[1], [0]], I32))[0].tolist() == [[3, 4], [1, 2]]
    assert run(lambda d, i: opset.gather_nd(d, i), data, np.array([[[1]], [[0]]], I32))[0].tolist() == \
        [[[3, 4]], [[1, 2]]]
    batched = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    idx = np.array([[[1], [0]], [[2], [-1]]], I32)  # batch_dims=1: rows of each batch
    v8 = run(lambda d, i: opset.gather_nd(d, i, 1), batched, idx)[0]
    assert v8.shape == (2, 2, 4) and np.array_equal(v8, np.stack([batched[0][[1, 0]], batched[1][[2, 2]]]))
    idx2 = np.array([[[1, 2]], [[0, 3]]], I32)  # two batch dims folded by GatherND-5
    v5 = run(lambda d, i: opset.gather_nd(d, i, 1, version=5), batched, idx2)[0]
    assert v5.tolist() == [[6], [15]]  # batched[0][1, 2], batched[1][0, 3]
    with pytest.raises(InferError, match=r"GatherND-8 node.*index 3 at \[1, 0\] is out of range; allowed \[-2, 1\]"):
        run(lambda d, i: opset.gather_nd(d, i), data, np.array([[0], [3]], I32))


# -- scatters: inference -----------------------------------------------------------------------------

def test_scatter_update_inference_and_errors() -> None:
    node = opset.scatter_update(P([4, 3], Type.i32), np.array([[0, 2]]), P([1, 2, 3], Type.i32), np.int64(0))
    assert shape(node) == "[4,3]" and node.output(0).get_element_type() == Type.i32
    with pytest.raises(ValidationError, match=r"ScatterUpdate-3 node.*updates \[2,3\] must have shape .* = \[1,2,3\]"):
        opset.scatter_update(P([4, 3]), np.array([[0, 2]]), P([2, 3]), np.int64(0))
    with pytest.raises(ValidationError, match=r"ScatterUpdate-3 node.*data \(f32\) and updates \(f16\)"):
        opset.scatter_update(P([4, 3]), np.array([0]), P([1, 3], Type.f16), np.int64(0))
    with pytest.raises(ValidationError, match=r"ScatterUpdate-3 node.*axis 2 is out of range for rank 2"):
        opset.scatter_update(P([4, 3]), np.array([0]), P([4, 1]), np.int64(2))
    with pytest.raises(ValidationError, match=r"ScatterUpdate-3 node.*axis \(input 3\) has shape \[2\]"):
        opset.scatter_update(P([4, 3]), np.array([0]), P([4, 1]), np.array([0, 1]))


def test_scatter_elements_update_inference_and_errors() -> None:
    node = opset.scatter_elements_update(P([4, -1]), P([7, 2], Type.i64), P([7, 2]), 0, "mean", False)
    assert shape(node) == "[4,?]" and node.attrs == {"reduction": "mean", "use_init_val": False}
    with pytest.raises(ValidationError, match=r"ScatterElementsUpdate-12 node.*indices \[2,2\] and updates \[2,3\]"):
        opset.scatter_elements_update(P([4, 3]), P([2, 2], Type.i32), P([2, 3]), 0)
    with pytest.raises(ValidationError, match=r"attribute 'reduction'='avg' is not allowed; allowed: 'none', 'sum'"):
        opset.scatter_elements_update(P([4, 3]), P([2, 2], Type.i32), P([2, 2]), 0, "avg")
    with pytest.raises(ValidationError, match=r"ScatterElementsUpdate-3 node.*must have the same rank"):
        opset.scatter_elements_update(P([4, 3]), P([2], Type.i32), P([2]), 0, version=3)
    with pytest.raises(ValidationError, match=r"reduction 'mean' is not defined for boolean data"):
        opset.scatter_elements_update(P([4], Type.boolean), P([2], Type.i32), P([2], Type.boolean), 0, "mean")


def test_scatter_nd_update_inference_and_errors() -> None:
    node = opset.scatter_nd_update(P([4, 5, 6]), P([3, 2], Type.i32), P([3, 6]), "sub")
    assert shape(node) == "[4,5,6]" and node.attrs == {"reduction": "sub"}
    with pytest.raises(ValidationError, match=r"ScatterNDUpdate-15 node.*updates \[3\] must have shape .* = \[3,6\]"):
        opset.scatter_nd_update(P([4, 5, 6]), P([3, 2], Type.i32), P([3]))
    with pytest.raises(ValidationError, match=r"ScatterNDUpdate-4 node.*last dim of 4; it must not exceed the"):
        opset.scatter_nd_update(P([4, 5, 6]), P([3, 4], Type.i32), P([3]), version=4)
    with pytest.raises(ValidationError, match=r"attribute 'reduction'='mean' is not allowed"):
        opset.scatter_nd_update(P([4]), P([3, 1], Type.i32), P([3]), "mean")


# -- scatters: kernels ---------------------------------------------------------------------------------

def test_scatter_update_kernel() -> None:
    data = np.zeros((3, 4), np.float32)
    upd = np.arange(1, 9, dtype=np.float32).reshape(2, 4)
    (out,) = run(lambda d, u: opset.scatter_update(d, np.array([2, 0]), u, np.int64(0)), data, upd)
    assert out.tolist() == [[5, 6, 7, 8], [0, 0, 0, 0], [1, 2, 3, 4]]
    upd2 = np.array([[[1, 2]], [[3, 4]], [[5, 6]]], np.int32)  # data[:1] + indices [1, 2] + data[2:] along axis 1
    (out,) = run(lambda d, u: opset.scatter_update(d, np.array([[3, -4]]), u, np.int64(-1)),
                 np.zeros((3, 4), np.int32), upd2)
    assert out.tolist() == [[2, 0, 0, 1], [4, 0, 0, 3], [6, 0, 0, 5]]
    with pytest.raises(InferError, match=r"ScatterUpdate-3 node.*index 3 .* out of range; allowed \[-3, 2\]"):
        run(lambda d, u: opset.scatter_update(d, np.array([3]), u, np.int64(0)), data, upd[:1])


def _sce(reduction: str, init: bool = True) -> Callable[..., Node]:
    return lambda d, i, u: opset.scatter_elements_update(d, i, u, np.int64(0), reduction, init)


SCE_DATA = np.array([10, 20, 30, 40], np.float32)
SCE_IDX = np.array([1, 3, 1, -1], I32)  # -1 is 3 again
SCE_UPD = np.array([1, 2, 4, 8], np.float32)


@pytest.mark.parametrize(("reduction", "init", "expected"), [
    ("sum", True, [10, 25, 30, 50]), ("sum", False, [10, 5, 30, 10]),
    ("prod", True, [10, 80, 30, 640]), ("prod", False, [10, 4, 30, 16]),
    ("min", True, [10, 1, 30, 2]), ("max", True, [10, 20, 30, 40]), ("max", False, [10, 4, 30, 8]),
    ("mean", True, [10, 25 / 3, 30, 50 / 3]), ("mean", False, [10, 2.5, 30, 5]),
])
def test_scatter_elements_update_reductions(reduction: str, init: bool, expected: list[float]) -> None:
    (out,) = run(_sce(reduction, init), SCE_DATA, SCE_IDX, SCE_UPD)
    np.testing.assert_allclose(out, np.array(expected, np.float32), rtol=1e-6)


def test_scatter_elements_update_none_2d_and_integers() -> None:
    data = np.zeros((3, 3), np.float32)
    idx = np.array([[1, 0, 2], [0, 2, 1]], I32)
    upd = np.array([[1.0, 1.1, 1.2], [2.0, 2.1, 2.2]], np.float32)
    (out,) = run(lambda d, i, u: opset.scatter_elements_update(d, i, u, np.int64(0), version=3), data, idx, upd)
    np.testing.assert_array_equal(out, np.array([[2.0, 1.1, 0.0], [1.0, 0.0, 2.2], [0.0, 2.1, 1.2]], np.float32))
    ints = np.array([[1, 2, 3]], np.int32)  # mean of integers rounds toward minus infinity
    (out,) = run(lambda d, i, u: opset.scatter_elements_update(d, i, u, np.int64(1), "mean"), ints,
                 np.array([[0, 0]], I32), np.array([[-4, 0]], np.int32))
    assert out.tolist() == [[-1, 2, 3]]  # (1 - 4 + 0) / 3 = -1
    smaller = run(lambda d, i, u: opset.scatter_elements_update(d, i, u, np.int64(1), "sum"),
                  np.ones((3, 3), np.float32), np.array([[2, 2, 2, 2]], I32), np.ones((1, 4), np.float32))[0]
    assert smaller.tolist() == [[1, 1, 5], [1, 1, 1], [1, 1, 1]]


def test_scatter_elements_update_low_precision_rounds_once() -> None:
    data = np.array([2048], np.float16)  # f16 spacing 2 there: 2048 + 1 + 1 rounds per step to 2048
    (out,) = run(_sce("sum"), data, np.array([0, 0], I32), np.array([1, 1], np.float16))
    assert out.dtype == np.float16 and out.tolist() == [2050]


def test_scatter_elements_update_errors() -> None:
    with pytest.raises(InferError, match=r"ScatterElementsUpdate-12 node.*index 4 at \[0\] is out of range"):
        run(_sce("sum"), SCE_DATA, np.array([4], I32), np.array([1], np.float32))
    with pytest.raises(InferError, match=r"indices \[1, 2\] is larger than data \[4, 1\] in dim 1, which is not the"):
        run(_sce("none"), np.zeros((4, 1), np.float32), np.zeros((1, 2), I32), np.zeros((1, 2), np.float32))


@pytest.mark.parametrize(("reduction", "expected"), [
    ("none", [[9, 9], [3, 4], [7, 7]]), ("sum", [[10, 11], [3, 4], [12, 13]]), ("sub", [[-8, -7], [3, 4], [-2, -1]]),
    ("prod", [[9, 18], [3, 4], [35, 42]]), ("min", [[1, 2], [3, 4], [5, 6]]), ("max", [[9, 9], [3, 4], [7, 7]]),
])
def test_scatter_nd_update_kernel(reduction: str, expected: list[list[int]]) -> None:
    data = np.array([[1, 2], [3, 4], [5, 6]], np.int32)
    idx = np.array([[0], [-1]], I32)
    upd = np.array([[9, 9], [7, 7]], np.int32)
    (out,) = run(lambda d, i, u: opset.scatter_nd_update(d, i, u, reduction), data, idx, upd)
    assert out.tolist() == expected


def test_scatter_nd_update_elements_and_duplicates() -> None:
    data = np.zeros((2, 3), np.float32)
    idx = np.array([[0, 1], [1, 2], [0, 1]], I32)
    upd = np.array([1, 2, 4], np.float32)
    (out,) = run(lambda d, i, u: opset.scatter_nd_update(d, i, u, "sum"), data, idx, upd)
    assert out.tolist() == [[0, 5, 0], [0, 0, 2]]
    (out,) = run(lambda d, i, u: opset.scatter_nd_update(d, i, u, "none"), data, idx[:2], upd[:2])
    assert out.tolist() == [[0, 1, 0], [0, 0, 2]]
    (out,) = run(lambda d, i, u: opset.scatter_nd_update(d, i, u, version=4), data, idx[:2], upd[:2])
    assert out.tolist() == [[0, 1, 0], [0, 0, 2]]
    with pytest.raises(InferError, match=r"ScatterNDUpdate-15 node.*index -3 at \[0, 0\] is out of range"):
        run(lambda d, i, u: opset.scatter_nd_update(d, i, u), data, np.array([[-3, 0]], I32), upd[:1])


# -- TopK ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("data", "k", "axis", "expected"), [
    ([2, 5], 3, 1, "[2,3]"), ([2, 5], 7, 1, "[2,5]"), ([2, -1], 3, -1, "[2,0..3]"), ([2, "2..6"], 3, 1, "[2,2..3]"),
    ([4, 5], None, 0, "[0..4,5]"), ("...", 3, 0, "..."),
])
def test_topk_shapes(data: Any, k: int | None, axis: int, expected: str) -> None:
    k_in = P([], Type.i64) if k is None else k
    node = opset.topk(P(data), k_in, axis, "max", "value", "i64")
    assert shape(node, 0) == shape(node, 1) == expected
    assert node.output(0).get_element_type() == Type.f32 and node.output(1).get_element_type() == Type.i64


def test_topk_errors() -> None:
    with pytest.raises(ValidationError, match=r"TopK-11 node.*attribute 'axis' 2 is out of range for rank 2"):
        opset.topk(P([2, 5]), 1, 2, "max", "value")
    with pytest.raises(ValidationError, match=r"attribute 'mode'='top' is not allowed; allowed: 'max', 'min'"):
        opset.topk(P([2, 5]), 1, 1, "top", "value")
    with pytest.raises(ValidationError, match=r"TopK-3 node.*k \(input 1\) has shape \[2\]; it must be a scalar"):
        opset.topk(P([2, 5]), np.array([1, 2]), 1, "max", "value", version=3)
    with pytest.raises(ValidationError, match=r"TopK-11 node.*k=-1 must be non-negative"):
        opset.topk(P([2, 5]), -1, 1, "max", "value")
    with pytest.raises(ValidationError, match=r"TopK-11 node.*data \(input 0\) has element type boolean"):
        opset.topk(P([2, 5], Type.boolean), 1, 1, "max", "value")
    with pytest.raises(ValidationError, match=r"attribute 'index_element_type'"):
        opset.topk(P([2, 5]), 1, 1, "max", "value", "u8")


X5 = np.array([[3, 1, 4, 1, 5], [9, 2, 6, 5, 3]], np.float32)


@pytest.mark.parametrize(("mode", "sort", "values", "indices"), [
    ("max", "value", [[5, 4, 3], [9, 6, 5]], [[4, 2, 0], [0, 2, 3]]),
    ("max", "index", [[3, 4, 5], [9, 6, 5]], [[0, 2, 4], [0, 2, 3]]),
    ("min", "value", [[1, 1, 3], [2, 3, 5]], [[1, 3, 0], [1, 4, 3]]),
    ("min", "index", [[3, 1, 1], [2, 5, 3]], [[0, 1, 3], [1, 3, 4]]),
])
def test_topk_kernel(mode: str, sort: str, values: list[list[float]], indices: list[list[int]]) -> None:
    for version in (1, 3, 11):
        got_v, got_i = run(lambda d, v=version: opset.topk(d, 3, -1, mode, sort, stable=True, version=v), X5)
        assert got_v.tolist() == values and got_i.tolist() == indices and got_i.dtype == np.int32


def test_topk_ties_keep_the_input_order_and_k_is_clamped() -> None:
    x = np.array([2, 7, 2, 7, 2], np.int8)
    v, i = run(lambda d: opset.topk(d, 4, 0, "max", "value", "i64", stable=True), x)
    assert v.tolist() == [7, 7, 2, 2] and i.tolist() == [1, 3, 0, 2] and i.dtype == np.int64
    v, i = run(lambda d: opset.topk(d, 2, 0, "min", "value", stable=True), x)
    assert i.tolist() == [0, 2]
    v, i = run(lambda d, k: opset.topk(d, k, 0, "max", "value", version=3), x, np.array(9, np.int32))
    assert v.shape == (5,) and i.tolist() == [1, 3, 0, 2, 4]
    v, _ = run(lambda d: opset.topk(d, 2, 0, "max", "value"), np.array([1.5, 0.5, 2.5], np.float16))
    assert v.dtype == np.float16 and v.tolist() == [2.5, 1.5]


def test_topk_nan_counts_as_the_largest_value() -> None:
    x = np.array([1.0, np.nan, 3.0, -2.0], np.float32)
    v, i = run(lambda d: opset.topk(d, 2, 0, "max", "value"), x)
    assert np.isnan(v[0]) and v[1] == 3 and i.tolist() == [1, 2]
    v, i = run(lambda d: opset.topk(d, 4, 0, "min", "value"), x)
    assert i.tolist() == [3, 0, 2, 1]


def test_bf16_orders_by_value_not_by_bit_pattern() -> None:
    x = f32_to_bf16(np.array([-3.0, 2.0, -0.5, 1.0], np.float32))  # as uint16, negatives sort above positives
    params = [P([4], Type.bf16, name="x")]
    topk = opset.topk(params[0], 2, 0, "max", "value")
    seg = opset.segment_max(params[0], np.array([0, 0, 2, 2], I32), fill_mode="lowest")
    bucket = opset.bucketize(params[0], np.array([0.0], np.float32))
    values, indices, seg_out, buckets = evaluate(Model([*topk.outputs(), seg, bucket], params), [x])
    assert bf16_to_f32(values).tolist() == [2.0, 1.0] and indices.tolist() == [1, 3]
    assert bf16_to_f32(seg_out)[[0, 2]].tolist() == [2.0, 1.0] and seg_out[1] == 0xFF7F  # bf16 lowest
    assert buckets.tolist() == [0, 1, 0, 1]


def test_boolean_scatter_reductions_are_or_and_and() -> None:
    data = np.array([False, True, False], np.bool_)
    idx, upd = np.array([0, 0, 1], I32), np.array([True, False, False], np.bool_)
    assert run(_sce("sum"), data, idx, upd)[0].tolist() == [True, True, False]
    assert run(_sce("prod"), data, idx, upd)[0].tolist() == [False, False, False]
    assert run(_sce("max", False), data, idx, upd)[0].tolist() == [True, False, False]


def test_topk_random_matches_numpy_sort() -> None:
    rng = np.random.default_rng(3)
    x = rng.permutation(60).reshape(3, 4, 5).astype(np.float32)
    v, i = run(lambda d: opset.topk(d, 3, 1, "max", "value"), x)
    want_i = np.argsort(-x, axis=1)[:, :3]
    assert np.array_equal(i, want_i) and np.array_equal(v, np.take_along_axis(x, want_i, axis=1))


# -- NonZero, Bucketize, SearchSorted ------------------------------------------------------------------

def test_non_zero() -> None:
    assert shape(opset.non_zero(P([2, 3]))) == "[2,0..6]"
    assert shape(opset.non_zero(P([2, -1]), "i32")) == "[2,?]"
    assert shape(opset.non_zero(P([]))) == "[?,?]"
    x = np.array([[0, 1.5, 0], [-2, 0, float("nan")]], np.float32)
    (out,) = run(lambda d: opset.non_zero(d, "i32"), x)
    assert out.dtype == np.int32 and out.tolist() == [[0, 1, 1], [1, 0, 2]]
    (out,) = run(opset.non_zero, np.zeros((2, 2), np.bool_))
    assert out.shape == (2, 0) and out.dtype == np.int64
    (out,) = run(opset.non_zero, np.array([-0.0, 3.0], np.float32))
    assert out.tolist() == [[1]]
    (out,) = run(opset.non_zero, np.array(5, np.int32))
    assert out.tolist() == [[0]]
    with pytest.raises(ValidationError, match=r"attribute 'output_type'"):
        opset.non_zero(P([2]), "f32")


def test_bucketize() -> None:
    node = opset.bucketize(P([2, 3], Type.i32), P([4]), "i32")
    assert shape(node) == "[2,3]" and node.output(0).get_element_type() == Type.i32
    x = np.array([-1, 0, 1, 2.5, 3, 9], np.float32)
    edges = np.array([0, 1, 3], np.int32)
    assert run(lambda d, b: opset.bucketize(d, b), x, edges)[0].tolist() == [0, 0, 1, 2, 2, 3]
    assert run(lambda d, b: opset.bucketize(d, b, with_right_bound=False), x, edges)[0].tolist() == [0, 1, 2, 2, 3, 3]
    big = np.array([2**40, 2**40 + 1], np.int64)  # integers compare exactly (no float rounding)
    assert run(lambda d, b: opset.bucketize(d, b), big, np.array([2**40], np.int64))[0].tolist() == [0, 1]
    with pytest.raises(ValidationError, match=r"Bucketize-3 node.*buckets has shape \[2,2\]; it must be 1D"):
        opset.bucketize(P([3]), P([2, 2]))
    with pytest.raises(ValidationError, match=r"Bucketize-3 node.*data \(input 0\) has element type boolean"):
        opset.bucketize(P([3], Type.boolean), P([2]))


def test_search_sorted() -> None:
    assert shape(opset.search_sorted(P([2, 5]), P([2, 3]))) == "[2,3]"
    assert shape(opset.search_sorted(P([5]), P([4, 2, 3]), output_type="i32")) == "[4,2,3]"
    seq = np.array([[1, 3, 5, 7, 9], [2, 4, 6, 8, 10]], np.float32)
    vals = np.array([[3, 6, 9], [3, 6, 9]], np.float32)
    assert run(opset.search_sorted, seq, vals)[0].tolist() == [[1, 3, 4], [1, 2, 4]]
    assert run(lambda s, v: opset.search_sorted(s, v, True), seq, vals)[0].tolist() == [[2, 3, 5], [1, 3, 4]]
    flat = run(lambda s, v: opset.search_sorted(s, v, False, "i32"), seq[0], np.array([[0, 5], [10, 7]], np.float32))
    assert flat[0].tolist() == [[0, 2], [5, 3]] and flat[0].dtype == np.int32
    with pytest.raises(ValidationError, match=r"SearchSorted-15 node.*values \[3\] must have the rank"):
        opset.search_sorted(P([2, 5]), P([3]))
    with pytest.raises(ValidationError, match=r"SearchSorted-15 node.*differ in dim 0"):
        opset.search_sorted(P([2, 5]), P([3, 1]))
    with pytest.raises(ValidationError, match=r"sorted_sequence \(f32\) and values \(i32\)"):
        opset.search_sorted(P([5]), P([3], Type.i32))


# -- Unique ----------------------------------------------------------------------------------------------

def test_unique_shapes() -> None:
    node = opset.unique(P([2, 3]), None, True, "i32", "i64")
    assert [shape(node, i) for i in range(4)] == ["[1..6]", "[1..6]", "[6]", "[1..6]"]
    assert [node.output(i).get_element_type() for i in range(4)] == [Type.f32, Type.i32, Type.i32, Type.i64]
    node = opset.unique(P([2, 3]), np.int64(-1))
    assert [shape(node, i) for i in range(4)] == ["[2,1..3]", "[1..3]", "[3]", "[1..3]"]
    node = opset.unique(P([2, 3]), P([], Type.i32))
    assert [shape(node, i) for i in range(4)] == ["[?,?]", "[?]", "[?]", "[?]"]
    with pytest.raises(ValidationError, match=r"Unique-10 node.*axis 2 is out of range for rank 2"):
        opset.unique(P([2, 3]), np.int64(2))


def test_unique_flat_sorted_and_unsorted() -> None:
    x = np.array([[-1, 2, 1], [2, 5, -1]], np.int32)
    u, first, inverse, counts = run(lambda d: opset.unique(d, sorted=True), x)
    assert u.tolist() == [-1, 1, 2, 5] and first.tolist() == [0, 2, 1, 4]
    assert inverse.tolist() == [0, 2, 1, 2, 3, 0] and counts.tolist() == [2, 1, 2, 1]
    u, first, inverse, counts = run(lambda d: opset.unique(d, sorted=False, index_element_type="i32"), x)
    assert u.tolist() == [-1, 2, 1, 5] and first.tolist() == [0, 1, 2, 4] and first.dtype == np.int32
    assert inverse.tolist() == [0, 1, 2, 1, 3, 0] and counts.tolist() == [2, 2, 1, 1]
    assert np.array_equal(u[inverse], x.reshape(-1))


def test_unique_along_an_axis() -> None:
    x = np.array([[1, 2, 1, 0], [3, 4, 3, 9]], np.float32)
    u, first, inverse, counts = run(lambda d: opset.unique(d, np.int64(1), sorted=False), x)
    assert u.tolist() == [[1, 2, 0], [3, 4, 9]] and first.tolist() == [0, 1, 3]
    assert inverse.tolist() == [0, 1, 0, 2] and counts.tolist() == [2, 1, 1]
    u, first, inverse, counts = run(lambda d: opset.unique(d, np.int64(1), sorted=True), x)
    assert u.tolist() == [[0, 1, 2], [9, 3, 4]] and first.tolist() == [3, 0, 1] and counts.tolist() == [1, 2, 1]
    assert inverse.tolist() == [1, 2, 1, 0]
    u, *_ = run(lambda d: opset.unique(d, np.int64(0)), np.array([[2, 1], [1, 5], [2, 1]], np.int64))
    assert u.tolist() == [[1, 5], [2, 1]]


def test_unique_treats_negative_zero_as_zero() -> None:
    u, first, _, counts = run(lambda d: opset.unique(d, sorted=False), np.array([-0.0, 1.0, 0.0], np.float32))
    assert u.tolist() == [0.0, 1.0] and np.signbit(u[0]) and first.tolist() == [0, 1] and counts.tolist() == [2, 1]


# -- SegmentMax ------------------------------------------------------------------------------------------

def test_segment_max_shapes_and_errors() -> None:
    assert shape(opset.segment_max(P([4, 3]), P([4], Type.i32))) == "[?,3]"
    assert shape(opset.segment_max(P([4, 3]), np.array([0, 0, 2, 2], I32))) == "[3,3]"
    assert shape(opset.segment_max(P([4, 3]), P([4], Type.i32), np.int32(5), "lowest")) == "[5,3]"
    with pytest.raises(ValidationError, match=r"SegmentMax-16 node.*segment_ids \[0, 2, 1\] must be non-negative and"):
        opset.segment_max(P([3]), np.array([0, 2, 1], I32))
    with pytest.raises(ValidationError, match=r"SegmentMax-16 node.*one value per row of data \[4,3\]"):
        opset.segment_max(P([4, 3]), P([3], Type.i32))
    with pytest.raises(ValidationError, match=r"attribute 'fill_mode'='max' is not allowed; allowed: 'zero', 'lowest'"):
        opset.segment_max(P([4]), P([4], Type.i32), fill_mode="max")
    with pytest.raises(ValidationError, match=r"SegmentMax-16 node.*num_segments=-1 must be non-negative"):
        opset.segment_max(P([4]), P([4], Type.i32), np.int32(-1))


@pytest.mark.parametrize(("dtype", "low"), [(np.float32, np.finfo(np.float32).min), (np.float16, -65504.0),
                                            (np.int32, np.iinfo(np.int32).min), (np.int64, np.iinfo(np.int64).min),
                                            (np.uint8, 0)])
def test_segment_max_kernel(dtype: Any, low: float) -> None:
    x = np.array([[1, 2], [3, 0], [5, 6]], dtype)
    ids = np.array([0, 0, 2], I32)
    (out,) = run(lambda d, i: opset.segment_max(d, i, fill_mode="lowest"), x, ids)
    assert out.dtype == dtype and out.tolist() == [[3, 2], [low, low], [5, 6]]
    (out,) = run(lambda d, i: opset.segment_max(d, i, np.int64(4), "zero"), x, ids)
    assert out.tolist() == [[3, 2], [0, 0], [5, 6], [0, 0]]
    (out,) = run(lambda d, i: opset.segment_max(d, i, np.int64(1), "zero"), x, ids)
    assert out.tolist() == [[3, 2]]


def test_segment_max_propagates_nan() -> None:
    x = np.array([1, np.nan, 2, 5], np.float32)
    (out,) = run(lambda d, i: opset.segment_max(d, i), x, np.array([0, 0, 1, 1], I32))
    assert np.isnan(out[0]) and out[1] == 5


def test_segment_max_runtime_checks() -> None:
    with pytest.raises(InferError, match=r"SegmentMax-16 node.*segment_ids \[1, 0\] must be non-negative and sorted"):
        run(lambda d, i: opset.segment_max(d, i), np.ones(2, np.float32), np.array([1, 0], I32))
    (out,) = run(lambda d, i: opset.segment_max(d, i), np.array([2, 8, 4], np.float32), np.array([1, 1, 1], I32))
    assert out.tolist() == [0, 8]


# -- case strategies -------------------------------------------------------------------------------------

def test_every_op_of_the_family_has_a_case() -> None:
    assert set(KEYS) <= set(all_case_keys())
    family = {op for op, _ in KEYS}
    assert {(op, v) for op in family for v in OPSET_VERSIONS[op]} == set(KEYS)  # every version of each op
    assert {(op, v) for op, versions in registered_ops().items() if op in family for v in versions} == set(KEYS)


@pytest.mark.parametrize(("op", "version"), KEYS)
@CASE_SETTINGS
@given(data=st.data())
def test_cases_are_valid_and_run(op: str, version: int, data: st.DataObject) -> None:
    case = data.draw(case_strategy(op, version))
    node, outs = check_case_runs(case, op, version)
    for i, out in enumerate(outs):
        assert out.dtype == node.output(i).get_element_type().to_dtype()
    if op.startswith("Scatter") and node.attrs.get("reduction", "none") == "none":
        _assert_no_repeated_target(case, node)


def _assert_no_repeated_target(case: OpCase, node: Node) -> None:
    """Reduction "none" cases never update one position twice (the spec leaves the order open)."""
    def value(port: int) -> np.ndarray:
        src = node.input_value(port).node
        return np.asarray(case.inputs[src.friendly_name] if src.type_name == "Parameter" else src.data)

    idx = value(1).astype(np.int64)
    data_shape = node.get_input_partial_shape(0).to_shape()
    if node.type_name == "ScatterUpdate":
        assert len(set(idx.reshape(-1).tolist())) == idx.size
    elif node.type_name == "ScatterNDUpdate":
        rows = idx.reshape(-1, idx.shape[-1])
        tuples = [tuple(int(v) % d for v, d in zip(t, data_shape, strict=False)) for t in rows]
        assert len(set(tuples)) == len(tuples)
    else:
        axis = int(value(3)) % len(data_shape)
        assert all(len(set(col)) == len(col) for col in np.moveaxis(idx % data_shape[axis], axis, -1)
                   .reshape(-1, idx.shape[axis]).tolist())


def test_make_node_validates_every_version() -> None:
    with pytest.raises(ValidationError, match=r"TopK-1 node.*unknown attribute\(s\) 'stable'"):
        make_node("TopK", 1, [P([3]).output(0), opset.constant(np.int64(1)).output(0)],
                  {"axis": 0, "mode": "max", "sort": "value", "stable": True})
    with pytest.raises(ValidationError, match=r"ScatterElementsUpdate-3 node.*unknown attribute\(s\) 'reduction'"):
        make_node("ScatterElementsUpdate", 3, [P([3]).output(0), P([3], Type.i32).output(0), P([3]).output(0),
                                               opset.constant(np.int64(0)).output(0)], {"reduction": "sum"})
