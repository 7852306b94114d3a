"""Tier-3 "misc" family: ConvertPromoteTypes-14, GatherTree-1, the embedding bags (EmbeddingSegmentsSum-3,
EmbeddingBagOffsetsSum-3, EmbeddingBagPackedSum-3, EmbeddingBagOffsets-15, EmbeddingBagPacked-15),
ExtractImagePatches-3, CTCGreedyDecoder-1, CTCGreedyDecoderSeqLen-6 and NV12/I420 to RGB/BGR-8 —
builder inference and errors, REFERENCE numerics against the specs' examples and naive loops, and
the case strategies."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ovconform import opset
from ovconform.errors import InferError, ValidationError
from ovconform.ir import Model, Node, Type, as_type, get_opdef
from ovconform.opcases import all_case_keys, case_strategy
from ovconform.opset._type import promote_types
from reference_plugin._evaluate import evaluate

P = opset.parameter

KEYS = [("ConvertPromoteTypes", 14), ("GatherTree", 1), ("EmbeddingSegmentsSum", 3), ("EmbeddingBagOffsetsSum", 3),
        ("EmbeddingBagPackedSum", 3), ("EmbeddingBagOffsets", 15), ("EmbeddingBagPacked", 15),
        ("ExtractImagePatches", 3), ("CTCGreedyDecoder", 1), ("CTCGreedyDecoderSeqLen", 6), ("NV12toRGB", 8),
        ("NV12toBGR", 8), ("I420toRGB", 8), ("I420toBGR", 8), ("ReorgYolo", 2), ("RegionYolo", 1), ("GridSample", 9),
        ("ROIPooling", 2), ("PSROIPooling", 1), ("RandomUniform", 8)]
ATTRS = {"ConvertPromoteTypes": ["promote_unsafe", "pytorch_scalar_promotion", "u64_integer_promotion_target"],
         "EmbeddingBagOffsets": ["reduction"], "EmbeddingBagPacked": ["reduction"],
         "ExtractImagePatches": ["sizes", "strides", "rates", "auto_pad"], "CTCGreedyDecoder": ["ctc_merge_repeated"],
         "CTCGreedyDecoderSeqLen": ["merge_repeated", "classes_index_type", "sequence_length_type"],
         "ReorgYolo": ["stride"],
         "RegionYolo": ["anchors", "axis", "coords", "classes", "end_axis", "num", "do_softmax", "mask"],
         "GridSample": ["align_corners", "mode", "padding_mode"],
         "ROIPooling": ["output_size", "output_roi", "pooled_h", "pooled_w", "spatial_scale", "method"],
         "PSROIPooling": ["output_dim", "group_size", "spatial_scale", "mode", "spatial_bins_x", "spatial_bins_y"],
         "RandomUniform": ["output_type", "op_seed", "global_seed", "alignment"]}
CASE_SETTINGS = settings(max_examples=15, deadline=None, derandomize=True, database=None,
                         suppress_health_check=list(HealthCheck))


def shape(node: Node, i: int = 0) -> str:
    return str(node.output(i).get_partial_shape())


def run(node: Node, params: list[Node], *arrays: Any) -> list[np.ndarray]:
    return evaluate(Model(node.outputs(), params), [np.asarray(a) for a in arrays])


def run_consts(make: Callable[..., Node], *arrays: np.ndarray) -> list[np.ndarray]:
    """``make`` over Parameters holding ``arrays`` (None stays None); every output evaluated."""
    params = [None if a is None else P(list(np.shape(a)), as_type(np.asarray(a).dtype), name=f"in{i}")
              for i, a in enumerate(arrays)]
    node = make(*params)
    used = [p for p in params if p is not None]
    return run(node, used, *[a for a in arrays if a is not None])


# -- op definitions ------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("op", "version"), KEYS)
def test_ir_names_and_attributes_follow_openvino(op: str, version: int) -> None:
    d = get_opdef(op, version)
    assert (d.ir_type_name or d.type_name) == op
    assert [a.name for a in d.attrs] == ATTRS.get(op, [])


def test_builders_use_the_opset_versions() -> None:
    f, i = P([5, 2]), P([4], Type.i32)
    built = [opset.convert_promote_types(P([2], Type.i8), P([2], Type.f32)),
             opset.gather_tree(P([2, 1, 2], Type.i32), P([2, 1, 2], Type.i32), P([1], Type.i32), P([], Type.i32)),
             opset.embedding_segments_sum(f, i, P([4], Type.i32), 3),
             opset.embedding_bag_offsets_sum(f, i, P([2], Type.i32)), opset.embedding_bag_packed_sum(f, P([2, 2],
                                                                                                        Type.i32)),
             opset.embedding_bag_offsets(f, i, P([2], Type.i32)), opset.embedding_bag_packed(f, P([2, 2], Type.i32)),
             opset.extract_image_patches(P([1, 1, 4, 4]), [2, 2], [1, 1], [1, 1], "VALID"),
             opset.ctc_greedy_decoder(P([3, 2, 4]), P([3, 2])), opset.ctc_greedy_decoder_seq_len(P([2, 3, 4]), [3, 3]),
             opset.nv12_to_rgb(P([1, 6, 4, 1])), opset.nv12_to_bgr(P([1, 6, 4, 1])), opset.i420_to_rgb(P([1, 6, 4, 1])),
             opset.i420_to_bgr(P([1, 6, 4, 1])), opset.reorg_yolo(P([1, 4, 2, 2]), 2),
             opset.region_yolo(P([1, 12, 2, 2]), 4, 1, 2, True, [], 1, 3), opset.grid_sample(P([1, 1, 2, 2]),
                                                                                          P([1, 2, 2, 2])),
             opset.roi_pooling(P([1, 1, 4, 4]), P([1, 5]), [2, 2]),
             opset.psroi_pooling(P([1, 4, 4, 4]), P([1, 5]), 1, 2, 1.0, 1, 1, "average"),
             opset.random_uniform([2, 3], 0.0, 1.0, "f32", 1, 2)]
    assert [(n.type_name, n.version) for n in built] == KEYS
    assert built[7].attrs["auto_pad"] == "valid"
    assert built[2].input_value(3).get_element_type() == Type.i32  # literal num_segments takes the index type


def test_ir_attributes_as_openvino_writes_them() -> None:
    ov = pytest.importorskip("openvino")
    import openvino.opset16 as ovo

    nodes = {"ConvertPromoteTypes": ovo.convert_promote_types(ovo.parameter([2], ov.Type.i8),
                                                              ovo.parameter([2], ov.Type.f32)),
             "ExtractImagePatches": ovo.extract_image_patches(ovo.parameter([1, 1, 4, 4]), [2, 2], [1, 1], [1, 1],
                                                              "valid"),
             "CTCGreedyDecoderSeqLen": ovo.ctc_greedy_decoder_seq_len(ovo.parameter([2, 3, 4]),
                                                                     ovo.parameter([2], ov.Type.i32)),
             "EmbeddingBagPacked": ovo.embedding_bag_packed(ovo.parameter([5, 2]), ovo.parameter([2, 2], ov.Type.i32))}
    for op, node in nodes.items():
        version = dict(KEYS)[op]
        assert sorted(node.get_attributes()) == sorted(ATTRS[op]), op
        assert [a.name for a in get_opdef(op, version).attrs] == ATTRS[op]


# -- ConvertPromoteTypes-14 -------------------------------------------------------------------------------------

PROMOTE = ["boolean", "f16", "bf16", "f32", "f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"]


def test_promotion_rules_match_openvino_for_every_type_pair() -> None:
    ov = pytest.importorskip("openvino")
    import openvino.opset16 as ovo

    checked = 0
    for a, b in itertools.product(PROMOTE, repeat=2):
        for unsafe, pytorch, scalar_b in itertools.product((False, True), repeat=3):
            if scalar_b and not pytorch:
                continue
            try:
                node = ovo.convert_promote_types(ovo.parameter([2], getattr(ov.Type, a)),
                                                 ovo.parameter([] if scalar_b else [2], getattr(ov.Type, b)),
                                                 unsafe, pytorch, "i64")
                want: str | None = node.output(0).get_element_type().get_type_name()
            except RuntimeError:
                want = None
            try:
                got: str | None = promote_types(as_type(a), as_type(b), False, scalar_b, unsafe, pytorch, Type.i64).name
            except ValidationError:
                got = None
            assert got == want, (a, b, unsafe, pytorch, scalar_b)
            checked += 1
    assert checked > 600


@pytest.mark.parametrize(("a", "b", "kwargs", "expected"), [
    (Type.i8, Type.f16, {}, Type.f16),
    (Type.i32, Type.f16, {"promote_unsafe": True}, Type.f16),
    (Type.u8, Type.i16, {}, Type.i16),
    (Type.u8, Type.i8, {"promote_unsafe": True}, Type.i16),
    (Type.u64, Type.i8, {"promote_unsafe": True, "u64_integer_promotion_target": "f64"}, Type.f64),
    (Type.boolean, Type.u16, {}, Type.u16),
    (Type.f16, Type.bf16, {"promote_unsafe": True}, Type.f32),
])
def test_convert_promote_types_inference(a: Type, b: Type, kwargs: dict[str, Any], expected: Type) -> None:
    node = opset.convert_promote_types(P([2, 3], a), P([-1], b), **kwargs)
    assert [node.output(i).get_element_type() for i in range(2)] == [expected, expected]
    assert (shape(node, 0), shape(node, 1)) == ("[2,3]", "[?]")


def test_convert_promote_types_pytorch_scalar_promotion() -> None:
    node = opset.convert_promote_types(P([2], Type.i8), P([], Type.i32), pytorch_scalar_promotion=True,
                                       promote_unsafe=True)
    assert node.output(0).get_element_type() == Type.i8
    assert opset.convert_promote_types(P([2], Type.i8), P([], Type.i32)).output(0).get_element_type() == Type.i32


def test_convert_promote_types_values() -> None:
    a, b = np.array([[-3, 7]], np.int8), np.array([250, 1], np.uint8)
    out_a, out_b = run_consts(lambda x, y: opset.convert_promote_types(x, y, promote_unsafe=True), a, b)
    assert out_a.dtype == out_b.dtype == np.int16
    assert out_a.tolist() == [[-3, 7]] and out_b.tolist() == [250, 1]
    fa, fb = run_consts(lambda x, y: opset.convert_promote_types(x, y, promote_unsafe=True),
                        np.array([16777217], np.int32), np.array([0.5], np.float32))
    assert fa.dtype == np.float32 and fa[0] == np.float32(16777216)  # int -> float rounds to nearest


@pytest.mark.parametrize(("a", "b", "message"), [
    (Type.i32, Type.f16, "cannot be safely promoted to floating-point f16"),
    (Type.u64, Type.i32, "cannot be safely promoted with signed i32"),
    (Type.u8, Type.i8, "cannot be safely promoted with signed i8"),
    (Type.f16, Type.bf16, "no common type"),
])
def test_convert_promote_types_errors(a: Type, b: Type, message: str) -> None:
    with pytest.raises(ValidationError, match=f"ConvertPromoteTypes-14 node .*{message}"):
        opset.convert_promote_types(P([2], a), P([2], b))


# -- GatherTree-1 ---------------------------------------------------------------------------------------------

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
    (out,) = run_consts(opset.gather_tree, steps, parents, np.array([3], np.int32), np.array(10, np.int32))
    assert out[:, 0, :].T.tolist() == [[2, 6, 7], [2, 5, 8], [2, 6, 9]]


@given(seed=st.integers(0, 2**31), dt=st.sampled_from([np.int32, np.float32]))
@CASE_SETTINGS
def test_gather_tree_matches_the_spec_pseudocode(seed: int, dt: type) -> None:
    rng = np.random.default_rng(seed)
    time, batch, width = rng.integers(1, 6), rng.integers(1, 4), rng.integers(1, 4)
    steps = rng.integers(0, 5, (time, batch, width)).astype(dt)
    parents = rng.integers(0, width, (time, batch, width)).astype(dt)
    lengths = rng.integers(1, time + 1, batch).astype(dt)
    end = np.array(rng.integers(0, 5), dt)
    (out,) = run_consts(opset.gather_tree, steps, parents, lengths, end)
    np.testing.assert_array_equal(out, naive_gather_tree(steps, parents, lengths, end))


def test_gather_tree_bad_parent_is_an_infer_error() -> None:
    steps = np.zeros((2, 1, 2), np.int32)
    parents = np.array([[[0, 0]], [[5, 0]]], np.int32)
    with pytest.raises(InferError, match=r"GatherTree-1 node .*parent_idx\[1, 0, 0\] = 5 is out of range"):
        run_consts(opset.gather_tree, steps, parents, np.array([2], np.int32), np.array(9, np.int32))


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


# -- embedding bags -------------------------------------------------------------------------------------------

TABLE = np.array([[-0.2, -0.6], [-0.1, -0.4], [-1.9, -1.8], [-1., 1.5], [0.8, -0.7]], np.float32)
IDX = np.array([0, 2, 3, 4], np.int32)


def test_embedding_bag_offsets_spec_examples() -> None:
    offsets = np.array([0, 2, 2], np.int32)
    weights = np.array([0.5, 0.5, 0.5, 0.5], np.float32)
    (ex1,) = run_consts(lambda t, i, o, w: opset.embedding_bag_offsets(t, i, o, 0, w), TABLE, IDX, offsets, weights)
    np.testing.assert_allclose(ex1, [[-1.05, -1.2], [-0.2, -0.6], [-0.1, 0.4]], rtol=1e-6)
    (ex2,) = run_consts(lambda t, i, o, w: opset.embedding_bag_offsets(t, i, o, -1, w), TABLE, IDX, offsets,
                        np.array([0.5, 0.2, -2, 1], np.float32))
    np.testing.assert_allclose(ex2, [[-0.48, -0.66], [0., 0.], [2.8, -3.7]], rtol=1e-6)
    (ex3,) = run_consts(lambda t, i, o: opset.embedding_bag_offsets(t, i, o, reduction="mean"), TABLE, IDX, offsets)
    np.testing.assert_allclose(ex3, [[-1.05, -1.2], [0., 0.], [-0.1, 0.4]], rtol=1e-6)
    (v3,) = run_consts(lambda t, i, o, w: opset.embedding_bag_offsets_sum(t, i, o, 0, w), TABLE, IDX, offsets,
                       weights)
    np.testing.assert_array_equal(v3, ex1)


def test_embedding_bag_packed_and_segments() -> None:
    packed = np.array([[0, 2], [1, 2], [3, 4]], np.int64)
    (s,) = run_consts(opset.embedding_bag_packed_sum, TABLE, packed)
    np.testing.assert_allclose(s, TABLE[packed].sum(axis=1), rtol=1e-6)
    (m,) = run_consts(lambda t, i: opset.embedding_bag_packed(t, i, reduction="mean"), TABLE, packed)
    np.testing.assert_allclose(m, TABLE[packed].mean(axis=1), rtol=1e-6)
    w = np.array([[0.5, 2], [1, -1], [0, 3]], np.float32)
    (ws,) = run_consts(opset.embedding_bag_packed, TABLE, packed, w)
    np.testing.assert_allclose(ws, (TABLE[packed] * w[..., None]).sum(axis=1), rtol=1e-6)
    seg = np.array([0, 0, 2, 2], np.int32)
    (out,) = run_consts(lambda t, i, s: opset.embedding_segments_sum(t, i, s, 4, 1), TABLE, IDX, seg)
    np.testing.assert_allclose(out, [TABLE[0] + TABLE[2], TABLE[1], TABLE[3] + TABLE[4], TABLE[1]], rtol=1e-6)
    (zeros,) = run_consts(lambda t, i, s: opset.embedding_segments_sum(t, i, s, 4), TABLE, IDX, seg)
    assert zeros[1].tolist() == [0, 0] and zeros[3].tolist() == [0, 0]


def test_embedding_integer_table_and_mean_truncates() -> None:
    table = np.array([[1, 2], [4, -7]], np.int32)
    (out,) = run_consts(lambda t, i: opset.embedding_bag_packed(t, i, reduction="mean"), table,
                        np.array([[0, 1]], np.int32))
    assert out.dtype == np.int32 and out.tolist() == [[2, -2]]  # (5 / 2, -5 / 2) toward zero


def test_embedding_f16_accumulates_once() -> None:
    table = np.array([[2048], [1]], np.float16)
    (out,) = run_consts(opset.embedding_bag_packed_sum, table, np.array([[0, 1, 1]], np.int32))
    assert out.dtype == np.float16 and out[0, 0] == np.float16(2050)  # 2048 + 1 + 1 (stepwise f16: 2048)


@pytest.mark.parametrize(("make", "message"), [
    (lambda: opset.embedding_bag_offsets(P([5, 2]), P([4], Type.i32), P([2], Type.i32), -1, P([4]), "mean"),
     "supported only with 'sum'"),
    (lambda: opset.embedding_bag_offsets_sum(P([5, 2]), P([4], Type.i32), P([2], Type.i64)),
     "index inputs must share one element type"),
    (lambda: opset.embedding_bag_packed_sum(P([5, 2]), P([4], Type.i32)), "indices .input 1. has shape \\[4\\]"),
    (lambda: opset.embedding_bag_packed_sum(P([5, 2]), P([2, 2], Type.f32)), "it must be i32 or i64"),
    (lambda: opset.embedding_bag_packed_sum(P([5, 2], Type.f16), P([2, 2], Type.i32), P([2, 2])),
     "per_sample_weights .input 2. has element type f32"),
    (lambda: opset.embedding_segments_sum(P([5, 2]), P([4], Type.i32), P([3], Type.i32), 2),
     "segment_ids \\[3\\] must have the shape of indices"),
    (lambda: opset.embedding_segments_sum(P([5, 2]), P([4], Type.i32), P([4], Type.i32), -2),
     "num_segments is -2"),
    (lambda: opset.embedding_bag_offsets_sum(P([5, 2]), P([4], Type.i32), P([2], Type.i32), None, P([4])),
     "per_sample_weights needs default_index"),
])
def test_embedding_builder_errors(make: Callable[[], Node], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        make()


@pytest.mark.parametrize(("make", "arrays", "message"), [
    (opset.embedding_bag_packed_sum, (TABLE, np.array([[0, 5]], np.int32)), "indices value 5 is out of range"),
    (opset.embedding_bag_offsets_sum, (TABLE, IDX, np.array([0, 3, 1], np.int32)), "must be non-decreasing"),
    (lambda t, i, o: opset.embedding_bag_offsets(t, i, o, 7), (TABLE, IDX, np.array([0, 0], np.int32)),
     "default_index 7 is out of range"),
    (lambda t, i, s: opset.embedding_segments_sum(t, i, s, 2), (TABLE, IDX, np.array([0, 1, 2, 2], np.int32)),
     "segment_ids value 2 is out of range"),
])
def test_embedding_run_time_errors(make: Callable[..., Node], arrays: tuple[np.ndarray, ...], message: str) -> None:
    with pytest.raises(InferError, match=message):
        run_consts(make, *arrays)


def test_embedding_shapes() -> None:
    assert shape(opset.embedding_bag_offsets_sum(P([5, 2, 3]), P([-1], Type.i64), P([4], Type.i64))) == "[4,2,3]"
    assert shape(opset.embedding_bag_packed(P([-1, 2]), P([3, 2], Type.i32))) == "[3,2]"
    assert shape(opset.embedding_segments_sum(P([5, 2]), P([4], Type.i32), P([4], Type.i32),
                                              P([], Type.i32))) == "[?,2]"


# -- ExtractImagePatches-3 ---------------------------------------------------------------------------------------

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
    (out,) = run_consts(lambda d: opset.extract_image_patches(d, [3, 3], [5, 5], [1, 1], "valid"), x)
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
    (out,) = run_consts(lambda d: opset.extract_image_patches(d, *node_args), x)
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


# -- CTC decoders ----------------------------------------------------------------------------------------------

def test_ctc_greedy_decoder_literal() -> None:
    # argmax per step for batch 0: 1, 1, 3(blank), 1, 2 ; batch 1 has 2 steps: 0, 0
    best = [[1, 0], [1, 0], [3, 2], [1, 1], [2, 1]]
    data = np.zeros((5, 2, 4), np.float32)
    for t, row in enumerate(best):
        for b, k in enumerate(row):
            data[t, b, k] = 1
    mask = np.array([[1, 1], [1, 1], [1, 0], [1, 0], [1, 0]], np.float32)
    (merged,) = run_consts(opset.ctc_greedy_decoder, data, mask)
    assert merged.shape == (2, 5, 1, 1)
    assert merged[..., 0, 0].tolist() == [[1, 1, 2, -1, -1], [0, -1, -1, -1, -1]]
    (raw,) = run_consts(lambda d, m: opset.ctc_greedy_decoder(d, m, False), data, mask)
    assert raw[..., 0, 0].tolist() == [[1, 1, 1, 2, -1], [0, 0, -1, -1, -1]]


def test_ctc_greedy_decoder_seq_len_literal() -> None:
    data = np.zeros((2, 4, 3), np.float32)
    for (b, t), k in np.ndenumerate(np.array([[0, 0, 2, 1], [1, 2, 2, 1]])):
        data[b, t, k] = 1
    lengths = np.array([4, 3], np.int32)
    classes, counts = run_consts(opset.ctc_greedy_decoder_seq_len, data, lengths)
    assert classes.dtype == np.int32 and classes.tolist() == [[0, 1, -1, -1], [1, -1, -1, -1]]
    assert counts.tolist() == [2, 1]
    classes, counts = run_consts(lambda d, s: opset.ctc_greedy_decoder_seq_len(
        d, s, np.array([0], np.int32), False, "i64", "i64"), data, lengths)
    assert classes.dtype == counts.dtype == np.int64
    assert classes.tolist() == [[2, 1, -1, -1], [1, 2, 2, -1]] and counts.tolist() == [2, 3]


def test_ctc_shapes_and_errors() -> None:
    n = opset.ctc_greedy_decoder_seq_len(P([-1, 7, 4]), P([3], Type.i64), classes_index_type="i64")
    assert (shape(n, 0), shape(n, 1), n.output(0).get_element_type()) == ("[3,7]", "[3]", Type.i64)
    assert shape(opset.ctc_greedy_decoder(P([5, -1, 4]), P([-1, 2]))) == "[2,5,1,1]"
    with pytest.raises(ValidationError, match="CTCGreedyDecoder-1 node .*seq_indicators \\[4,2\\] must be \\[T, N\\]"):
        opset.ctc_greedy_decoder(P([5, 2, 4]), P([4, 2]))
    with pytest.raises(ValidationError, match="needs a floating-point type"):
        opset.ctc_greedy_decoder_seq_len(P([2, 3, 4], Type.i32), P([2], Type.i32))
    with pytest.raises(ValidationError, match="classes_index_type"):
        opset.ctc_greedy_decoder_seq_len(P([2, 3, 4]), P([2], Type.i32), classes_index_type="f32")
    with pytest.raises(InferError, match="sequence_length value 5 is out of range; allowed \\[0, 3\\]"):
        run_consts(opset.ctc_greedy_decoder_seq_len, np.zeros((1, 3, 2), np.float32), np.array([5], np.int32))


# -- colour conversions ------------------------------------------------------------------------------------------

def naive_rgb(y: float, u: float, v: float) -> list[float]:
    c, d, e = y - 16, u - 128, v - 128
    rgb = [1.164 * c + 1.596 * e, 1.164 * c - 0.813 * e - 0.391 * d, 1.164 * c + 2.018 * d]
    return [min(max(x, 0.0), 255.0) for x in rgb]


def _yuv(rng: np.random.Generator, n: int, h: int, w: int, dt: type) -> tuple[np.ndarray, ...]:
    planes = (rng.integers(0, 256, (n, h, w)), rng.integers(0, 256, (n, h // 2, w // 2)),
              rng.integers(0, 256, (n, h // 2, w // 2)))
    return tuple(p.astype(dt) for p in planes)


def _expected(y: np.ndarray, u: np.ndarray, v: np.ndarray, bgr: bool, u8: bool) -> np.ndarray:
    out = np.zeros((*y.shape, 3))
    for b, i, j in itertools.product(*(range(s) for s in y.shape)):
        px = naive_rgb(float(y[b, i, j]), float(u[b, i // 2, j // 2]), float(v[b, i // 2, j // 2]))
        out[b, i, j] = px[::-1] if bgr else px
    return np.floor(out + 0.5) if u8 else out


@pytest.mark.parametrize("dt", [np.uint8, np.float32])
@pytest.mark.parametrize("bgr", [False, True])
def test_nv12_single_and_two_planes(dt: type, bgr: bool) -> None:
    y, u, v = _yuv(np.random.default_rng(5), 2, 4, 6, dt)
    uv = np.stack([u, v], axis=-1)
    single = np.concatenate([y, uv.reshape(2, 2, 6)], axis=1)[..., None]
    make = opset.nv12_to_bgr if bgr else opset.nv12_to_rgb
    (one,) = run_consts(make, single)
    (two,) = run_consts(make, y[..., None], uv)
    want = _expected(y, u, v, bgr, dt == np.uint8)
    assert one.dtype == dt and one.shape == (2, 4, 6, 3)
    np.testing.assert_array_equal(one, two)
    np.testing.assert_allclose(one.astype(np.float64), want, atol=1e-3 if dt == np.float32 else 0)


@pytest.mark.parametrize("dt", [np.uint8, np.float32])
@pytest.mark.parametrize("bgr", [False, True])
def test_i420_single_and_three_planes(dt: type, bgr: bool) -> None:
    y, u, v = _yuv(np.random.default_rng(6), 1, 4, 4, dt)
    single = np.concatenate([y.reshape(1, -1), u.reshape(1, -1), v.reshape(1, -1)], axis=1).reshape(1, 6, 4, 1)
    make = opset.i420_to_bgr if bgr else opset.i420_to_rgb
    (one,) = run_consts(make, single)
    (three,) = run_consts(make, y[..., None], u[..., None], v[..., None])
    np.testing.assert_array_equal(one, three)
    np.testing.assert_allclose(one.astype(np.float64), _expected(y, u, v, bgr, dt == np.uint8),
                               atol=1e-3 if dt == np.float32 else 0)


def test_u8_output_rounds_to_nearest_and_clips() -> None:
    # U=V=128: Y=17 gives 1.164 -> 1; Y=18 2.328 -> 2; Y=20 4.656 -> 5; Y=0 negative -> 0; Y=255 278.2 -> 255
    y = np.array([[17, 18], [20, 0]], np.uint8).reshape(1, 2, 2, 1)
    (out,) = run_consts(opset.nv12_to_rgb, y, np.full((1, 1, 1, 2), 128, np.uint8))
    assert out[0, :, :, 0].tolist() == [[1, 2], [5, 0]]
    (hi,) = run_consts(opset.nv12_to_rgb, np.full((1, 2, 2, 1), 255, np.uint8), np.full((1, 1, 1, 2), 128, np.uint8))
    assert hi.max() == 255


@pytest.mark.parametrize(("make", "message"), [
    (lambda: opset.nv12_to_rgb(P([1, 5, 4, 1])), "multiple of 3"),
    (lambda: opset.nv12_to_rgb(P([1, 6, 3, 1])), "width 3 must be even"),
    (lambda: opset.nv12_to_rgb(P([1, 4, 4, 1]), P([1, 2, 2, 1])), "channel dim must be 2"),
    (lambda: opset.nv12_to_bgr(P([1, 4, 4, 1]), P([1, 1, 2, 2])), "half the height"),
    (lambda: opset.i420_to_rgb(P([1, 6, 4, 1], Type.i32)), "needs u8 or a floating-point type"),
    (lambda: opset.i420_to_bgr(P([1, 4, 4, 1], Type.u8), P([1, 2, 2, 1], Type.u8), P([1, 2, 2, 1])),
     "input 2 has element type f32"),
])
def test_color_errors(make: Callable[[], Node], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        make()


def test_color_shapes() -> None:
    assert shape(opset.nv12_to_rgb(P([2, -1, 8, 1]))) == "[2,?,8,3]"
    assert shape(opset.i420_to_rgb(P([1, -1, -1, 1]), P([1, 3, 4, 1]), P([1, 3, 4, 1]))) == "[1,6,8,3]"
    with pytest.raises(ValidationError, match="both the U and the V plane"):
        opset.i420_to_rgb(P([1, 4, 4, 1]), P([1, 2, 2, 1]))


# -- case strategies ----------------------------------------------------------------------------------------------

def test_every_op_of_the_family_has_a_case() -> None:
    assert set(KEYS) <= set(all_case_keys())


@pytest.mark.parametrize(("op", "version"), KEYS)
@CASE_SETTINGS
@given(data=st.data())
def test_cases_are_valid_and_run(op: str, version: int, data: st.DataObject) -> None:
    case = data.draw(case_strategy(op, version))
    (node,) = [n for n in case.model.get_ordered_ops() if n.type_name not in {"Parameter", "Constant", "Result"}]
    assert (node.type_name, node.version) == (op, version)
    for p in case.model.get_parameters():
        assert tuple(case.inputs[p.friendly_name].shape) == p.get_output_partial_shape(0).to_shape()
    results = evaluate(case.model, case.inputs)
    for i, result in enumerate(results):
        assert result.shape == node.output(i).get_partial_shape().to_shape()
        assert result.dtype == node.output(i).get_element_type().to_dtype()
