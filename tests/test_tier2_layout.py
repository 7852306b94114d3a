"""Tier-2 "layout" family: Tile-1, Roll-7, DepthToSpace-1, SpaceToDepth-1, ShuffleChannels-1,
ReverseSequence-1, Pad-1/12, Slice-8, SliceScatter-15, BatchToSpace-2, SpaceToBatch-2 — builder
inference and errors, REFERENCE kernel results against the specs' examples and independent
per-element formulas, and the case strategies."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _opcase_checks import check_case_runs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ovconform import opset
from ovconform.errors import InferError, ValidationError
from ovconform.ir import Model, Node, Type, as_type, get_opdef, make_node
from ovconform.opcases import all_case_keys, case_strategy
from reference_plugin._evaluate import evaluate

P = opset.parameter
KEYS = [("Tile", 1), ("Roll", 7), ("DepthToSpace", 1), ("SpaceToDepth", 1), ("ShuffleChannels", 1),
        ("ReverseSequence", 1), ("Pad", 1), ("Pad", 12), ("Slice", 8), ("SliceScatter", 15), ("BatchToSpace", 2),
        ("SpaceToBatch", 2)]
ATTRS = {"DepthToSpace": ["block_size", "mode"], "SpaceToDepth": ["block_size", "mode"],
         "ShuffleChannels": ["axis", "group"], "ReverseSequence": ["batch_axis", "seq_axis"], "Pad": ["pad_mode"]}


def out(node: Node) -> str:
    return str(node.output(0).get_partial_shape())


def run(make: Callable[..., Node], *arrays: Any) -> np.ndarray:
    """One op over Parameters holding ``arrays``; its output evaluated on REFERENCE."""
    values = [np.asarray(a) for a in arrays]
    params = [P(list(v.shape), as_type(v.dtype), name=f"in{i}") for i, v in enumerate(values)]
    node = make(*params)
    (result,) = evaluate(Model([node.output(0)], params), values)
    return result


I64 = np.int64
X34 = np.arange(1, 13, dtype=np.float32).reshape(3, 4)  # the specs' [[1..4], [5..8], [9..12]]


# -- op definitions and builders -------------------------------------------------------------------

@pytest.mark.parametrize(("op", "version"), KEYS)
def test_ir_names_and_attributes_follow_openvino(op: str, version: int) -> None:
    d = get_opdef(op, version)
    assert (d.ir_type_name or d.type_name) == op
    assert [a.name for a in d.attrs] == ATTRS.get(op, [])


def test_builders_use_the_opset_versions() -> None:
    x = P([2, 4, 4, 4])
    built = [opset.tile(x, [1, 2]), opset.roll(x, 1, 0), opset.depth_to_space(x, "blocks_first", 2),
             opset.space_to_depth(x, "depth_first", 2), opset.shuffle_channels(x, 1, 2),
             opset.reverse_sequence(x, [1, 2], 0, 1), opset.pad(x, [0] * 4, [0] * 4, "edge"),
             opset.pad(x, [0] * 4, [0] * 4, "EDGE", version=1), opset.slice(x, [0], [1], [1]),
             opset.slice_scatter(x, P([1, 4, 4, 4]), [0], [1], [1]),
             opset.batch_to_space(x, [1, 1, 1, 1], [0] * 4, [0] * 4),
             opset.space_to_batch(x, [1] * 4, [0] * 4, [0] * 4)]
    assert [(n.type_name, n.version) for n in built] == [
        ("Tile", 1), ("Roll", 7), ("DepthToSpace", 1), ("SpaceToDepth", 1), ("ShuffleChannels", 1),
        ("ReverseSequence", 1), ("Pad", 12), ("Pad", 1), ("Slice", 8), ("SliceScatter", 15), ("BatchToSpace", 2),
        ("SpaceToBatch", 2)]
    assert built[7].attrs == {"pad_mode": "edge"}
    assert built[8].get_input_size() == 5  # default axes added, as openvino.opset16.slice does
    assert built[8].input_value(4).node.data.tolist() == [0]


# -- inference --------------------------------------------------------------------------------------

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


# -- case strategies --------------------------------------------------------------------------------------

CASE_SETTINGS = settings(max_examples=12, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])


def test_every_op_of_the_family_has_a_case() -> None:
    assert set(KEYS) <= set(all_case_keys())


@pytest.mark.parametrize(("op", "version"), KEYS)
@CASE_SETTINGS
@given(data=st.data())
def test_cases_are_valid_and_run(op: str, version: int, data: st.DataObject) -> None:
    case = data.draw(case_strategy(op, version))
    node, outs = check_case_runs(case, op, version)
    for value in case.inputs.values():
        if value.dtype == np.int64:  # OpenVINO CPU moves i64 as i32
            assert np.all(np.abs(value) < 2**31)
    if op in ("Roll", "ShuffleChannels", "ReverseSequence", "DepthToSpace", "SpaceToDepth"):  # permutations
        data_in = case.inputs["data"]
        assert sorted(outs[0].ravel().tolist()) == sorted(data_in.ravel().tolist())
