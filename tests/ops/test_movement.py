"""Tests of the movement ops (OpenVINO's op-spec folder "movement"): Broadcast, Transpose, Concat,
Split, VariadicSplit, Gather, StridedSlice, Tile, Roll, DepthToSpace, SpaceToDepth, ShuffleChannels,
ReverseSequence, Pad, Slice, SliceScatter, BatchToSpace, SpaceToBatch, GatherElements, GatherND, the
scatters, Unique, GatherTree, ExtractImagePatches, Col2Im and Reverse — builder inference and errors (as
OpenVINO writes and infers them), REFERENCE kernel numerics against literal values or independent
loop formulas (transcriptions of the specs' pseudo-code), and the case strategies; for Reverse-1
also IR that OpenVINO writes, read by ``ovconform.read_model`` and run on REFERENCE and OpenVINO CPU.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _op_helpers import P, out, run, run_all, seeded
from _op_helpers import out as shape
from _opcase_checks import CASE_SETTINGS, check_case_runs, check_ir_spelling, versions_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ovconform import Dimension, opset, read_model, serialize
from ovconform import opset as ops
from ovconform.errors import InferError, ValidationError
from ovconform.ir import Model, Node, PartialShape, Type, get_opdef, make_node
from ovconform.ir.op_families import family_of
from ovconform.ir.opset_table import OPSET_VERSIONS
from ovconform.opcases import OpCase, case_strategy
from reference_plugin.evaluate import evaluate

#: The op versions of the family whose case strategies are checked here.
CASE_KEYS = [("Tile", 1), ("Roll", 7), ("DepthToSpace", 1), ("SpaceToDepth", 1), ("ShuffleChannels", 1),
             ("ReverseSequence", 1), ("Pad", 1), ("Pad", 12), ("Slice", 8), ("SliceScatter", 15), ("BatchToSpace", 2),
             ("SpaceToBatch", 2), ("GatherElements", 6), ("GatherND", 5), ("GatherND", 8), ("ScatterUpdate", 3),
             ("ScatterElementsUpdate", 3), ("ScatterElementsUpdate", 12), ("ScatterNDUpdate", 4),
             ("ScatterNDUpdate", 15), ("Unique", 10), ("Col2Im", 15), ("GatherTree", 1), ("ExtractImagePatches", 3),
             ("Reverse", 1)]
#: Attribute names, in IR order, as OpenVINO writes them.
IR_ATTRS = {("Tile", 1): [], ("Roll", 7): [], ("DepthToSpace", 1): ["block_size", "mode"],
            ("SpaceToDepth", 1): ["block_size", "mode"], ("ShuffleChannels", 1): ["axis", "group"],
            ("ReverseSequence", 1): ["batch_axis", "seq_axis"], ("Pad", 1): ["pad_mode"], ("Pad", 12): ["pad_mode"],
            ("Slice", 8): [], ("SliceScatter", 15): [], ("BatchToSpace", 2): [], ("SpaceToBatch", 2): [],
            ("GatherElements", 6): ["axis"], ("GatherND", 5): ["batch_dims"], ("GatherND", 8): ["batch_dims"],
            ("ScatterUpdate", 3): [], ("ScatterElementsUpdate", 3): [],
            ("ScatterElementsUpdate", 12): ["reduction", "use_init_val"], ("ScatterNDUpdate", 4): [],
            ("ScatterNDUpdate", 15): ["reduction"],
            ("Unique", 10): ["sorted", "index_element_type", "count_element_type"],
            ("Col2Im", 15): ["strides", "dilations", "pads_begin", "pads_end"], ("GatherTree", 1): [],
            ("ExtractImagePatches", 3): ["sizes", "strides", "rates", "auto_pad"], ("Reverse", 1): ["mode"]}
#: IR type names that differ from the op type.
IR_NAMES: dict[str, str] = {}

@pytest.mark.parametrize(("op", "version"), list(IR_ATTRS))
def test_ir_names_and_attributes_follow_openvino(op: str, version: int) -> None:
    check_ir_spelling(op, version, IR_ATTRS[(op, version)], IR_NAMES.get(op))
    assert version in OPSET_VERSIONS[op]


#: The ops that only rearrange their data's elements.
PERMUTATIONS = ("Roll", "ShuffleChannels", "ReverseSequence", "DepthToSpace", "SpaceToDepth", "Reverse")


def test_builders_use_the_opset_versions() -> None:
    x = P([2, 4, 4, 4])
    layout = [opset.tile(x, [1, 2]), opset.roll(x, 1, 0), opset.depth_to_space(x, "blocks_first", 2),
              opset.space_to_depth(x, "depth_first", 2), opset.shuffle_channels(x, 1, 2),
              opset.reverse_sequence(x, [1, 2], 0, 1), opset.pad(x, [0] * 4, [0] * 4, "EDGE", version=1),
              opset.pad(x, [0] * 4, [0] * 4, "edge"), opset.slice(x, [0], [1], [1]),
              opset.slice_scatter(x, P([1, 4, 4, 4]), [0], [1], [1]),
              opset.batch_to_space(x, [1, 1, 1, 1], [0] * 4, [0] * 4),
              opset.space_to_batch(x, [1] * 4, [0] * 4, [0] * 4)]
    assert layout[6].attrs == {"pad_mode": "edge"}
    assert layout[8].get_input_size() == 5  # default axes added, as openvino.opset16.slice does
    assert layout[8].input_value(4).node.data.tolist() == [0]
    f, i = P([2, 3]), P([2, 3], Type.i32)
    indexed = [opset.gather_elements(f, i, 1), opset.gather_nd(f, P([2, 1], Type.i32), version=5),
               opset.gather_nd(f, P([2, 1], Type.i32)), opset.scatter_update(f, np.array([0]), P([2, 1]), np.int64(1)),
               opset.scatter_elements_update(f, i, f, 0, version=3), opset.scatter_elements_update(f, i, f, 0),
               opset.scatter_nd_update(f, np.array([[0]]), P([1, 3]), version=4),
               opset.scatter_nd_update(f, np.array([[0]]), P([1, 3])), opset.unique(f)]
    assert opset.scatter_nd_update(f, np.array([[0]]), P([1, 3]), "SUM").attrs["reduction"] == "sum"
    patches = opset.extract_image_patches(P([1, 1, 4, 4]), [2, 2], [1, 1], [1, 1], "VALID")
    assert patches.attrs["auto_pad"] == "valid"
    others = [opset.col2im(P([1, 4, 9]), [4, 4], [2, 2]),
              opset.gather_tree(P([2, 1, 2], Type.i32), P([2, 1, 2], Type.i32), P([1], Type.i32), P([], Type.i32)),
              patches, opset.reverse(x, [0], "index")]
    assert versions_of(layout + indexed + others) == CASE_KEYS

@pytest.mark.parametrize(("op", "version"), CASE_KEYS)
@CASE_SETTINGS
@given(data=st.data())
def test_cases_are_valid_and_run(op: str, version: int, data: st.DataObject) -> None:
    case = data.draw(case_strategy(op, version))
    node, outs = check_case_runs(case, op, version)
    for i, got in enumerate(outs):
        assert got.dtype == node.output(i).get_element_type().to_dtype()
    if op in ("GatherTree", "ExtractImagePatches"):
        for i, got in enumerate(outs):
            assert got.shape == node.output(i).get_partial_shape().to_shape()
    if op in ("Tile", "Roll", "DepthToSpace", "SpaceToDepth", "ShuffleChannels", "ReverseSequence", "Pad", "Slice",
              "SliceScatter", "BatchToSpace", "SpaceToBatch"):
        for value in case.inputs.values():
            if value.dtype == np.int64:  # OpenVINO CPU moves i64 as i32
                assert np.all(np.abs(value) < 2**31)
    if op in PERMUTATIONS:
        data_in = case.inputs["data"]
        assert sorted(outs[0].ravel().tolist()) == sorted(data_in.ravel().tolist())
    if op.startswith("Scatter") and node.attrs.get("reduction", "none") == "none":
        _assert_no_repeated_target(case, node)
    if op == "Col2Im":
        assert np.all(np.isfinite(outs[0].astype(np.float64)))


def _col2im_loop(x: np.ndarray, size: list[int], kernel: list[int], s: list[int], d: list[int], pb: list[int],
                 pe: list[int]) -> np.ndarray:
    n, ck, _ = x.shape
    c = ck // (kernel[0] * kernel[1])
    blocks = [(size[i] + pb[i] + pe[i] - (d[i] * (kernel[i] - 1) + 1)) // s[i] + 1 for i in range(2)]
    img = np.zeros((n, c, size[0], size[1]))
    for ch, ki, kj, bh, bw in np.ndindex(c, kernel[0], kernel[1], *blocks):
        r, q = bh * s[0] + ki * d[0] - pb[0], bw * s[1] + kj * d[1] - pb[1]
        if 0 <= r < size[0] and 0 <= q < size[1]:
            img[:, ch, r, q] += x[:, (ch * kernel[0] + ki) * kernel[1] + kj, bh * blocks[1] + bw]
    return img


@pytest.mark.parametrize(("size", "kernel", "s", "d", "pb", "pe"), [
    ([4, 4], [2, 2], [1, 1], [1, 1], [0, 0], [0, 0]), ([5, 6], [2, 3], [2, 1], [1, 2], [1, 0], [0, 1]),
    ([3, 7], [3, 1], [1, 2], [2, 1], [1, 1], [1, 0]),
])
def test_col2im_matches_a_loop(size: list[int], kernel: list[int], s: list[int], d: list[int], pb: list[int],
                               pe: list[int]) -> None:
    blocks = [(size[i] + pb[i] + pe[i] - (d[i] * (kernel[i] - 1) + 1)) // s[i] + 1 for i in range(2)]
    x = np.random.default_rng(9).uniform(-2, 2, (2, 2 * kernel[0] * kernel[1], blocks[0] * blocks[1]))
    got = run(lambda p: opset.col2im(p, size, kernel, s, d, pb, pe), x.astype(np.float32))
    assert out(opset.col2im(P(list(x.shape)), size, kernel, s, d, pb, pe)) == str(list(got.shape)).replace(" ", "")
    np.testing.assert_allclose(got, _col2im_loop(x, size, kernel, s, d, pb, pe), rtol=1e-5, atol=1e-6)
    unbatched = run(lambda p: opset.col2im(p, size, kernel, s, d, pb, pe), x[0].astype(np.float32))
    np.testing.assert_allclose(unbatched, got[0], rtol=1e-6)


def test_col2im_literal_and_errors() -> None:
    x = np.arange(1, 5, dtype=np.int32).reshape(1, 4, 1)  # one 2x2 block
    assert run(lambda p: opset.col2im(p, [2, 2], [2, 2]), x).tolist() == [[[[1, 2], [3, 4]]]]
    with pytest.raises(ValidationError, match=r"Col2Im-15 node.*dim -1 must be the number of blocks 9"):
        opset.col2im(P([1, 4, 8]), [4, 4], [2, 2])
    with pytest.raises(ValidationError, match=r"Col2Im-15 node.*dim -2 \(6\) is not a multiple of the kernel volume 4"):
        opset.col2im(P([1, 6, 9]), [4, 4], [2, 2])
    with pytest.raises(ValidationError, match=r"Col2Im-15 node.*rank 2 .* or 3"):
        opset.col2im(P([1, 1, 4, 9]), [4, 4], [2, 2])
    with pytest.raises(ValidationError, match=r"Col2Im-15 node.*'strides'=\[0, 1\] must be positive"):
        opset.col2im(P([1, 4, 9]), [4, 4], [2, 2], [0, 1])
    assert out(opset.col2im(P([1, 8, 9]), P([2], Type.i64), [2, 2])) == "[1,2,?,?]"


I32 = np.int32


def test_scatter_nd_update_4_is_the_opset4_layer_openvino_writes() -> None:
    data = P([2, 3])
    node = opset.scatter_nd_update(data, np.array([[1]]), P([1, 3], name="u"), version=4)
    xml, _ = serialize(Model([node], [data, node.input_value(2).node]))
    assert b'type="ScatterNDUpdate" version="opset4"' in xml


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
    (out,) = run_all(lambda d, i: opset.gather_elements(d, i, 1), data, np.array([[1, 1, 0], [1, 0, 1]], I32))
    assert out.tolist() == [[7, 7, 1], [3, 4, 3]]
    data = np.arange(9, dtype=np.int64).reshape(3, 3) + 1
    (out,) = run_all(lambda d, i: opset.gather_elements(d, i, 0), data, np.array([[1, 0, 1], [1, 2, 0]], I32))
    assert out.tolist() == [[4, 2, 6], [4, 8, 3]]
    rng = np.random.default_rng(1)
    x, idx = rng.standard_normal((3, 4, 2)).astype(np.float32), rng.integers(-4, 4, (3, 6, 2))
    (out,) = run_all(lambda d, i: opset.gather_elements(d, i, -2), x, idx)
    assert np.array_equal(out, np.take_along_axis(x, np.where(idx < 0, idx + 4, idx), axis=1))
    with pytest.raises(InferError, match=r"GatherElements-6 node.*index 2 at \[0, 1\] is out of range; allowed"):
        run_all(lambda d, i: opset.gather_elements(d, i, 1), data[:2, :2], np.array([[0, 2], [1, 1]], I32))


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
    assert run_all(lambda d, i: opset.gather_nd(d, i), data, np.array([[0, 0], [1, 0]], I32))[0].tolist() == [1, 3]
    assert run_all(lambda d, i: opset.gather_nd(d, i), data, np.array([[1], [0]], I32))[0].tolist() == [[3, 4], [1, 2]]
    assert run_all(lambda d, i: opset.gather_nd(d, i), data, np.array([[[1]], [[0]]], I32))[0].tolist() == \
        [[[3, 4]], [[1, 2]]]
    batched = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    idx = np.array([[[1], [0]], [[2], [-1]]], I32)  # batch_dims=1: rows of each batch
    v8 = run_all(lambda d, i: opset.gather_nd(d, i, 1), batched, idx)[0]
    assert v8.shape == (2, 2, 4) and np.array_equal(v8, np.stack([batched[0][[1, 0]], batched[1][[2, 2]]]))
    idx2 = np.array([[[1, 2]], [[0, 3]]], I32)  # two batch dims folded by GatherND-5
    v5 = run_all(lambda d, i: opset.gather_nd(d, i, 1, version=5), batched, idx2)[0]
    assert v5.tolist() == [[6], [15]]  # batched[0][1, 2], batched[1][0, 3]
    with pytest.raises(InferError, match=r"GatherND-8 node.*index 3 at \[1, 0\] is out of range; allowed \[-2, 1\]"):
        run_all(lambda d, i: opset.gather_nd(d, i), data, np.array([[0], [3]], I32))


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
    (out,) = run_all(lambda d, u: opset.scatter_update(d, np.array([2, 0]), u, np.int64(0)), data, upd)
    assert out.tolist() == [[5, 6, 7, 8], [0, 0, 0, 0], [1, 2, 3, 4]]
    upd2 = np.array([[[1, 2]], [[3, 4]], [[5, 6]]], np.int32)  # data[:1] + indices [1, 2] + data[2:] along axis 1
    (out,) = run_all(lambda d, u: opset.scatter_update(d, np.array([[3, -4]]), u, np.int64(-1)),
                 np.zeros((3, 4), np.int32), upd2)
    assert out.tolist() == [[2, 0, 0, 1], [4, 0, 0, 3], [6, 0, 0, 5]]
    with pytest.raises(InferError, match=r"ScatterUpdate-3 node.*index 3 .* out of range; allowed \[-3, 2\]"):
        run_all(lambda d, u: opset.scatter_update(d, np.array([3]), u, np.int64(0)), data, upd[:1])


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
    (out,) = run_all(_sce(reduction, init), SCE_DATA, SCE_IDX, SCE_UPD)
    np.testing.assert_allclose(out, np.array(expected, np.float32), rtol=1e-6)


def test_scatter_elements_update_none_2d_and_integers() -> None:
    data = np.zeros((3, 3), np.float32)
    idx = np.array([[1, 0, 2], [0, 2, 1]], I32)
    upd = np.array([[1.0, 1.1, 1.2], [2.0, 2.1, 2.2]], np.float32)
    (out,) = run_all(lambda d, i, u: opset.scatter_elements_update(d, i, u, np.int64(0), version=3), data, idx, upd)
    np.testing.assert_array_equal(out, np.array([[2.0, 1.1, 0.0], [1.0, 0.0, 2.2], [0.0, 2.1, 1.2]], np.float32))
    ints = np.array([[1, 2, 3]], np.int32)  # mean of integers rounds toward minus infinity
    (out,) = run_all(lambda d, i, u: opset.scatter_elements_update(d, i, u, np.int64(1), "mean"), ints,
                 np.array([[0, 0]], I32), np.array([[-4, 0]], np.int32))
    assert out.tolist() == [[-1, 2, 3]]  # (1 - 4 + 0) / 3 = -1
    smaller = run_all(lambda d, i, u: opset.scatter_elements_update(d, i, u, np.int64(1), "sum"),
                  np.ones((3, 3), np.float32), np.array([[2, 2, 2, 2]], I32), np.ones((1, 4), np.float32))[0]
    assert smaller.tolist() == [[1, 1, 5], [1, 1, 1], [1, 1, 1]]


def test_scatter_elements_update_low_precision_rounds_once() -> None:
    data = np.array([2048], np.float16)  # f16 spacing 2 there: 2048 + 1 + 1 rounds per step to 2048
    (out,) = run_all(_sce("sum"), data, np.array([0, 0], I32), np.array([1, 1], np.float16))
    assert out.dtype == np.float16 and out.tolist() == [2050]


def test_scatter_elements_update_errors() -> None:
    with pytest.raises(InferError, match=r"ScatterElementsUpdate-12 node.*index 4 at \[0\] is out of range"):
        run_all(_sce("sum"), SCE_DATA, np.array([4], I32), np.array([1], np.float32))
    with pytest.raises(InferError, match=r"indices \[1, 2\] is larger than data \[4, 1\] in dim 1, which is not the"):
        run_all(_sce("none"), np.zeros((4, 1), np.float32), np.zeros((1, 2), I32), np.zeros((1, 2), np.float32))


@pytest.mark.parametrize(("reduction", "expected"), [
    ("none", [[9, 9], [3, 4], [7, 7]]), ("sum", [[10, 11], [3, 4], [12, 13]]), ("sub", [[-8, -7], [3, 4], [-2, -1]]),
    ("prod", [[9, 18], [3, 4], [35, 42]]), ("min", [[1, 2], [3, 4], [5, 6]]), ("max", [[9, 9], [3, 4], [7, 7]]),
])
def test_scatter_nd_update_kernel(reduction: str, expected: list[list[int]]) -> None:
    data = np.array([[1, 2], [3, 4], [5, 6]], np.int32)
    idx = np.array([[0], [-1]], I32)
    upd = np.array([[9, 9], [7, 7]], np.int32)
    (out,) = run_all(lambda d, i, u: opset.scatter_nd_update(d, i, u, reduction), data, idx, upd)
    assert out.tolist() == expected


def test_scatter_nd_update_elements_and_duplicates() -> None:
    data = np.zeros((2, 3), np.float32)
    idx = np.array([[0, 1], [1, 2], [0, 1]], I32)
    upd = np.array([1, 2, 4], np.float32)
    (out,) = run_all(lambda d, i, u: opset.scatter_nd_update(d, i, u, "sum"), data, idx, upd)
    assert out.tolist() == [[0, 5, 0], [0, 0, 2]]
    (out,) = run_all(lambda d, i, u: opset.scatter_nd_update(d, i, u, "none"), data, idx[:2], upd[:2])
    assert out.tolist() == [[0, 1, 0], [0, 0, 2]]
    (out,) = run_all(lambda d, i, u: opset.scatter_nd_update(d, i, u, version=4), data, idx[:2], upd[:2])
    assert out.tolist() == [[0, 1, 0], [0, 0, 2]]
    with pytest.raises(InferError, match=r"ScatterNDUpdate-15 node.*index -3 at \[0, 0\] is out of range"):
        run_all(lambda d, i, u: opset.scatter_nd_update(d, i, u), data, np.array([[-3, 0]], I32), upd[:1])


def test_boolean_scatter_reductions_are_or_and_and() -> None:
    data = np.array([False, True, False], np.bool_)
    idx, upd = np.array([0, 0, 1], I32), np.array([True, False, False], np.bool_)
    assert run_all(_sce("sum"), data, idx, upd)[0].tolist() == [True, True, False]
    assert run_all(_sce("prod"), data, idx, upd)[0].tolist() == [False, False, False]
    assert run_all(_sce("max", False), data, idx, upd)[0].tolist() == [True, False, False]


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
    u, first, inverse, counts = run_all(lambda d: opset.unique(d, sorted=True), x)
    assert u.tolist() == [-1, 1, 2, 5] and first.tolist() == [0, 2, 1, 4]
    assert inverse.tolist() == [0, 2, 1, 2, 3, 0] and counts.tolist() == [2, 1, 2, 1]
    u, first, inverse, counts = run_all(lambda d: opset.unique(d, sorted=False, index_element_type="i32"), x)
    assert u.tolist() == [-1, 2, 1, 5] and first.tolist() == [0, 1, 2, 4] and first.dtype == np.int32
    assert inverse.tolist() == [0, 1, 2, 1, 3, 0] and counts.tolist() == [2, 2, 1, 1]
    assert np.array_equal(u[inverse], x.reshape(-1))


def test_unique_along_an_axis() -> None:
    x = np.array([[1, 2, 1, 0], [3, 4, 3, 9]], np.float32)
    u, first, inverse, counts = run_all(lambda d: opset.unique(d, np.int64(1), sorted=False), x)
    assert u.tolist() == [[1, 2, 0], [3, 4, 9]] and first.tolist() == [0, 1, 3]
    assert inverse.tolist() == [0, 1, 0, 2] and counts.tolist() == [2, 1, 1]
    u, first, inverse, counts = run_all(lambda d: opset.unique(d, np.int64(1), sorted=True), x)
    assert u.tolist() == [[0, 1, 2], [9, 3, 4]] and first.tolist() == [3, 0, 1] and counts.tolist() == [1, 2, 1]
    assert inverse.tolist() == [1, 2, 1, 0]
    u, *_ = run_all(lambda d: opset.unique(d, np.int64(0)), np.array([[2, 1], [1, 5], [2, 1]], np.int64))
    assert u.tolist() == [[1, 5], [2, 1]]


def test_unique_treats_negative_zero_as_zero() -> None:
    u, first, _, counts = run_all(lambda d: opset.unique(d, sorted=False), np.array([-0.0, 1.0, 0.0], np.float32))
    assert u.tolist() == [0.0, 1.0] and np.signbit(u[0]) and first.tolist() == [0, 1] and counts.tolist() == [2, 1]


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


I64 = np.int64
X34 = np.arange(1, 13, dtype=np.float32).reshape(3, 4)  # the specs' [[1..4], [5..8], [9..12]]


@pytest.mark.parametrize(("shape", "repeats", "expected"), [
    ([2, 3, 4], [1, 2, 3], "[2,6,12]"), ([2, 3, 4], [5, 1, 2, 3], "[5,2,6,12]"),
    ([5, 2, 3, 4], [1, 2, 3], "[5,2,6,12]"),
    ([], [2, 3], "[2,3]"), ([2, 3], [], "[2,3]"), ([-1, "2..4"], [2, 2], "[?,4..8]"), ("...", [2], "..."),
])
def test_tile_shapes(shape: Any, repeats: list[int], expected: str) -> None:
    assert out(opset.tile(P(shape), repeats)) == expected


def test_tile_with_repeats_unknown_at_build_time_and_errors() -> None:
    assert out(opset.tile(P([2, 3]), P([3], Type.i32))) == "[?,?,?]"
    with pytest.raises(ValidationError, match=r"Tile-1 node.*repeats \[1, -1\] has negative value"):
        opset.tile(P([2, 3]), [1, -1])
    with pytest.raises(ValidationError, match=r"Tile-1 node.*repeats \(input 1\) has shape \[1,2\]; it must have "
                                              r"rank 1"):
        opset.tile(P([2, 3]), np.array([[1, 2]]))
    with pytest.raises(ValidationError, match="repeats .* element type f32"):
        opset.tile(P([2, 3]), P([2]))


def test_roll_inference_and_errors() -> None:
    assert out(opset.roll(P([2, -1]), [1, 2], [0, 0])) == "[2,?]"
    with pytest.raises(ValidationError, match=r"Roll-7 node.*shift \(input 1\) has element type i8; it must be "
                                              r"i32 or i64"):
        opset.roll(P([2, 3]), np.array([1], np.int8), [0])
    with pytest.raises(ValidationError, match=r"Roll-7 node.*a 1D shift needs 1D axes of the same size"):
        opset.roll(P([2, 3]), [1, 2], [0])
    with pytest.raises(ValidationError, match="Roll-7 node.*axes value 2 is out of range for rank 2"):
        opset.roll(P([2, 3]), 1, [2])


@pytest.mark.parametrize(("builder", "shape", "bs", "expected"), [
    (opset.depth_to_space, [5, 28, 2, 3], 2, "[5,7,4,6]"), (opset.depth_to_space, [1, 16, 2, 1, 3], 2, "[1,2,4,2,6]"),
    (opset.depth_to_space, [2, -1, 3], 3, "[2,?,9]"), (opset.space_to_depth, [5, 7, 4, 6], 2, "[5,28,2,3]"),
    (opset.space_to_depth, [1, 2, 6], 3, "[1,6,2]"), (opset.space_to_depth, [1, 2, -1, 4], 2, "[1,8,?,2]"),
])
def test_depth_space_shapes(builder: Any, shape: list[Any], bs: int, expected: str) -> None:
    for mode in ("blocks_first", "depth_first"):
        assert out(builder(P(shape), mode, bs)) == expected


def test_depth_space_errors() -> None:
    with pytest.raises(ValidationError, match=r"DepthToSpace-1 node.*depth 12; it must divide by block_size\^2 = 16"):
        opset.depth_to_space(P([1, 12, 2, 2]), "blocks_first", 4)
    with pytest.raises(ValidationError, match=r"SpaceToDepth-1 node.*dim 3 = 5; spatial dims must divide by "
                                              r"block_size=2"):
        opset.space_to_depth(P([1, 1, 4, 5]), "blocks_first", 2)
    with pytest.raises(ValidationError, match="DepthToSpace-1 node.*rank >= 3"):
        opset.depth_to_space(P([2, 4]), "blocks_first", 2)
    with pytest.raises(ValidationError, match="SpaceToDepth-1 node.*block_size=0 must be a positive integer"):
        opset.space_to_depth(P([1, 1, 4]), "depth_first", 0)
    with pytest.raises(ValidationError, match="attribute 'mode'='columns_first' is not allowed; "
                                              "allowed: 'blocks_first'"):
        opset.depth_to_space(P([1, 4, 2]), "columns_first", 2)


def test_shuffle_channels_inference_and_errors() -> None:
    assert out(opset.shuffle_channels(P([2, 6, -1]), -2, 3)) == "[2,6,?]"
    with pytest.raises(ValidationError, match="ShuffleChannels-1 node.*channel dim 6; it must divide by group=4"):
        opset.shuffle_channels(P([2, 6]), 1, 4)
    with pytest.raises(ValidationError, match="ShuffleChannels-1 node.*attribute axis 2 is out of range for rank 2"):
        opset.shuffle_channels(P([2, 6]), 2, 1)
    with pytest.raises(ValidationError, match="ShuffleChannels-1 node.*group=0 must be a positive integer"):
        opset.shuffle_channels(P([2, 6]), 1, 0)
    with pytest.raises(ValidationError, match="ShuffleChannels-1 node.*rank >= 1"):
        opset.shuffle_channels(P([]), 0, 1)


def test_reverse_sequence_inference_and_errors() -> None:
    assert out(opset.reverse_sequence(P([-1, 10, 3]), P([4], Type.f32), 0, -2)) == "[4,10,3]"
    node = opset.reverse_sequence(P([2, 3]), np.array([1.0, 3.0], np.float16), 0, 1)
    assert node.get_input_element_type(1) == Type.f16
    with pytest.raises(ValidationError, match="seq_lengths .* must be integers"):
        opset.reverse_sequence(P([2, 3]), [1.5, 2.0], 0, 1)
    with pytest.raises(ValidationError, match="ReverseSequence-1 node.*batch_axis=1 and seq_axis=-2 name the same dim"):
        opset.reverse_sequence(P([2, 3, 4]), [1, 1, 1], 1, -2)
    with pytest.raises(ValidationError, match=r"ReverseSequence-1 node.*seq_lengths has shape \[3\]; it needs data dim "
                                              r"batch_axis=0 \(2\) elements"):
        opset.reverse_sequence(P([2, 3]), [1, 1, 1], 0, 1)
    with pytest.raises(ValidationError, match="ReverseSequence-1 node.*element type boolean; it must be numeric"):
        opset.reverse_sequence(P([2, 3]), P([2], Type.boolean), 0, 1)
    with pytest.raises(ValidationError, match=r"ReverseSequence-1 node.*data has shape \[3\]; it must have rank >= 2"):
        opset.reverse_sequence(P([3]), [1, 1, 1], 0, 1)


@pytest.mark.parametrize(("shape", "begin", "end", "mode", "expected"), [
    ([1, 3, 32, 40], [0, 5, 2, 1], [1, 0, 3, 7], "constant", "[2,8,37,48]"),
    ([2, 3, 32, 40], [0, -2, -8, 1], [-1, 4, -6, 7], "constant", "[1,5,18,48]"),
    ([3, 4], [-3, 0], [-1, 0], "edge", "[0,4]"),  # max(..., 0)
    ([-1, "2..5"], [1, -1], [1, 3], "reflect", "[2..,4..7]"),
    ([3, 4], [2, 4], [2, 4], "symmetric", "[7,12]"),
])
def test_pad_shapes(shape: Any, begin: list[int], end: list[int], mode: str, expected: str) -> None:
    assert out(opset.pad(P(shape), begin, end, mode)) == expected


def test_pad_with_pads_unknown_at_build_time() -> None:
    assert out(opset.pad(P([2, 3]), P([2], Type.i64), P([2], Type.i32), "constant")) == "[?,?]"
    assert out(opset.pad(P("..."), P([3], Type.i64), [0, 0, 0], "edge")) == "[?,?,?]"


def test_pad_errors() -> None:
    x = P([3, 4])
    with pytest.raises(ValidationError, match=r"Pad-1 node.*negative value\(s\) \[-1\]; Pad-1 needs pads >= 0"):
        opset.pad(x, [0, -1], [0, 0], "constant", version=1)
    with pytest.raises(ValidationError, match="Pad-12 node.*pad 3 on dim 0 \\(size 3\\) is too large for pad_mode="
                                              "'reflect'; allowed at most 2"):
        opset.pad(x, [3, 0], [0, 0], "reflect")
    with pytest.raises(ValidationError, match=r"pad 5 on dim 1 \(size 4\) is too large for "
                                              r"pad_mode='symmetric'; allowed at most 4"):
        opset.pad(x, [0, 0], [0, 5], "symmetric")
    with pytest.raises(ValidationError, match="Pad-12 node.*pad_value has element type i32; it must match data"):
        opset.pad(x, [0, 0], [0, 0], "constant", P([], Type.i32))
    with pytest.raises(ValidationError, match=r"pad_value has shape \[1\]; it must be a scalar"):
        opset.pad(x, [0, 0], [0, 0], "constant", P([1]))
    with pytest.raises(ValidationError, match=r"pads_begin has 3 value\(s\); data \[3,4\] has rank 2"):
        opset.pad(x, [0, 0, 0], [0, 0], "constant")
    with pytest.raises(ValidationError, match="attribute 'pad_mode'='wrap' is not allowed"):
        opset.pad(x, [0, 0], [0, 0], "wrap")
    with pytest.raises(ValidationError, match="'edge'; allowed at most 0"):
        opset.pad(P([0, 2]), [1, 0], [0, 0], "edge")


@pytest.mark.parametrize(("shape", "start", "stop", "step", "axes", "expected"), [
    ([10], [1], [8], [1], [0], "[7]"), ([10], [9], [-11], [-2], [0], "[5]"), ([10], [100], [-100], [-1], None, "[10]"),
    ([2, 5], [0, 1], [2, 4], [1, 2], None, "[2,2]"), ([20, 10, 5], [0, 0], [4, 10], [1, 1], [0, 1], "[4,10,5]"),
    ([4, 6], [1], [2**31 - 1], [2], [-1], "[4,3]"), ([4, -1], [1], [3], [1], [1], "[4,0..2]"),
    ([4, "2..8"], [-1], [-100], [-3], [1], "[4,1..3]"),
])
def test_slice_shapes(shape: Any, start: Any, stop: Any, step: Any, axes: Any, expected: str) -> None:
    assert out(opset.slice(P(shape), start, stop, step, axes)) == expected


def test_slice_with_values_unknown_at_build_time() -> None:
    assert out(opset.slice(P([4, 6]), P([1], Type.i64), [3], [1], [1])) == "[4,0..6]"
    assert out(opset.slice(P([4, 6]), [1], [3], [1], P([1], Type.i32))) == "[0..4,0..6]"


def test_slice_errors() -> None:
    x = P([4, 6])
    with pytest.raises(ValidationError, match=r"Slice-8 node.*step \[0\] has a zero; steps must be non-zero"):
        opset.slice(x, [0], [2], [0])
    with pytest.raises(ValidationError, match=r"Slice-8 node.*axes \[1, -1\] repeat an axis"):
        opset.slice(x, [0, 0], [1, 1], [1, 1], [1, -1])
    with pytest.raises(ValidationError, match=r"start, stop, step and axes must have the same number of values; "
                                              r"got \[2, 1, 1, 1\]"):
        opset.slice(x, [0, 0], [1], [1], [0])
    with pytest.raises(ValidationError, match=r"the slice spec has 3 value\(s\); data \[4,6\] has rank 2"):
        opset.slice(x, [0] * 3, [1] * 3, [1] * 3)
    with pytest.raises(ValidationError, match=r"data has shape \[\]; it must have rank >= 1"):
        opset.slice(P([]), [0], [1], [1])


def test_slice_scatter_inference_and_errors() -> None:
    node = opset.slice_scatter(P([3, 5]), P([3, 3]), [-25], [25], [2], [1])
    assert out(node) == "[3,5]"
    with pytest.raises(ValidationError, match=r"SliceScatter-15 node.*updates has shape \[3,2\]; the slice of data "
                                              r"\[3,5\] has shape \[3,3\]"):
        opset.slice_scatter(P([3, 5]), P([3, 2]), [0], [5], [2], [1])
    with pytest.raises(ValidationError, match="SliceScatter-15 node.*updates has element type f16; it must match"):
        opset.slice_scatter(P([3, 5]), P([3, 5], Type.f16), [0], [5], [1])


@pytest.mark.parametrize(("builder", "shape", "block", "begin", "end", "expected"), [
    (opset.batch_to_space, [10, 2], [1, 5], [0, 2], [0, 0], "[2,8]"),
    (opset.batch_to_space, [48, 3, 3, 1, 3], [1, 2, 4, 3, 1], [0, 0, 1, 0, 0], [0, 0, 1, 0, 0], "[2,6,10,3,3]"),
    (opset.batch_to_space, [-1, 3], [1, 2], [0, 1], [0, 0], "[?,5]"),
    (opset.space_to_batch, [2, 6, 10, 3, 3], [1, 2, 4, 3, 1], [0, 0, 1, 0, 0], [0, 0, 1, 0, 0], "[48,3,3,1,3]"),
    (opset.space_to_batch, ["1..3", 4], [1, 2], [0, 1], [0, 1], "[2..6,3]"),
])
def test_batch_space_shapes(builder: Any, shape: Any, block: Any, begin: Any, end: Any, expected: str) -> None:
    assert out(builder(P(shape), block, begin, end)) == expected


def test_batch_space_errors() -> None:
    x = P([4, 4])
    with pytest.raises(ValidationError, match=r"BatchToSpace-2 node.*block_shape \[2, 2\] must start with 1"):
        opset.batch_to_space(x, [2, 2], [0, 0], [0, 0])
    with pytest.raises(ValidationError, match=r"SpaceToBatch-2 node.*pads_begin \[1, 0\] must start with 0"):
        opset.space_to_batch(x, [1, 2], [1, 0], [0, 0])
    with pytest.raises(ValidationError, match=r"crops_end \[0, -1\] must hold values >= 0"):
        opset.batch_to_space(x, [1, 2], [0, 0], [0, -1])
    with pytest.raises(ValidationError, match="BatchToSpace-2 node.*batch 4; it must divide by the product of "
                                              "block_shape"):
        opset.batch_to_space(x, [1, 3], [0, 0], [0, 0])
    with pytest.raises(ValidationError, match=r"crops 9 on dim 1 exceed its size 8"):
        opset.batch_to_space(x, [1, 2], [0, 4], [0, 5])
    with pytest.raises(ValidationError, match=r"padded dim 1 \(4 \+ 0 \+ 1 = 5\) must divide by block_shape\[1\]=2"):
        opset.space_to_batch(x, [1, 2], [0, 0], [0, 1])
    with pytest.raises(ValidationError, match="must share one element type"):
        opset.space_to_batch(x, np.array([1, 2], np.int32), [0, 0], [0, 0])
    with pytest.raises(ValidationError, match=r"block_shape has 3 value\(s\); data \[4,4\] has rank 2"):
        opset.batch_to_space(x, [1, 1, 1], [0, 0, 0], [0, 0, 0])
    assert out(opset.space_to_batch(x, P([2], Type.i64), [0, 0], [0, 0])) == "[?,?]"


# -- kernels: Tile, Roll ---------------------------------------------------------------------------------

@pytest.mark.parametrize("repeats", [[2], [1, 3], [2, 1, 2], [3, 1, 1, 2], []])
def test_tile_matches_numpy(repeats: list[int]) -> None:
    x = np.array([[1, 2, 3], [4, 5, 6]], np.int8)
    got = run(lambda p: opset.tile(p, repeats), x)
    assert got.dtype == np.int8 and got.tolist() == np.tile(x, repeats).tolist()


def test_tile_runtime_repeats_and_errors() -> None:
    assert run(opset.tile, np.array(7.5, np.float32), np.array([2, 1], I64)).tolist() == [[7.5], [7.5]]
    assert run(opset.tile, np.array([True, False]), np.array([0], np.int32)).shape == (0,)
    with pytest.raises(InferError, match=r"Tile-1 node .*repeats \[2, -1\] has a negative value"):
        run(opset.tile, np.ones((2, 2), np.float32), np.array([2, -1], I64))


X43 = np.arange(1, 13, dtype=np.float32).reshape(4, 3)


@pytest.mark.parametrize(("shift", "axes", "want"), [  # the examples of the Roll-7 spec
    (1, 0, [[10, 11, 12], [1, 2, 3], [4, 5, 6], [7, 8, 9]]),
    ([-1, 2], [0, 1], [[5, 6, 4], [8, 9, 7], [11, 12, 10], [2, 3, 1]]),
    ([1, 2, 1], [0, 1, 0], [[8, 9, 7], [11, 12, 10], [2, 3, 1], [5, 6, 4]]),
    (7, [-2, -1], [[6, 4, 5], [9, 7, 8], [12, 10, 11], [3, 1, 2]]),
])
def test_roll_spec_examples(shift: Any, axes: Any, want: list[list[int]]) -> None:
    assert run(lambda p: opset.roll(p, np.asarray(shift, I64), np.asarray(axes, I64)), X43).tolist() == want


def test_roll_runtime_inputs_and_errors() -> None:
    got = run(opset.roll, np.arange(6, dtype=np.uint8), np.array(-2, np.int32), np.array([0], np.int32))
    assert got.tolist() == [2, 3, 4, 5, 0, 1]
    with pytest.raises(InferError, match="Roll-7 node.*axes 2 is out of range for rank 2"):
        run(opset.roll, X43, np.array([1], I64), np.array([2], I64))


# -- kernels: DepthToSpace, SpaceToDepth, ShuffleChannels -----------------------------------------------------

def _d2s_by_element(x: np.ndarray, bs: int, blocks_first: bool) -> np.ndarray:
    """DepthToSpace of a 4D input, one element at a time from the spec's depth split."""
    n, c, h, w = x.shape
    nc = c // (bs * bs)
    y = np.zeros((n, nc, h * bs, w * bs), x.dtype)
    for b in range(n):
        for k in range(nc):
            for i in range(h * bs):
                for j in range(w * bs):
                    bi, bj = i % bs, j % bs
                    src = (bi * bs + bj) * nc + k if blocks_first else k * bs * bs + bi * bs + bj
                    y[b, k, i, j] = x[b, src, i // bs, j // bs]
    return y


@pytest.mark.parametrize("mode", ["blocks_first", "depth_first"])
@pytest.mark.parametrize("bs", [1, 2, 3])
def test_depth_to_space_matches_the_element_formula(mode: str, bs: int) -> None:
    x = np.arange(2 * 2 * bs * bs * 2 * 3, dtype=np.int32).reshape(2, 2 * bs * bs, 2, 3)
    want = _d2s_by_element(x, bs, mode == "blocks_first")
    assert run(lambda p: opset.depth_to_space(p, mode, bs), x).tolist() == want.tolist()
    back = run(lambda p: opset.space_to_depth(p, mode, bs), want)
    assert back.tolist() == x.tolist()  # SpaceToDepth undoes DepthToSpace in the same mode


def test_depth_space_literals_and_other_ranks() -> None:
    x = np.arange(8, dtype=np.float32).reshape(1, 8, 1)
    assert run(lambda p: opset.depth_to_space(p, "blocks_first", 2), x).ravel().tolist() == [0, 4, 1, 5, 2, 6, 3, 7]
    assert run(lambda p: opset.depth_to_space(p, "depth_first", 2), x).ravel().tolist() == list(range(8))
    y = np.arange(16, dtype=np.float16).reshape(1, 2, 2, 2, 2)
    for mode in ("blocks_first", "depth_first"):
        z = run(lambda p, m=mode: opset.space_to_depth(p, m, 2), y)
        assert z.shape == (1, 16, 1, 1, 1)
        assert run(lambda p, m=mode: opset.depth_to_space(p, m, 2), z).tolist() == y.tolist()
    bf = run(lambda p: opset.space_to_depth(p, "blocks_first", 2), y).ravel().tolist()
    assert bf == [0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15]  # block offsets outer, channel inner


def test_shuffle_channels_spec_example_and_axes() -> None:
    x = np.arange(24, dtype=np.float32).reshape(1, 6, 2, 2)
    got = run(lambda p: opset.shuffle_channels(p, 1, 3), x)
    assert got[0, :, 0, 0].tolist() == [0, 8, 16, 4, 12, 20]
    assert got.tolist() == x[:, [0, 2, 4, 1, 3, 5]].tolist()
    v = np.arange(6, dtype=np.int64)
    assert run(lambda p: opset.shuffle_channels(p, -1, 2), v).tolist() == [0, 3, 1, 4, 2, 5]
    b = np.array([[True, False, False, True]])
    assert run(lambda p: opset.shuffle_channels(p, 1, 2), b).tolist() == [[True, False, False, True]]


# -- kernels: ReverseSequence ------------------------------------------------------------------------

X44 = np.arange(16, dtype=np.float32).reshape(4, 4)


def test_reverse_sequence_examples() -> None:
    got = run(lambda p: opset.reverse_sequence(p, np.array([1, 2, 3, 4], I64), 0, 1), X44)
    assert got.tolist() == [[0, 1, 2, 3], [5, 4, 6, 7], [10, 9, 8, 11], [15, 14, 13, 12]]
    got = run(lambda p: opset.reverse_sequence(p, np.array([4, 3, 2, 1], np.int32), 1, 0), X44.T.copy())
    assert got.tolist() == [[3, 6, 9, 12], [2, 5, 8, 13], [1, 4, 10, 14], [0, 7, 11, 15]]


def test_reverse_sequence_matches_a_loop() -> None:
    rng = np.random.default_rng(3)
    x = rng.integers(-100, 100, (3, 4, 5)).astype(np.int8)
    lengths = np.array([5, 1, 0, 3], np.float32)  # float lengths: the spec allows any numeric type
    want = x.copy()
    for i, n in enumerate(lengths.astype(int)):
        want[:, i, :n] = x[:, i, :n][:, ::-1]
    assert run(lambda p, q: opset.reverse_sequence(p, q, -2, 2), x, lengths).tolist() == want.tolist()


def test_reverse_sequence_bad_lengths_at_run_time() -> None:
    with pytest.raises(InferError, match=r"ReverseSequence-1 node.*seq_lengths value 5 is not allowed; lengths are "
                                         r"whole numbers in \[1, 4\]"):
        run(lambda p, q: opset.reverse_sequence(p, q, 0, 1), X44, np.array([1, 5, 1, 1], np.int32))
    with pytest.raises(InferError, match="seq_lengths value 1.5 is not allowed"):
        run(lambda p, q: opset.reverse_sequence(p, q, 0, 1), X44, np.array([1, 1.5, 1, 1], np.float32))


# -- kernels: Pad --------------------------------------------------------------------------------------

PAD_SPEC = {  # pads_begin [0, 1], pads_end [2, 3] over X34, from the Pad-1/12 specs
    "constant": [[0, 1, 2, 3, 4, 0, 0, 0], [0, 5, 6, 7, 8, 0, 0, 0], [0, 9, 10, 11, 12, 0, 0, 0], [0] * 8, [0] * 8],
    "edge": [[1, 1, 2, 3, 4, 4, 4, 4], [5, 5, 6, 7, 8, 8, 8, 8], [9, 9, 10, 11, 12, 12, 12, 12],
             [9, 9, 10, 11, 12, 12, 12, 12], [9, 9, 10, 11, 12, 12, 12, 12]],
    "reflect": [[2, 1, 2, 3, 4, 3, 2, 1], [6, 5, 6, 7, 8, 7, 6, 5], [10, 9, 10, 11, 12, 11, 10, 9],
                [6, 5, 6, 7, 8, 7, 6, 5], [2, 1, 2, 3, 4, 3, 2, 1]],
    "symmetric": [[1, 1, 2, 3, 4, 4, 3, 2], [5, 5, 6, 7, 8, 8, 7, 6], [9, 9, 10, 11, 12, 12, 11, 10],
                  [9, 9, 10, 11, 12, 12, 11, 10], [5, 5, 6, 7, 8, 8, 7, 6]],
}
PAD_MIXED = {  # pads_begin [2, -1], pads_end [-1, 3], from the Pad-12 spec
    "constant": [[0] * 6, [0] * 6, [2, 3, 4, 0, 0, 0], [6, 7, 8, 0, 0, 0]],
    "edge": [[2, 3, 4, 4, 4, 4], [2, 3, 4, 4, 4, 4], [2, 3, 4, 4, 4, 4], [6, 7, 8, 8, 8, 8]],
    "reflect": [[10, 11, 12, 11, 10, 9], [6, 7, 8, 7, 6, 5], [2, 3, 4, 3, 2, 1], [6, 7, 8, 7, 6, 5]],
    "symmetric": [[6, 7, 8, 8, 7, 6], [2, 3, 4, 4, 3, 2], [2, 3, 4, 4, 3, 2], [6, 7, 8, 8, 7, 6]],
}


@pytest.mark.parametrize("mode", list(PAD_SPEC))
@pytest.mark.parametrize("version", [1, 12])
def test_pad_spec_examples(mode: str, version: int) -> None:
    got = run(lambda p: opset.pad(p, [0, 1], [2, 3], mode, version=version), X34)
    assert got.dtype == np.float32 and got.tolist() == PAD_SPEC[mode]


@pytest.mark.parametrize("mode", list(PAD_MIXED))
def test_pad_12_negative_pads_spec_examples(mode: str) -> None:
    assert run(lambda p: opset.pad(p, [2, -1], [-1, 3], mode), X34).tolist() == PAD_MIXED[mode]
    assert run(lambda p: opset.pad(p, [-1, -1], [-1, -1], mode), X34).tolist() == [[6, 7]]


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric"])
def test_pad_matches_numpy(mode: str) -> None:
    rng = np.random.default_rng(5)
    x = rng.integers(0, 255, (3, 4, 2)).astype(np.uint8)
    pads = [(2, 1), (0, 3), (1, 1)]
    want = np.pad(x, pads, mode=mode)
    got = run(lambda p: opset.pad(p, [a for a, _ in pads], [b for _, b in pads], mode, version=1), x)
    assert got.tolist() == want.tolist()


def test_pad_value_scalars_and_types() -> None:
    x = np.array([True, False])
    assert run(lambda p, v: opset.pad(p, [1], [2], "constant", v), x, np.array(True)).tolist() == [
        True, True, False, True, True]
    assert run(lambda p: opset.pad(p, [1], [0], "constant", np.int64(-7)), np.array([3], I64)).tolist() == [-7, 3]
    assert run(lambda p: opset.pad(p, [1], [0], "edge", np.float16(9)), np.array([3], np.float16)).tolist() == [3, 3]
    assert run(lambda p: opset.pad(p, [], [], "reflect"), np.array(4.5, np.float32)).tolist() == 4.5
    assert run(lambda p: opset.pad(p, [-3], [1], "constant"), np.array([1, 2], np.int32)).tolist() == []


def test_pad_errors_at_run_time() -> None:
    with pytest.raises(InferError, match=r"Pad-12 node.*pads \(3, 0\) on dim 0 of size 3 are too large for "
                                         r"pad_mode='reflect' \(pad <= n - 1\)"):
        run(lambda p, a, b: opset.pad(p, a, b, "reflect"), X34, np.array([3, 0], I64), np.array([0, 0], I64))
    with pytest.raises(InferError, match="Pad-1 node.*negative value; Pad-1 needs pads >= 0"):
        run(lambda p, a, b: opset.pad(p, a, b, "constant", version=1), X34, np.array([-1, 0], I64),
            np.array([0, 0], I64))


# -- kernels: Slice, SliceScatter ----------------------------------------------------------------------------

R10 = np.arange(10, dtype=np.float32)
SS = np.arange(10, dtype=np.float32).reshape(2, 5)


@pytest.mark.parametrize(("start", "stop", "step", "want"), [  # the Slice-8 spec examples on [0..9]
    (1, 8, 1, [1, 2, 3, 4, 5, 6, 7]), (1, 8, 2, [1, 3, 5, 7]), (-100, 100, 1, list(range(10))),
    (9, -11, -1, list(range(9, -1, -1))), (9, 0, -1, list(range(9, 0, -1))), (9, -10, -1, list(range(9, 0, -1))),
    (9, -11, -2, [9, 7, 5, 3, 1]), (100, -100, -1, list(range(9, -1, -1))), (-7, -9, -1, [3, 2]),
    (-12, -14, -1, []),
    (2**31 - 1, -(2**31), -3, [9, 6, 3, 0]),
])
def test_slice_spec_examples(start: int, stop: int, step: int, want: list[int]) -> None:
    got = run(lambda p: opset.slice(p, [start], [stop], [step], [0]), R10)
    assert got.tolist() == want
    runtime = run(lambda p, a, b, c: opset.slice(p, a, b, c), R10, *(np.array([v], I64) for v in (start, stop, step)))
    assert runtime.tolist() == want  # the same with every index input a Parameter (4 inputs: default axes)


def test_slice_without_axes_input() -> None:
    """A 4-input Slice (an IR may omit axes) slices the first len(start) axes."""
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    params = [P([2, 3, 4], name="x"), *(P([2], Type.i32, name=n) for n in ("start", "stop", "step"))]
    node = make_node("Slice", 8, [p.output(0) for p in params], {})
    assert node.get_input_size() == 4 and out(node) == "[0..2,0..3,4]"
    values = [x, np.array([1, -1], np.int32), np.array([2, -4], np.int32), np.array([1, -2], np.int32)]
    (got,) = evaluate(Model([node.output(0)], params), values)
    assert got.tolist() == x[1:2, -1:-4:-2].tolist()


def test_slice_matches_numpy_on_several_axes() -> None:
    x = np.arange(2 * 5 * 4, dtype=np.int32).reshape(2, 5, 4)
    got = run(lambda p: opset.slice(p, [3, 0], [-6, 1], [-2, 1], [-2, 0]), x)
    assert got.tolist() == x[0:1, 3:-6:-2].tolist()
    assert run(lambda p: opset.slice(p, [0, 1], [2, 4], [1, 2]), x[0]).tolist() == x[0][0:2, 1:4:2].tolist()


def test_slice_errors_at_run_time() -> None:
    with pytest.raises(InferError, match=r"Slice-8 node.*step \[0\] has a zero"):
        run(lambda p, a: opset.slice(p, [0], [2], a), R10, np.array([0], I64))
    with pytest.raises(InferError, match=r"axes \[0, -2\] repeat an axis"):
        run(lambda p, a: opset.slice(p, [0, 0], [2, 2], [1, 1], a), SS, np.array([0, -2], I64))


def test_slice_scatter_spec_examples() -> None:
    got = run(lambda p, u: opset.slice_scatter(p, u, [0], [1], [1], [0]), SS, np.array([[10, 20, 30, 40, 50]],
                                                                                        np.float32))
    assert got.tolist() == [[10, 20, 30, 40, 50], [5, 6, 7, 8, 9]]
    got = run(lambda p, u: opset.slice_scatter(p, u, [-25], [25], [2], [1]), SS,
              np.array([[10, 20, 30], [40, 50, 60]], np.float32))
    assert got.tolist() == [[10, 1, 20, 3, 30], [40, 6, 50, 8, 60]]
    x3 = np.arange(15, dtype=np.int32).reshape(3, 5)
    got = run(lambda p, u: opset.slice_scatter(p, u, [0, 1], [3, 5], [2, 2]), x3, np.array([[50, 60], [70, 80]],
                                                                                          np.int32))
    assert got.tolist() == [[0, 50, 2, 60, 4], [5, 6, 7, 8, 9], [10, 70, 12, 80, 14]]


def test_slice_scatter_backward_and_runtime_errors() -> None:
    x = np.zeros(6, np.uint8)
    got = run(lambda p, u: opset.slice_scatter(p, u, [-1], [-100], [-2]), x, np.array([1, 2, 3], np.uint8))
    assert got.tolist() == [0, 3, 0, 2, 0, 1]
    with pytest.raises(InferError, match=r"SliceScatter-15 node.*updates has shape \[2\]; the slice has shape \[3\]"):
        run(lambda p, u, a: opset.slice_scatter(p, u, a, [6], [2]), x, np.ones(2, np.uint8), np.array([0], I64))


# -- kernels: BatchToSpace, SpaceToBatch ---------------------------------------------------------------------

def test_space_to_batch_tensorflow_example() -> None:
    x = np.array([[[[1], [2]], [[3], [4]]]], np.float32)  # tf.space_to_batch_nd example, NHWC
    got = run(lambda p: opset.space_to_batch(p, [1, 2, 2, 1], [0] * 4, [0] * 4), x)
    assert got.shape == (4, 1, 1, 1) and got.ravel().tolist() == [1, 2, 3, 4]
    assert run(lambda p: opset.batch_to_space(p, [1, 2, 2, 1], [0] * 4, [0] * 4), got).tolist() == x.tolist()


def _s2b_by_element(x: np.ndarray, block: list[int], begin: list[int], end: list[int]) -> np.ndarray:
    """SpaceToBatch of a 3D input element by element: output batch (b1 * B2 + b2) * batch + n."""
    xp = np.pad(x, list(zip(begin, end, strict=True)))
    n, h, w = xp.shape
    _, bh, bw = block
    y = np.zeros((n * bh * bw, h // bh, w // bw), x.dtype)
    for b1 in range(bh):
        for b2 in range(bw):
            for k in range(n):
                for i in range(h // bh):
                    for j in range(w // bw):
                        y[(b1 * bw + b2) * n + k, i, j] = xp[k, i * bh + b1, j * bw + b2]
    return y


@pytest.mark.parametrize(("block", "begin", "end"), [([1, 2, 3], [0, 1, 0], [0, 1, 2]), ([1, 1, 2], [0, 0, 1],
                                                                                         [0, 0, 1])])
def test_space_to_batch_matches_the_element_formula_and_batch_to_space_undoes_it(block: list[int], begin: list[int],
                                                                                 end: list[int]) -> None:
    x = np.arange(1, 2 * 4 * 4 + 1, dtype=np.int64).reshape(2, 4, 4)
    want = _s2b_by_element(x, block, begin, end)
    got = run(lambda p: opset.space_to_batch(p, block, begin, end), x)
    assert got.tolist() == want.tolist()
    assert run(lambda p: opset.batch_to_space(p, block, begin, end), got).tolist() == x.tolist()


def test_batch_to_space_crops_and_runtime_errors() -> None:
    x = np.arange(10, dtype=np.float32).reshape(10, 1)
    got = run(lambda p: opset.batch_to_space(p, [1, 5], [0, 2], [0, 1]), x)
    assert got.tolist() == [[4, 6], [5, 7]]  # rows [0, 2, 4, 6, 8] and [1, 3, 5, 7, 9] cropped to [2:4]
    with pytest.raises(InferError, match="BatchToSpace-2 node.*batch 10 does not divide by the product"):
        run(lambda p, b: opset.batch_to_space(p, b, [0, 0], [0, 0]), x, np.array([1, 3], I64))
    with pytest.raises(InferError, match=r"SpaceToBatch-2 node.*block_shape \[2, 1\] must hold values >= 1 and start "
                                         r"with 1"):
        run(lambda p, b: opset.space_to_batch(p, b, [0, 0], [0, 0]), x, np.array([2, 1], I64))
    with pytest.raises(InferError, match=r"padded dims \[10, 3\] must divide by block_shape \[1, 2\]"):
        run(lambda p, e: opset.space_to_batch(p, [1, 2], [0, 0], e), x, np.array([0, 2], I64))


def naive_gather_tree(steps: np.ndarray, parents: np.ndarray, lengths: np.ndarray, end: Any) -> np.ndarray:
    """The spec's pseudo-code, element by element."""
    time, batch, width = steps.shape
    out = np.full_like(steps, end)
    for b, k in itertools.product(range(batch), range(width)):
        n = min(time, int(lengths[b]))
        parent = int(parents[n - 1, b, k])
        out[n - 1, b, k] = steps[n - 1, b, k]
        for level in reversed(range(n - 1)):
            out[level, b, k] = steps[level, b, parent]
            parent = int(parents[level, b, parent])
        finished = False
        for t in range(n):
            if finished:
                out[t, b, k] = end
            elif out[t, b, k] == end:
                finished = True
    return out


def test_gather_tree_literal() -> None:
    steps = np.array([[[1, 2, 3]], [[4, 5, 6]], [[7, 8, 9]]], np.int32)
    parents = np.array([[[0, 0, 0]], [[0, 1, 1]], [[2, 1, 2]]], np.int32)
    (out,) = run_all(opset.gather_tree, steps, parents, np.array([3], np.int32), np.array(10, np.int32))
    assert out[:, 0, :].T.tolist() == [[2, 6, 7], [2, 5, 8], [2, 6, 9]]


@given(seed=st.integers(0, 2**31), dt=st.sampled_from([np.int32, np.float32]))
@seeded(15)
def test_gather_tree_matches_the_spec_pseudocode(seed: int, dt: type) -> None:
    rng = np.random.default_rng(seed)
    time, batch, width = rng.integers(1, 6), rng.integers(1, 4), rng.integers(1, 4)
    steps = rng.integers(0, 5, (time, batch, width)).astype(dt)
    parents = rng.integers(0, width, (time, batch, width)).astype(dt)
    lengths = rng.integers(1, time + 1, batch).astype(dt)
    end = np.array(rng.integers(0, 5), dt)
    (out,) = run_all(opset.gather_tree, steps, parents, lengths, end)
    np.testing.assert_array_equal(out, naive_gather_tree(steps, parents, lengths, end))


def test_gather_tree_bad_parent_is_an_infer_error() -> None:
    steps = np.zeros((2, 1, 2), np.int32)
    parents = np.array([[[0, 0]], [[5, 0]]], np.int32)
    with pytest.raises(InferError, match=r"GatherTree-1 node .*parent_idx\[1, 0, 0\] = 5 is out of range"):
        run_all(opset.gather_tree, steps, parents, np.array([2], np.int32), np.array(9, np.int32))


@pytest.mark.parametrize(("make", "message"), [
    (lambda: opset.gather_tree(P([2, 1, 2], Type.i32), P([2, 1, 2], Type.f32), P([1], Type.i32), P([], Type.i32)),
     "parent_idx .input 1. has element type f32"),
    (lambda: opset.gather_tree(P([2, 1, 2], Type.i32), P([2, 1, 3], Type.i32), P([1], Type.i32), P([], Type.i32)),
     "must have the same shape"),
    (lambda: opset.gather_tree(P([2, 1], Type.i32), P([2, 1], Type.i32), P([1], Type.i32), P([], Type.i32)),
     "step_ids .input 0. has shape \\[2,1\\]; it must have rank 3"),
    (lambda: opset.gather_tree(P([2, 2, 2], Type.i32), P([2, 2, 2], Type.i32), P([3], Type.i32), P([], Type.i32)),
     "BATCH_SIZE=2"),
])
def test_gather_tree_errors(make: Callable[[], Node], message: str) -> None:
    with pytest.raises(ValidationError, match=f"GatherTree-1 node .*{message}"):
        make()


def naive_patches(x: np.ndarray, sizes: list[int], strides: list[int], rates: list[int], pads: tuple[int, int],
                  out_hw: tuple[int, int]) -> np.ndarray:
    n, c, h, w = x.shape
    out = np.zeros((n, sizes[0] * sizes[1] * c, *out_hw), x.dtype)
    for b, oh, ow, kh, kw, ch in itertools.product(range(n), range(out_hw[0]), range(out_hw[1]), range(sizes[0]),
                                                   range(sizes[1]), range(c)):
        r, col = oh * strides[0] + kh * rates[0] - pads[0], ow * strides[1] + kw * rates[1] - pads[1]
        if 0 <= r < h and 0 <= col < w:
            out[b, (kh * sizes[1] + kw) * c + ch, oh, ow] = x[b, ch, r, col]
    return out


def test_extract_image_patches_spec_example() -> None:
    x = np.arange(1, 101, dtype=np.float32).reshape(1, 1, 10, 10)
    (out,) = run_all(lambda d: opset.extract_image_patches(d, [3, 3], [5, 5], [1, 1], "valid"), x)
    assert out.shape == (1, 9, 2, 2)
    assert out[0, :, 0, 0].tolist() == [1, 2, 3, 11, 12, 13, 21, 22, 23]
    assert out[0, :, 1, 1].tolist() == [56, 57, 58, 66, 67, 68, 76, 77, 78]


@pytest.mark.parametrize(("pad", "hw", "sizes", "strides", "rates", "pads", "out_hw"), [
    ("valid", (7, 6), [2, 3], [2, 1], [2, 1], (0, 0), (3, 4)),
    ("same_upper", (5, 4), [2, 2], [2, 3], [1, 1], (0, 0), (3, 2)),
    ("same_upper", (5, 5), [3, 3], [1, 1], [2, 1], (2, 1), (5, 5)),
    ("same_lower", (5, 5), [2, 3], [1, 2], [2, 1], (1, 1), (5, 3)),
    ("same_lower", (4, 4), [2, 2], [1, 1], [1, 1], (1, 1), (4, 4)),
])
def test_extract_image_patches_matches_a_naive_loop(pad: str, hw: tuple[int, int], sizes: list[int],
                                                   strides: list[int], rates: list[int], pads: tuple[int, int],
                                                   out_hw: tuple[int, int]) -> None:
    x = np.random.default_rng(3).integers(-9, 9, (2, 3, *hw)).astype(np.int32)
    node_args = (sizes, strides, rates, pad)
    (out,) = run_all(lambda d: opset.extract_image_patches(d, *node_args), x)
    np.testing.assert_array_equal(out, naive_patches(x, sizes, strides, rates, pads, out_hw))


def test_extract_image_patches_shapes_and_errors() -> None:
    assert shape(opset.extract_image_patches(P([1, 2, -1, 9]), [2, 3], [1, 2], [1, 1], "same_upper")) == "[1,12,?,5]"
    assert shape(opset.extract_image_patches(P([1, 2, 2, 9]), [3, 3], [1, 2], [1, 1], "valid")) == "[1,18,0,4]"
    with pytest.raises(ValidationError, match="ExtractImagePatches-3 node .*'strides' is \\[0, 1\\]"):
        opset.extract_image_patches(P([1, 1, 4, 4]), [2, 2], [0, 1], [1, 1], "valid")
    with pytest.raises(ValidationError, match="auto_pad"):
        opset.extract_image_patches(P([1, 1, 4, 4]), [2, 2], [1, 1], [1, 1], "explicit")
    with pytest.raises(ValidationError, match="must have rank 4"):
        opset.extract_image_patches(P([1, 4, 4]), [2, 2], [1, 1], [1, 1], "valid")


def test_extract_image_patches_attributes_as_openvino_writes_them() -> None:
    pytest.importorskip("openvino")
    import openvino.opset16 as ovo

    node = ovo.extract_image_patches(ovo.parameter([1, 1, 4, 4]), [2, 2], [1, 1], [1, 1], "valid")
    assert sorted(node.get_attributes()) == sorted(["sizes", "strides", "rates", "auto_pad"])
    assert [a.name for a in get_opdef("ExtractImagePatches", 3).attrs] == ["sizes", "strides", "rates", "auto_pad"]


FAST = settings(max_examples=60, database=None, deadline=None, suppress_health_check=list(HealthCheck))




def scalar(value: int, dtype: Any = np.int64) -> Node:
    return ops.constant(np.array(value, dtype=dtype))


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


def test_dimension_helpers_used_by_slicing_are_intervals() -> None:
    assert Dimension(2, 8) // 4 == Dimension(1, 2)


def test_split_refuses_a_hostile_number_of_outputs() -> None:
    data = ops.parameter([-1, 4], "f32", name="d")
    with pytest.raises(ValidationError, match=r"Split-1 node.*num_splits=1000000000 must be in \[1, 65536\]"):
        ops.split(data, 0, 10**9)


def _models() -> list[tuple[str, Callable[[], Model]]]:
    def m(*outs: Any) -> Model:
        return Model([o for o in outs], name="m")

    x = lambda s="2,3,4", t="f32", n="x": P(s, t, name=n)  # noqa: E731 - a table of tiny builders
    return [
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


# -- Reverse-1 (issue #22) ---------------------------------------------------------------------------------

X234 = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def loop_reverse(x: np.ndarray, axes: set[int]) -> np.ndarray:
    """The spec's formula element by element: output index i_k reads input index d_k - 1 - i_k on
    every reversed axis k."""
    y = np.empty_like(x)
    for index in itertools.product(*(range(d) for d in x.shape)):
        src = tuple(d - 1 - i if k in axes else i for k, (i, d) in enumerate(zip(index, x.shape, strict=True)))
        y[index] = x[src]
    return y


def test_reverse_is_in_the_table_and_the_family() -> None:
    assert OPSET_VERSIONS["Reverse"] == (1,) and family_of("Reverse") == "movement"


@CASE_SETTINGS
@given(data=st.data())
def test_reverse_cases_are_the_formula(data: st.DataObject) -> None:
    case = data.draw(case_strategy("Reverse", 1))
    node, (got,) = check_case_runs(case, "Reverse", 1)
    x = case.inputs["data"]
    axes = case.inputs["axes"] if "axes" in case.inputs else node.input_value(1).node.data
    if node.attrs["mode"] == "mask":
        chosen = {k for k, v in enumerate(np.asarray(axes).tolist()) if v}
    else:
        chosen = {int(a) % x.ndim for a in np.asarray(axes).tolist()}
    np.testing.assert_array_equal(got, loop_reverse(x, chosen))


# -- builder: inference and errors ------------------------------------------------------------------------

def test_reverse_output_is_the_data_type_and_shape() -> None:
    assert out(ops.reverse(P(PartialShape("?,3,1..4"), Type.f16), [0, -1], "index")) == "[?,3,1..4]"
    node = ops.reverse(P([2, 3], Type.boolean), [True, False], "mask")
    assert node.get_output_element_type(0) == Type.boolean and node.attrs == {"mode": "mask"}
    assert node.get_input_element_type(1) == Type.boolean
    assert ops.reverse(P([2, 3], Type.i8), [], "index").get_input_element_type(1) == Type.i64
    # axes of any integer type; a repeated axis is allowed (reversed once)
    axes = P([3], Type.u8)
    assert out(ops.reverse(P(PartialShape.dynamic(), Type.f32), axes, "index")) == "..."
    assert out(ops.reverse(P([2, 3], Type.f32), np.array([1, 1, -1], np.int16), "index")) == "[2,3]"


@pytest.mark.parametrize(("make", "message"), [
    (lambda: ops.reverse(P([2, 3]), [0], "flip"), r"Reverse mode 'flip' is not allowed; allowed: 'index', 'mask'"),
    (lambda: ops.reverse(P([2, 3]), [0.5], "index"), r"Reverse axes \[0.5\] must be integers"),
    (lambda: ops.reverse(P([2, 3]), [1, 0], "mask"), r"must be booleans in mode 'mask'; got numpy dtype int64"),
    (lambda: ops.reverse(P([2, 3]), P([2], Type.f32), "index"),
     r"Reverse-1 node.*axes \(input 1\) has element type f32; in mode 'index' it must be an integer type"),
    (lambda: ops.reverse(P([2, 3]), P([2], Type.i32), "mask"),
     r"axes \(input 1\) has element type i32; in mode 'mask' it must be boolean"),
    (lambda: ops.reverse(P([2, 3]), P([1, 2], Type.i64), "index"),
     r"axes \(input 1\) has shape \[1,2\]; it must be 1D"),
    (lambda: ops.reverse(P([2, 3]), [True, False, True], "mask"),
     r"axes \(input 1\) has shape \[3\]; in mode 'mask' it needs one value per dim of data \[2,3\] \(2\)"),
    (lambda: ops.reverse(P([2, 3]), [2], "index"), r"axes value 2 is out of range for rank 2; allowed \[-2, 1\]"),
    (lambda: ops.reverse(P([2, 3]), [-3], "index"), r"axes value -3 is out of range"),
    (lambda: ops.reverse(P([]), [0], "index"), r"axes value 0 is given for a rank-0 input"),
])
def test_reverse_bad_constructions_are_named(make: Any, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        make()


# -- kernel ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("axes", "mode", "chosen"), [
    ([0, 2], "index", {0, 2}),
    ([-1], "index", {2}),
    ([2, -1, 2], "index", {2}),          # repeated: reversed once
    ([1, 0, 2, 0], "index", {0, 1, 2}),  # more values than dims, through repeats
    ([], "index", set()),                # no axis: the data passes through
    ([True, False, True], "mask", {0, 2}),
    ([False, False, False], "mask", set()),
    ([False, True, False], "mask", {1}),
])
def test_reverse_kernel_is_the_formula(axes: list[Any], mode: str, chosen: set[int]) -> None:
    got = run(lambda x: ops.reverse(x, axes, mode), X234)
    np.testing.assert_array_equal(got, loop_reverse(X234, chosen))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
                                   np.uint64])
def test_reverse_axes_of_every_integer_type_at_run_time(dtype: Any) -> None:
    data = (np.arange(30) - 7).astype(np.int32).reshape(5, 6)
    got = run(lambda x, a: ops.reverse(x, a, "index"), data, np.array([1, 0, 1], dtype))
    np.testing.assert_array_equal(got, loop_reverse(data, {0, 1}))


def test_reverse_mask_at_run_time_and_data_types() -> None:
    for x in (X234.astype(np.float16), X234 > 7, X234.astype(np.int64) - 10):
        got = run(lambda d, m: ops.reverse(d, m, "mask"), x, np.array([False, True, True]))
        np.testing.assert_array_equal(got, loop_reverse(x, {1, 2}))
    got = run(lambda d, a: ops.reverse(d, a, "index"), np.array(3.5, np.float32), np.zeros([0], np.int64))
    assert got.shape == () and got == 3.5


@pytest.mark.parametrize(("data", "axes", "mode", "message"), [
    (X234, np.array([3], np.int64), "index", r"Reverse-1 node .*axes value 3 is out of range for rank 3"),
    (X234, np.array([-4], np.int32), "index", r"axes value -4 is out of range"),
    (np.array(1.0, np.float32), np.array([0], np.int64), "index", r"axes \[0\] name an axis of a scalar"),
    (X234, np.array([True, False]), "mask", r"the mask has 2 value\(s\); in mode 'mask' it needs one per data dim"),
])
def test_reverse_bad_run_time_axes_are_infer_errors(data: np.ndarray, axes: np.ndarray, mode: str,
                                                     message: str) -> None:
    x = P(list(data.shape), Type.f32, "x")
    a = P(PartialShape.dynamic(1), Type.boolean if mode == "mask" else Type.i64, "a")
    model = Model([ops.reverse(x, a, mode).output(0)], [x, a])
    with pytest.raises(InferError, match=message):
        evaluate(model, [data.astype(np.float32), axes.astype(np.bool_ if mode == "mask" else np.int64)])


# -- IR that OpenVINO writes ------------------------------------------------------------------------------

def test_reverse_ir_written_by_openvino_reads_and_runs_as_on_openvino_cpu(tmp_path: Path) -> None:
    """Reverse (index with negative and repeated axes of type i8, index from a Parameter, mask) built
    with OpenVINO's NodeFactory, saved by openvino.save_model: ovconform reads it (Reverse-1,
    mode kept), REFERENCE gives OpenVINO CPU's values, and serialize gives IR OpenVINO reads back."""
    ov = pytest.importorskip("openvino")
    import openvino.opset1 as ov1
    from openvino._pyopenvino import NodeFactory

    factory = NodeFactory("opset1")
    x = ov1.parameter([2, 3, 4], np.float32, name="x")
    a = ov1.parameter([2], np.int64, name="a")
    outs = [factory.create("Reverse", [x.output(0), ov1.constant(np.array([-1, 0, 2], np.int8)).output(0)],
                           {"mode": "index"}),
            factory.create("Reverse", [x.output(0), a.output(0)], {"mode": "index"}),
            factory.create("Reverse", [x.output(0), ov1.constant(np.array([False, True, True])).output(0)],
                           {"mode": "mask"})]
    xml = tmp_path / "reverse.xml"
    ov.save_model(ov.Model([o.output(0) for o in outs], [x, a]), xml)
    assert 'type="Reverse" version="opset1"' in xml.read_text()

    model = read_model(xml)
    nodes = [n for n in model.get_ordered_ops() if n.type_name == "Reverse"]
    assert {(n.version, n.attrs["mode"]) for n in nodes} == {(1, "index"), (1, "mask")} and len(nodes) == 3
    inputs = [X234, np.array([1, -3], np.int64)]
    ours = evaluate(model, inputs)
    theirs = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})(inputs)
    for i, want in enumerate([loop_reverse(X234, {0, 2}), loop_reverse(X234, {0, 1}), loop_reverse(X234, {1, 2})]):
        np.testing.assert_array_equal(ours[i], want)
        np.testing.assert_array_equal(theirs[i], want)

    xml_ours, weights = serialize(model)
    back = ov.Core().read_model(xml_ours, ov.Tensor(np.frombuffer(weights, dtype=np.uint8)))
    assert sorted(n.get_type_name() for n in back.get_ordered_ops() if "Reverse" in n.get_type_name()) == \
        ["Reverse"] * 3


def test_reverse_from_openvinos_onnx_frontend_argmax_select_last_index(tmp_path: Path) -> None:
    """The IR that brought Reverse-1 in: OpenVINO's ONNX frontend lowers ArgMax with
    select_last_index=1 to Reverse + TopK; ovconform reads what openvino.save_model writes of it, and
    REFERENCE picks the last of tied maxima, as OpenVINO CPU does."""
    ov = pytest.importorskip("openvino")
    onnx = pytest.importorskip("onnx", reason="the ONNX model needs the onnx package (benchmarks extra)")
    from onnx import TensorProto, helper

    node = helper.make_node("ArgMax", ["x"], ["y"], axis=1, keepdims=0, select_last_index=1)
    graph = helper.make_graph([node], "argmax", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 5])],
                              [helper.make_tensor_value_info("y", TensorProto.INT64, [2])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), tmp_path / "argmax.onnx")
    xml = tmp_path / "argmax.xml"
    ov.save_model(ov.Core().read_model(tmp_path / "argmax.onnx"), xml)
    model = read_model(xml)
    assert ("Reverse", 1) in {(n.type_name, n.version) for n in model.get_ordered_ops()}
    x = np.array([[1, 3, 3, 0, 2], [5, 5, 1, 5, 0]], np.float32)
    (ours,) = evaluate(model, [x])
    theirs = ov.Core().compile_model(str(xml), "CPU")([x])[0]
    assert ours.tolist() == theirs.tolist() == [2, 3]


def test_slice_length_bounds_over_a_dynamic_dimension_match_every_size() -> None:
    """The bounds of a slice's length over a bounded dynamic dimension are those of every size in it
    (checked against all sizes), and an end of INT64_MIN on an unbounded dimension is answered at
    once (it used to walk every size up to 2**63: MemoryError)."""
    import builtins
    import random

    from ovconform.ir import Dimension
    from ovconform.opset._movement._slice import _dynamic_slice_dim

    rng = random.Random(1)
    for _ in range(3000):
        lo = rng.randint(0, 20)
        hi = lo + rng.randint(0, 60)
        sl = builtins.slice(rng.choice([None, rng.randint(-70, 70)]), rng.choice([None, rng.randint(-70, 70)]),
                            rng.choice([1, 2, 3, -1, -2, -5]))
        lengths = [len(range(*sl.indices(d))) for d in range(lo, hi + 1)]
        got = _dynamic_slice_dim(Dimension(lo, hi), sl)
        assert (got.min_length, got.max_length) == (min(lengths), max(lengths)), (lo, hi, sl)
    got = _dynamic_slice_dim(Dimension(1, -1), builtins.slice(-1, -2**63, -1))
    assert (got.min_length, got.max_length) == (1, -1)
